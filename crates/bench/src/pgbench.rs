//! The baselines PostgreSQL sets: `pgbench -M prepared` running the debit
//! path's own statements on a copy of the benchmark database, and the
//! hot-row limit of funding cards from one wallet row. Latencies come from
//! pgbench's per-transaction log, so they read like the driver's.

use crate::cpu::{CpuTimes, Usage};
use crate::driver::Outcome;
use crate::server::{Database, psql};
use anyhow::{Context, ensure};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const DEBIT_SCRIPT: &str = include_str!("../pgbench/debit.sql");
/// The `enriched_data` the app stores for the benchmark's merchant.
const ENRICHED: &str = r#"{"is_recurring":false,"merchant_city":"Stockholm","merchant_code":"5815","merchant_logo":"https://icons.duckduckgo.com/ip3/spotify.com.ico","merchant_name":"Spotify","merchant_website":"https://spotify.com","transaction_category":"Digital Goods: Audiovisual Media Including Books, Movies, and Music","transaction_group":"Miscellaneous outlets"}"#;
const HOT_ROW_SCRIPT: &str = include_str!("../pgbench/hot_row.sql");

/// Runs `script` for `run` at `clients`, with `defines` as variables.
fn pgbench(
    db: &Database,
    script: &str,
    clients: usize,
    run: Duration,
    defines: &[(&str, String)],
    work: &Path,
) -> anyhow::Result<Outcome> {
    let dir = tempfile::tempdir_in(work).context("a directory for pgbench's logs")?;
    let file = dir.path().join("script.sql");
    std::fs::write(&file, script)?;
    let mut cmd = Command::new("pgbench");
    cmd.args(["-n", "-M", "prepared", "-l"])
        .arg(format!("--log-prefix={}", dir.path().join("txn").display()))
        .arg(format!("--client={clients}"))
        .arg(format!("--jobs={}", clients.min(2)))
        .arg(format!("--time={}", run.as_secs().max(1)))
        .arg(format!("--file={}", file.display()));
    for (name, value) in defines {
        cmd.arg(format!("--define={name}={value}"));
    }
    let (server, name) = db.server_and_name()?;
    let usage = || Usage {
        cpu: CpuTimes::database_now(),
        statements: crate::server::statements(server, name),
    };
    let before = usage();
    let out = cmd.arg(&db.url).output().context("running pgbench")?;
    // pgbench's backends have exited; their CPU counts once the
    // postmaster has reaped them, which it does at once, give or take.
    std::thread::sleep(Duration::from_millis(300));
    let used = usage().since(&before);
    let stdout = String::from_utf8_lossy(&out.stdout);
    ensure!(
        out.status.success(),
        "pgbench: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tps: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("tps = "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("pgbench printed no tps: {stdout}"))?;
    let mut latencies = vec![];
    let mut failed = 0;
    for entry in std::fs::read_dir(dir.path())? {
        let path = entry?.path();
        if !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("txn")) {
            continue;
        }
        // `client transaction latency_us script epoch epoch_us ...`
        for line in std::fs::read_to_string(&path)?.lines() {
            match line.split_whitespace().nth(2).map(str::parse::<u64>) {
                Some(Ok(micros)) => latencies.push(micros),
                _ => failed += 1,
            }
        }
    }
    ensure!(!latencies.is_empty(), "pgbench logged no transactions");
    let seconds = latencies.len() as f64 / tps;
    let mut outcome = Outcome::from_latencies(&latencies, failed, Duration::from_secs_f64(seconds));
    outcome.charge(used);
    Ok(outcome)
}

/// The debit path's SQL at `clients`, on `db` (a copy holding the seeded
/// cards; pgbench's debits change only it).
pub fn debit_equivalent(db: &Database, clients: usize, run: Duration, work: &Path) -> anyhow::Result<Outcome> {
    let (server, name) = db.server_and_name()?;
    let sql = |q: &str| psql(server, name, q);
    sql("CREATE TABLE IF NOT EXISTS bench_cards AS \
         SELECT row_number() OVER (ORDER BY id) AS n, id AS card_id, cardholder_id, \
         'la_' || id AS balance_la, 'la_' || id || '_spend' AS spend_la FROM cards WHERE deleted_at IS NULL")?;
    let cards = sql("SELECT count(*) FROM bench_cards")?;
    let account = sql("SELECT account_id FROM cards LIMIT 1")?;
    let key_hash = sql(&format!(
        "SELECT lookup_hash FROM api_keys WHERE account_id = '{account}' AND NOT livemode"
    ))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let defines = [
        ("cards", cards),
        ("account", account),
        ("key_hash", key_hash),
        ("now", now.to_string()),
        ("month", "202601".to_string()),
        ("month_start", (now - 60 * 86_400).to_string()),
        ("month_end", (now - 30 * 86_400).to_string()),
        ("enriched", ENRICHED.to_string()),
    ];
    pgbench(db, DEBIT_SCRIPT, clients, run, &defines, work)
}

/// Funding 10,000 cards from one wallet row, one conditional update each.
pub fn hot_row(db: &Database, clients: usize, run: Duration, work: &Path) -> anyhow::Result<Outcome> {
    let (server, name) = db.server_and_name()?;
    psql(
        server,
        name,
        "CREATE TABLE IF NOT EXISTS hot_accounts (id int PRIMARY KEY, balance bigint NOT NULL); \
         TRUNCATE hot_accounts; \
         INSERT INTO hot_accounts SELECT g, CASE WHEN g = 0 THEN 9000000000000000 ELSE 0 END \
         FROM generate_series(0, 10000) AS g",
    )?;
    pgbench(db, HOT_ROW_SCRIPT, clients, run, &[], work)
}

//! `issuing-bench`: runs the scenarios against the release `issuing`
//! binary on a fresh SQLite file and a fresh PostgreSQL database, with
//! pgbench and HTTP-floor baselines measured in the same run, checks the
//! books after every scenario, and writes the table. `scripts/bench`
//! builds and runs it.

mod bouncer;
mod cpu;
mod driver;
mod pgbench;
mod report;
mod sandbox;
mod scenarios;
mod server;

use anyhow::Context;
use clap::Parser;
use report::{Row, Target};
use scenarios::{Run, Size};
use server::{Backend, Database, psql};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "issuing-bench",
    about = "Load scenarios against the issuing binary, with baselines"
)]
struct Args {
    /// The `issuing` binary to measure (a release build).
    #[arg(long, default_value = "target/release/issuing")]
    issuing: PathBuf,
    /// Smaller seeds and 2-second runs: the whole run in a few minutes.
    #[arg(long)]
    quick: bool,
    /// Only this backend (both when absent).
    #[arg(long, value_parser = ["sqlite", "postgres"])]
    only: Option<String>,
    /// The PostgreSQL server to make databases on (and run pgbench against).
    #[arg(long, default_value = "postgres://root@127.0.0.1:5432")]
    postgres: String,
    /// Where the results go (between their markers); by default
    /// docs/benchmarks.md, or target/bench/quick.md with --quick.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Instead of the scenarios: the soak, this many minutes of mixed
    /// traffic at 70% of capacity, a row a minute (writes
    /// target/bench/soak.md unless --out).
    #[arg(long)]
    soak_minutes: Option<u32>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let size = if args.quick { Size::QUICK } else { Size::FULL };
    let work = PathBuf::from("target/bench");
    std::fs::create_dir_all(&work)?;
    let started = Instant::now();
    let mut rows = vec![];
    let mut targets = vec![];
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let wanted = args.only.as_deref().is_none_or(|o| o == backend_flag(backend));
        if !wanted {
            continue;
        }
        eprintln!("== {} ({:.0?} so far)", backend.name(), started.elapsed());
        let db = match backend {
            Backend::Sqlite => Database::sqlite()?,
            Backend::Postgres => Database::postgres(&args.postgres, &format!("issuing_bench_{}", std::process::id()))?,
        };
        let mut run = Run::new(&args.issuing, db, size)?;
        let measured = match args.soak_minutes {
            Some(minutes) => soak(&mut run, minutes).await,
            None => scenarios(&mut run, &work).await,
        };
        rows.extend(run.rows.clone());
        print!("{}", report::table(&run.rows));
        measured.with_context(|| format!("the {} run failed; nothing was written", backend.name()))?;
        targets.extend(backend_targets(&run, backend));
    }
    targets.push(rss_target(&rows));
    let results = format!(
        "{}\n\n{}\n### Where the targets stand\n\n{}",
        preamble(&args, &size, started)?,
        report::table(&rows),
        report::targets(&targets)
    );
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| match (args.soak_minutes, args.quick) {
            (Some(_), _) => work.join("soak.md"),
            (None, true) => work.join("quick.md"),
            (None, false) => PathBuf::from("docs/benchmarks.md"),
        });
    report::write(&out, &results)?;
    print!("\n{}", report::targets(&targets));
    eprintln!("written to {} in {:.0?}", out.display(), started.elapsed());
    Ok(())
}

fn backend_flag(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    }
}

/// Every scenario in order; the books are checked after each.
async fn scenarios(run: &mut Run, work: &std::path::Path) -> anyhow::Result<()> {
    let postgres = run.db.backend == Backend::Postgres;
    eprintln!("- http floor");
    run.floor().await?;
    eprintln!("- register");
    run.register().await?;
    eprintln!("- debit");
    let spread = run.debit().await?;
    if postgres {
        eprintln!("- pgbench: the debit path's SQL");
        run.debit_baseline(work)?;
    }
    eprintln!("- gateway");
    run.gateway().await?;
    eprintln!("- authorize + capture");
    run.authorize_capture(&spread).await?;
    eprintln!("- debit-hot");
    run.debit_hot(&spread).await?;
    eprintln!("- history");
    run.history().await?;
    eprintln!("- fund");
    run.fund().await?;
    if postgres {
        eprintln!("- pgbench: the hot wallet row");
        run.fund_baseline(work)?;
    }
    eprintln!("- read");
    run.read().await?;
    if postgres {
        eprintln!("- 1, 2 and 3 API processes");
        run.processes().await?;
        eprintln!("- debit through PgBouncer");
        run.through_pgbouncer(&spread).await?;
    }
    run.check_books()
}

/// The soak needs cardholders first.
async fn soak(run: &mut Run, minutes: u32) -> anyhow::Result<()> {
    eprintln!("- register");
    run.register().await?;
    eprintln!("- soak, {minutes} minutes");
    run.soak(minutes).await
}

fn find<'a>(rows: &'a [Row], scenario: &str, load: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.scenario.starts_with(scenario) && r.load == load)
}

/// The server's CPU per approved debit at 32 clients on PostgreSQL before
/// the work on it began (`scripts/bench --quick`, 2026-11-24: 1,185 and
/// 1,202 µs in two runs): the CPU target is half of it.
const DEBIT_CPU_BEFORE_US: u16 = 1_200;

fn backend_targets(run: &Run, backend: Backend) -> Vec<Target> {
    let rows = &run.rows;
    let name = backend.name();
    let mut targets = vec![];
    for clients in ["8", "32"] {
        if backend == Backend::Postgres
            && let (Some(debit), Some(pgbench)) =
                (find(rows, "debit", clients), find(rows, "pgbench-equivalent", clients))
        {
            let ratio = debit.per_second / pgbench.per_second;
            let p99 = |row: &Row| row.latency.map_or(f64::NAN, |l| l[1]);
            targets.push(Target {
                goal: format!(
                    "debit, PostgreSQL, {clients} clients: >= 1.0 of pgbench-equivalent, p99 no worse than its"
                ),
                measured: format!(
                    "{ratio:.2} of pgbench-equivalent, p99 {:.1} ms against {:.1} ms",
                    p99(debit),
                    p99(pgbench)
                ),
                met: ratio >= 1.0 && p99(debit) <= p99(pgbench),
            });
        }
    }
    if backend == Backend::Postgres
        && let Some(server_us) = find(rows, "debit", "32").and_then(|debit| debit.cpu_us.0)
    {
        targets.push(Target {
            goal: format!(
                "server CPU per debit, PostgreSQL, 32 clients: at most half of the {DEBIT_CPU_BEFORE_US} µs measured before group commit"
            ),
            measured: format!("{server_us:.0} µs"),
            met: server_us <= f64::from(DEBIT_CPU_BEFORE_US) / 2.0,
        });
    }
    if let (Some(hot), Some(spread)) = (find(rows, "debit-hot", "32"), find(rows, "debit", "32")) {
        let ratio = hot.per_second / spread.per_second;
        targets.push(Target {
            goal: format!("debit-hot >= 0.8 of debit (32 clients, {name})"),
            measured: format!("{ratio:.2}"),
            met: ratio >= 0.8,
        });
    }
    for (what, at_least) in [("accepted", 1.5), ("settled", 1.0)] {
        if let (Some(fund), Some(hot_row)) = (
            find(rows, &format!("fund ({what})"), "32"),
            find(rows, "pgbench hot-row", "32"),
        ) {
            let ratio = fund.per_second / hot_row.per_second;
            targets.push(Target {
                goal: format!("fund {what}/s from one wallet >= {at_least}x pgbench hot-row (32 clients, PostgreSQL)"),
                measured: format!("{:.0}/s, {ratio:.2}x", fund.per_second),
                met: ratio >= at_least,
            });
        }
    }
    if let Some(last) = rows
        .iter()
        .rev()
        .find(|r| r.scenario.starts_with("history page") && !r.scenario.starts_with("history page 1 "))
        && let Some(first) = rows.iter().find(|r| r.scenario.starts_with("history page 1 "))
    {
        let ratio = first.per_second / last.per_second;
        targets.push(Target {
            goal: format!("history: the last page within 2x of page 1 ({name})"),
            measured: format!("page 1 answers {ratio:.2}x as fast as the last"),
            met: ratio <= 2.0,
        });
    }
    targets
}

fn rss_target(rows: &[Row]) -> Target {
    let peak = rows.iter().filter_map(|r| r.peak_rss_mib).fold(0.0, f64::max);
    Target {
        goal: "server peak RSS < 150 MiB in every scenario".into(),
        measured: format!("{peak:.0} MiB at most"),
        met: peak < 150.0,
    }
}

/// The machine, the PostgreSQL server, the date and the command.
fn preamble(args: &Args, size: &Size, started: Instant) -> anyhow::Result<String> {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let memory = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or("?".into(), |kib| format!("{:.0} GiB", kib / 1024.0 / 1024.0));
    let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
    let show = |setting: &str| psql(&args.postgres, "postgres", &format!("SHOW {setting}"));
    let postgres = show("server_version").unwrap_or_else(|_| "not reached".into());
    let autovacuum = show("autovacuum").unwrap_or_default();
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())?;
    let command = if args.quick {
        "scripts/bench --quick"
    } else {
        "scripts/bench"
    };
    Ok(format!(
        "Measured {date} with `{command}` ({:.0} s in all): {cores} cores of {cpu}, {memory} of memory, \
         Linux {kernel}, PostgreSQL {postgres} as installed (fsync on, autovacuum {autovacuum}: the harness \
         runs `VACUUM ANALYZE` after each seeding), SQLite bundled. \
         The driver, the server and the database share the machine. Each measured run lasts {} s; \
         seeds: {} cardholders, {} cards for `debit`, {} transactions for `history`, {} cards for `fund`, \
         {} cards for `read`.",
        started.elapsed().as_secs_f64(),
        size.run.as_secs(),
        size.cardholders,
        size.debit_cards,
        size.history,
        size.fund_cards,
        size.read_cards,
    ))
}

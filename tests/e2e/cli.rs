use crate::harness::{issuing, run};
use adapters::test_db::TestDb;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_applies_the_schema_and_a_second_run_is_a_no_op() {
    for db in TestDb::all().await {
        for _ in 0..2 {
            let out = run(issuing(&db).arg("migrate"));
            assert!(out.status.success(), "{}: {}", db.backend(), stderr(&out));
            assert!(stdout(&out).contains("the schema is up to date"));
        }
        let again = run(issuing(&db).arg("migrate"));
        assert!(
            stdout(&again).starts_with("no migration to apply"),
            "{}",
            stdout(&again)
        );
        let out = run(issuing(&db).args(["accounts", "create", "--name", "After migrate"]));
        assert!(out.status.success(), "{}", stderr(&out));
        let (passed, report) = crate::harness::ledger_check(&db);
        assert!(passed, "{report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrate_on_an_empty_database_says_how_many_migrations_it_applied() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/fresh.db", dir.path().display());
    let out = run(std::process::Command::new(crate::harness::binary()).args(["migrate", "--database-url", &url]));
    assert!(out.status.success(), "{}", stderr(&out));
    let shipped = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations/sqlite"))
        .unwrap()
        .count();
    assert_eq!(
        stdout(&out).trim(),
        format!("applied {shipped} migrations: the schema is up to date")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unmigrated_postgres_database_says_to_run_migrate() {
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    for command in [&["ledger", "check"][..], &["jobs", "list"], &["serve", "--no-migrate"]] {
        let out = run(issuing(&db).args(command));
        assert!(!out.status.success(), "{command:?}");
        let said = stderr(&out);
        assert!(
            said.contains("lacks") && said.contains("run `issuing migrate`"),
            "{command:?}: {said}"
        );
    }
    assert!(run(issuing(&db).arg("migrate")).status.success());
    assert!(run(issuing(&db).args(["ledger", "check"])).status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_without_a_master_key_is_a_clear_error() {
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    assert!(run(issuing(&db).arg("migrate")).status.success());
    // Commands that run the service's use cases need its master key, and say so.
    for command in [
        &["accounts", "create", "--name", "Keyless"][..],
        &["jobs", "list"],
        &["review", "list"],
    ] {
        let out = run(issuing(&db).env_remove("ISSUING_MASTER_KEY").args(command));
        assert!(!out.status.success(), "{command:?}");
        assert!(
            stderr(&out).contains("ISSUING_MASTER_KEY or --master-key-file is required with PostgreSQL"),
            "{command:?}: {}",
            stderr(&out)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_master_key_or_database_url_is_named() {
    let db = TestDb::sqlite();
    assert!(run(issuing(&db).arg("migrate")).status.success());
    let out = run(issuing(&db)
        .env("ISSUING_MASTER_KEY", "not-hex")
        .args(["accounts", "create", "--name", "X"]));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("ISSUING_MASTER_KEY"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("not-hex"), "the key's value is echoed");

    let out = run(issuing(&db).env("DATABASE_URL", "mysql://nope").arg("migrate"));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("sqlite:// or postgres://"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_processor_secret_is_refused_at_start() {
    let db = TestDb::sqlite();
    for flag in ["--processor-secret", "--sandbox-processor-secret"] {
        let out = run(issuing(&db).args(["serve", flag, "secret-of-thirty-one-characters"]));
        assert!(!out.status.success(), "{flag}");
        assert!(stderr(&out).contains("at least 32 characters"), "{}", stderr(&out));
        assert!(!stderr(&out).contains("thirty-one"), "the secret is echoed");
    }
    let same = "a-processor-secret-of-more-than-32-characters";
    let out = run(issuing(&db).args(["serve", "--processor-secret", same, "--sandbox-processor-secret", same]));
    assert!(!out.status.success());
    assert!(stderr(&out).contains("must differ"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mistyped_database_path_is_an_error_and_creates_nothing() {
    let db = TestDb::sqlite();
    assert!(run(issuing(&db).arg("migrate")).status.success());
    let real = db.url().strip_prefix("sqlite://").unwrap().to_string();
    let typo = real.replace("issuing.db", "isuing.db");
    for command in [
        &["ledger", "check"][..],
        &["ledger", "totals"],
        &["jobs", "list"],
        &["review", "list"],
    ] {
        let out = run(issuing(&db)
            .env("DATABASE_URL", format!("sqlite://{typo}"))
            .args(command));
        assert!(!out.status.success(), "{command:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains(&format!("no database at {typo}")),
            "{}",
            stderr(&out)
        );
        assert!(!std::path::Path::new(&typo).exists(), "{command:?} created {typo}");
    }
    let (passed, report) = crate::harness::ledger_check(&db);
    assert!(passed, "the real one still opens: {report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_database_and_its_wal_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let db = TestDb::sqlite();
    let server = crate::harness::Server::start(&db);
    let path = db.url().strip_prefix("sqlite://").unwrap().to_string();
    for file in [
        path.clone(),
        format!("{path}-wal"),
        format!("{path}-shm"),
        format!("{path}.master.key"),
    ] {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{file}");
    }
    server.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_default_database_or_demo_gets_a_demo_account() {
    use ports::accounts::AccountStore;
    for db in TestDb::all().await {
        let mut child = issuing(&db)
            .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
            .args(["--dashboard-listen", "off"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut printed = vec![];
        while let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(60)) {
            let ready = line.starts_with("card-details relay listening");
            printed.push(line);
            if ready {
                break;
            }
        }
        // The demo key would follow the addresses at once.
        std::thread::sleep(std::time::Duration::from_millis(500));
        child.kill().unwrap();
        let _ = child.wait();
        printed.extend(rx.try_iter());
        let printed = printed.join("\n");
        assert!(printed.contains("issuing API listening"), "{}: {printed}", db.backend());
        assert!(!printed.contains("demo account"), "{}: {printed}", db.backend());
        let store = db.migrated().await;
        assert!(
            !store.any_account().await.unwrap(),
            "{}: a demo account was made",
            db.backend()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_whose_reader_goes_away_ends_without_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = std::process::Command::new(crate::harness::binary())
        .arg("openapi")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // `| head -c 10`: read a little, then close the pipe.
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with(b"{"));
    let stderr = stderr(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_flags_go_before_or_after_the_command() {
    for db in TestDb::all().await {
        assert!(run(issuing(&db).arg("migrate")).status.success());
        let url = db.url();
        let before = ["--database-url", url, "--log-format", "json", "ledger", "check"];
        let after = ["ledger", "check", "--database-url", url, "--log-format", "json"];
        for args in [&before[..], &after[..]] {
            let out = run(issuing(&db).env_remove("DATABASE_URL").args(args));
            assert!(out.status.success(), "{} {args:?}: {}", db.backend(), stderr(&out));
            assert!(stdout(&out).starts_with("ledger check passed"), "{}", stdout(&out));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_url_with_credentials_a_query_or_a_fragment_is_refused_at_start() {
    let db = TestDb::sqlite();
    for url in [
        "https://user:pw@api.example.com",
        "https://api.example.com/#top",
        "https://api.example.com/?a=1",
        "ftp://x",
    ] {
        for flag in ["--public-url", "--relay-public-url"] {
            let out = run(issuing(&db).args(["serve", flag, url]));
            assert!(!out.status.success(), "{flag} {url}");
            assert!(
                stderr(&out).contains("no credentials, query or fragment"),
                "{flag} {url}: {}",
                stderr(&out)
            );
            assert!(
                !stderr(&out).contains("pw@"),
                "the credentials are not echoed: {}",
                stderr(&out)
            );
        }
    }
}

/// `ledger check --json`: a summary object on clean books; on broken ones
/// each breach as a JSON line naming its rule and ids, and exit status 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_check_reports_each_breach_as_a_json_line() {
    for db in TestDb::all().await {
        let s = crate::cards::Sandbox::start(&db, None);
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(61).await;
        let card = s.card(&holder, "1000").await;
        s.server.stop();
        let clean = run(issuing(&db).args(["ledger", "check", "--json"]));
        assert!(clean.status.success(), "{}", stdout(&clean));
        let summary: serde_json::Value = serde_json::from_str(stdout(&clean).trim()).unwrap();
        assert_eq!(summary, serde_json::json!({"passed": true, "breaches": 0}));
        // A debit with no transaction behind it, balanced and cached.
        for sql in [
            format!(
                "INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) SELECT 'le_forged', account_id, livemode, 'card_debit', 5 FROM cards WHERE id = '{card}'"
            ),
            format!(
                "INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount) SELECT account_id, 'le_forged', 0, 'la_{card}', 'USD', -100 FROM cards WHERE id = '{card}'"
            ),
            format!(
                "INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount) SELECT account_id, 'le_forged', 1, 'la_{card}_spend', 'USD', 100 FROM cards WHERE id = '{card}'"
            ),
            format!("UPDATE ledger_accounts SET balance = balance - 100 WHERE id = 'la_{card}'"),
            format!("UPDATE ledger_accounts SET balance = balance + 100 WHERE id = 'la_{card}_spend'"),
        ] {
            db.execute(&sql).await;
        }
        let broken = run(issuing(&db).args(["ledger", "check", "--json"]));
        assert_eq!(broken.status.code(), Some(1), "{}", db.backend());
        let lines: Vec<serde_json::Value> = stdout(&broken)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(
            lines.iter().any(|l| l["breach"] == "record_mismatch"
                && l["card_id"] == card.as_str()
                && l["rule"] == "approved debits"
                && l["posted"] == 100
                && l["recorded"] == 0),
            "{}: {lines:?}",
            db.backend()
        );
        assert_eq!(lines.last().unwrap()["passed"], false);
    }
}

/// The commands of `issuing <path> --help`, as its "Commands:" list
/// names them (`help` aside).
fn commands_of(help: &str) -> Vec<String> {
    let Some(list) = help.split("Commands:\n").nth(1) else {
        return Vec::new();
    };
    list.lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The arguments `usage` (a help's "Usage:" line) requires, each given a
/// value that parses (`--mode test`, a `<FILE>` that `file` names, else
/// `x`).
fn required_args(usage: &str, path: &[String], file: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut words = usage.split_whitespace().skip(2 + path.len()).peekable();
    while let Some(word) = words.next() {
        match word {
            flag if flag.starts_with("--") => {
                args.push(flag.to_string());
                if words.peek().is_some_and(|v| v.starts_with('<')) {
                    words.next();
                    args.push(if flag == "--mode" { "test" } else { "x" }.to_string());
                }
            }
            "<FILE>" => args.push(file.to_string()),
            value if value.starts_with('<') => args.push("x".to_string()),
            _ => {}
        }
    }
    args
}

/// Each global flag whose reading shows in what a command says: the
/// broken value given, and what a command that reads it then says.
const OBSERVED: [(&str, &str, &str); 5] = [
    (
        "--database-url",
        "sqlite:///nonexistent-dir/issuing.db",
        "nonexistent-dir",
    ),
    ("--master-key", "zz", "ISSUING_MASTER_KEY"),
    (
        "--master-key-file",
        "/nonexistent/master.key",
        "/nonexistent/master.key",
    ),
    ("--previous-master-key", "zz", "ISSUING_PREVIOUS_MASTER_KEY"),
    (
        "--previous-master-key-file",
        "/nonexistent/previous.key",
        "/nonexistent/previous.key",
    ),
];

/// Every command's `--help`, walked from the top as a newcomer would:
/// each of the global flags above that a command's help lists, the
/// command reads (given broken, the command says so), and each it does
/// not list, it does not read (given broken, nothing changes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_commands_help_lists_the_global_flags_it_reads_and_no_other() {
    let db = TestDb::sqlite();
    assert!(run(issuing(&db).arg("migrate")).status.success());
    // A previous key in the environment, as during a rotation: `master-key
    // rotate` goes on to the database with it, and the others read it or
    // leave it as their help says.
    let dir = tempfile::tempdir().unwrap();
    let previous = dir.path().join("previous.key");
    std::fs::write(&previous, "ab".repeat(32)).unwrap();
    std::fs::set_permissions(&previous, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let catalogue = dir.path().join("catalogue.json");
    std::fs::write(&catalogue, crate::rewards::one_deal()).unwrap();
    let help = |path: &[String]| stdout(&run(issuing(&db).args(path).arg("--help")));
    let (mut pending, mut leaves) = (vec![Vec::<String>::new()], Vec::new());
    while let Some(path) = pending.pop() {
        let subs = commands_of(&help(&path));
        if subs.is_empty() {
            leaves.push(path);
            continue;
        }
        pending.extend(subs.into_iter().map(|sub| [path.clone(), vec![sub]].concat()));
    }
    assert!(leaves.len() >= 25, "{leaves:?}");
    let mut checked = 0;
    for path in &leaves {
        let text = help(path);
        let usage = text.lines().find(|l| l.starts_with("Usage:")).expect("a usage line");
        let args = required_args(usage, path, catalogue.to_str().unwrap());
        for (flag, broken, said) in OBSERVED {
            let listed = text.lines().any(|l| l.trim_start().starts_with(&format!("{flag} ")));
            let mut cmd = std::process::Command::new("timeout");
            cmd.arg("60")
                .arg(crate::harness::binary())
                .args(path)
                .args(&args)
                .args([flag, broken]);
            let base = issuing(&db);
            cmd.env_clear()
                .envs(base.get_envs().filter_map(|(k, v)| Some((k, v?))))
                .env("ISSUING_PREVIOUS_MASTER_KEY_FILE", &previous);
            let out = run(&mut cmd);
            let reads = !out.status.success() && stderr(&out).contains(said);
            assert_eq!(reads, listed, "{path:?} {flag}: listed {listed}, said {}", stderr(&out));
            checked += 1;
        }
    }
    assert!(checked >= 125, "{checked}");
}

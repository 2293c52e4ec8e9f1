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
            assert!(stdout(&out).contains("migrations are up to date"));
        }
        let out = run(issuing(&db).args(["accounts", "create", "--name", "After migrate"]));
        assert!(out.status.success(), "{}", stderr(&out));
        let (passed, report) = crate::harness::ledger_check(&db);
        assert!(passed, "{report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_without_a_master_key_is_a_clear_error() {
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    let out = run(issuing(&db)
        .env_remove("ISSUING_MASTER_KEY")
        .args(["accounts", "create", "--name", "Keyless"]));
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("ISSUING_MASTER_KEY is required with PostgreSQL"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_master_key_or_database_url_is_named() {
    let db = TestDb::sqlite();
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
}

//! Databases for tests: a temporary SQLite file always, and a fresh
//! PostgreSQL schema when `TEST_DATABASE_URL` is set (one schema per test,
//! so tests run in parallel; dropped when the `TestDb` is dropped).

use crate::db::{Db, migrate};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use std::io::Write;
use std::sync::Once;

pub struct TestDb {
    url: String,
    backend: &'static str,
    pg_schema: Option<(String, String)>,
    _dir: Option<tempfile::TempDir>,
}

static SKIP_NOTICE: Once = Once::new();

impl TestDb {
    /// Every backend this run can test: SQLite, and PostgreSQL when
    /// `TEST_DATABASE_URL` is set. Says so when it is not, past the test
    /// harness's output capture. With `TEST_DATABASE_ONLY=postgres` too,
    /// PostgreSQL alone: CI's pass after one on SQLite alone.
    pub async fn all() -> Vec<TestDb> {
        let postgres = TestDb::postgres_from_env().await;
        let only_postgres = std::env::var("TEST_DATABASE_ONLY").is_ok_and(|only| only == "postgres");
        match postgres {
            Some(postgres) if only_postgres => vec![postgres],
            postgres => [TestDb::sqlite()].into_iter().chain(postgres).collect(),
        }
    }

    /// A fresh PostgreSQL schema when `TEST_DATABASE_URL` is set; says so
    /// when it is not.
    pub async fn postgres_from_env() -> Option<TestDb> {
        let Ok(url) = std::env::var("TEST_DATABASE_URL") else {
            SKIP_NOTICE.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "note: TEST_DATABASE_URL is not set: tests ran on SQLite only, not on PostgreSQL"
                );
            });
            return None;
        };
        Some(TestDb::postgres(&url).await)
    }

    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let url = format!("sqlite://{}", dir.path().join("issuing.db").display());
        TestDb {
            url,
            backend: "sqlite",
            pg_schema: None,
            _dir: Some(dir),
        }
    }

    /// A fresh, empty schema in the database at `admin_url`.
    pub async fn postgres(admin_url: &str) -> TestDb {
        let schema = format!("test_{}", uuid::Uuid::new_v4().simple());
        let mut admin = AsyncPgConnection::establish(admin_url)
            .await
            .unwrap_or_else(|e| panic!("TEST_DATABASE_URL is set but PostgreSQL refused: {e}"));
        diesel::sql_query(format!("CREATE SCHEMA {schema}"))
            .execute(&mut admin)
            .await
            .expect("create a test schema");
        let sep = if admin_url.contains('?') { '&' } else { '?' };
        let url = format!("{admin_url}{sep}options=-csearch_path%3D{schema}");
        TestDb {
            url,
            backend: "postgres",
            pg_schema: Some((admin_url.to_string(), schema)),
            _dir: None,
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The PostgreSQL schema of this test, if on PostgreSQL.
    pub fn pg_schema(&self) -> Option<&str> {
        self.pg_schema.as_ref().map(|(_, schema)| schema.as_str())
    }

    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// Runs raw SQL against the test database, as a tamperer would.
    pub async fn execute(&self, sql: &str) {
        self.migrated()
            .await
            .execute_raw(sql)
            .await
            .expect("raw SQL on the test database");
    }

    /// Connects and applies the migrations.
    pub async fn migrated(&self) -> Db {
        let db = Db::connect(&self.url, 16).await.expect("connect to the test database");
        migrate(&db).await.expect("migrate the test database");
        db
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Some((admin_url, schema)) = self.pg_schema.take() else {
            return;
        };
        // Drop may run inside a runtime, so the cleanup gets a thread and a
        // runtime of its own.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async {
                let mut admin = AsyncPgConnection::establish(&admin_url).await.ok()?;
                diesel::sql_query(format!("DROP SCHEMA {schema} CASCADE"))
                    .execute(&mut admin)
                    .await
                    .ok()
            })
        })
        .join();
    }
}

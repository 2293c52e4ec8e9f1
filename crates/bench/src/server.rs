//! The system under test: a fresh database of either backend, the
//! `issuing` binary serving it, and its CLI for the checks.

use anyhow::{Context, bail, ensure};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The master key of the PostgreSQL runs (SQLite runs let the binary make
/// its own key file, as a new user's would).
const PG_MASTER_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }
}

/// A database made for this run, dropped (or deleted) when done.
pub struct Database {
    pub backend: Backend,
    pub url: String,
    /// PostgreSQL: the server's address without a database, and the name.
    pg: Option<(String, String)>,
    _dir: Option<tempfile::TempDir>,
}

impl Database {
    pub fn sqlite() -> anyhow::Result<Database> {
        let dir = tempfile::tempdir().context("a temporary directory for SQLite")?;
        Ok(Database {
            backend: Backend::Sqlite,
            url: format!("sqlite://{}", dir.path().join("bench.db").display()),
            pg: None,
            _dir: Some(dir),
        })
    }

    /// A new database named `name` on the PostgreSQL server at `server`
    /// (`postgres://user@host:port`).
    pub fn postgres(server: &str, name: &str) -> anyhow::Result<Database> {
        Database::create(server, name, "")
    }

    /// Another new database of the same backend (on PostgreSQL, this
    /// one's name with `suffix`).
    pub fn fresh(&self, suffix: &str) -> anyhow::Result<Database> {
        match &self.pg {
            None => Database::sqlite(),
            Some((server, name)) => Database::postgres(server, &format!("{name}{suffix}")),
        }
    }

    /// Drops any database named `name`, then creates it (`CREATE DATABASE
    /// <name><options>`).
    fn create(server: &str, name: &str, options: &str) -> anyhow::Result<Database> {
        let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        psql(server, "postgres", &drop)?;
        psql(server, "postgres", &format!("CREATE DATABASE {name}{options}"))?;
        // Counts statements where the server loads it (see statements()).
        let _ = psql(server, name, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        Ok(Database {
            backend: Backend::Postgres,
            url: format!("{server}/{name}"),
            pg: Some((server.to_string(), name.to_string())),
            _dir: None,
        })
    }

    /// PostgreSQL: `VACUUM ANALYZE` after seeding, as autovacuum would
    /// (it is off on some machines; every update of a hot card leaves a
    /// dead row version that its reads walk until a vacuum).
    pub fn vacuum(&self) -> anyhow::Result<()> {
        match &self.pg {
            Some((server, name)) => psql(server, name, "VACUUM ANALYZE").map(drop),
            None => Ok(()),
        }
    }

    /// PostgreSQL: the server's address and the database's name.
    pub fn server_and_name(&self) -> anyhow::Result<(&str, &str)> {
        let (server, name) = self.pg.as_ref().context("a PostgreSQL database")?;
        Ok((server, name))
    }

    /// PostgreSQL: a copy of this database (its data and indexes) under
    /// `name`; nothing may be connected to this one meanwhile.
    pub fn copy(&self, name: &str) -> anyhow::Result<Database> {
        let (server, from) = self.server_and_name()?;
        Database::create(server, name, &format!(" TEMPLATE {from}"))
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Some((server, name)) = &self.pg {
            let _ = psql(
                server,
                "postgres",
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        }
    }
}

/// How many statements database `db` has run, from `pg_stat_statements`
/// (transaction control included: each is a round trip); `None` unless
/// the server loads the extension (`shared_preload_libraries`).
pub fn statements(server: &str, db: &str) -> Option<u64> {
    let sql = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements \
               WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())";
    psql(server, db, sql).ok()?.parse().ok()
}

/// Runs SQL through `psql` on database `db`; what it printed, unaligned.
pub fn psql(server: &str, db: &str, sql: &str) -> anyhow::Result<String> {
    let out = Command::new("psql")
        .args([
            "-X",
            "-q",
            "-t",
            "-A",
            "-v",
            "ON_ERROR_STOP=1",
            "-d",
            &format!("{server}/{db}"),
        ])
        .args(["-c", sql])
        .output()
        .context("running psql (PostgreSQL's client)")?;
    ensure!(
        out.status.success(),
        "psql -c {sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The `issuing` binary with one database.
#[derive(Clone)]
pub struct Issuing {
    pub binary: PathBuf,
    pub url: String,
    pub backend: Backend,
}

impl Issuing {
    pub fn new(binary: &Path, db: &Database) -> Issuing {
        Issuing {
            binary: binary.to_path_buf(),
            url: db.url.clone(),
            backend: db.backend,
        }
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.binary);
        cmd.env("DATABASE_URL", &self.url).env("ISSUING_LOG", "warn");
        if self.backend == Backend::Postgres {
            cmd.env("ISSUING_MASTER_KEY", PG_MASTER_KEY);
        }
        cmd
    }

    /// Runs a CLI command; its stdout, or an error with its stderr.
    fn cli(&self, args: &[&str]) -> anyhow::Result<String> {
        let out = self.command().args(args).output().context("running issuing")?;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        ensure!(
            out.status.success(),
            "issuing {}: {stdout}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(stdout)
    }

    pub fn migrate(&self) -> anyhow::Result<()> {
        self.cli(&["migrate"]).map(drop)
    }

    /// A new account able to register cardholders; its sandbox key.
    pub fn create_account(&self) -> anyhow::Result<String> {
        let out = self.cli(&[
            "accounts",
            "create",
            "--name",
            "Bench Fintech",
            "--company-address",
            "1 Marina, Lagos",
            "--utility-bill-url",
            "https://bench.test/bill.pdf",
        ])?;
        let created: Value = serde_json::from_str(&out).context("accounts create prints JSON")?;
        Ok(created["test_secret_key"].as_str().context("a test key")?.to_string())
    }

    /// `issuing ledger check`: fails, naming the breaches, unless it passes.
    pub fn ledger_check(&self) -> anyhow::Result<()> {
        self.cli(&["ledger", "check"]).map(drop)
    }

    /// `issuing ledger totals` of the sandbox (where the benchmarks run) in
    /// USD: `{"card": ..., "issuing_wallet": ...}`, each total (a digit
    /// string) read as a number.
    pub fn usd_totals(&self) -> anyhow::Result<Value> {
        let out = self.cli(&["ledger", "totals"])?;
        let totals: Value = serde_json::from_str(&out).context("ledger totals prints JSON")?;
        let usd = totals["test"]["USD"].as_object().cloned().unwrap_or_default();
        usd.into_iter()
            .map(|(kind, total)| {
                let total: i64 = total
                    .as_str()
                    .and_then(|t| t.parse().ok())
                    .context("a total is a digit string")?;
                Ok((kind, Value::from(total)))
            })
            .collect()
    }

    /// Starts `issuing serve` on free ports, with `env` added.
    pub fn serve(&self, args: &[&str], env: &[(&str, String)]) -> anyhow::Result<Server> {
        let mut child = self
            .command()
            .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
            .args(["--dashboard-listen", "off"])
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("starting issuing serve")?;
        let mut stderr = child.stderr.take().context("its stderr")?;
        let (err_tx, err_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut all = String::new();
            let _ = stderr.read_to_string(&mut all);
            let _ = err_tx.send(all);
        });
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().context("its stdout")?;
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut base = None;
        while base.is_none() {
            let Ok(line) = rx.recv_timeout(Duration::from_secs(120)) else {
                let _ = child.kill();
                let logs = err_rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
                bail!("issuing serve did not start: {logs}");
            };
            if let Some(a) = line.strip_prefix("issuing API listening on ") {
                base = Some(a.to_string());
            }
        }
        Ok(Server {
            child,
            base: base.unwrap_or_default(),
            stderr: err_rx,
        })
    }
}

pub struct Server {
    child: Child,
    pub base: String,
    stderr: mpsc::Receiver<String>,
}

impl Server {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The most memory the server has held resident since it started
    /// (`VmHWM`), in MiB.
    pub fn peak_rss_mib(&self) -> anyhow::Result<f64> {
        self.memory_mib("VmHWM:")
    }

    /// The server's resident memory now.
    pub fn rss_mib(&self) -> anyhow::Result<f64> {
        self.memory_mib("VmRSS:")
    }

    fn memory_mib(&self, field: &str) -> anyhow::Result<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .context("reading the server's /proc status")?;
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .with_context(|| format!("{field} in /proc/<pid>/status"))?;
        Ok(kib / 1024.0)
    }

    /// Stops the server; fails with its logs if it had died.
    pub fn stop(mut self) -> anyhow::Result<()> {
        if let Some(status) = self.child.try_wait()? {
            let logs = self.stderr.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
            bail!("the server died ({status}): {logs}");
        }
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! Starts the real binary on a free port against a test database, and
//! runs its CLI against the same database.

use adapters::connectors::smileid::fake::FakeSmileId;
use adapters::connectors::sudo::fake::{FakeSudo, SETTLEMENT_ACCOUNT};
use adapters::test_db::TestDb;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{OnceLock, mpsc};
use std::time::Duration;

/// The master key the tests give PostgreSQL runs (SQLite runs let the
/// binary generate its key file, as a new user would).
pub const PG_MASTER_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_issuing"))
}

/// The `issuing` command with the database (and key) of `db`. Webhooks
/// may reach the tests' receivers on loopback, as in local development.
pub fn issuing(db: &TestDb) -> Command {
    let mut cmd = Command::new(binary());
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", db.url())
        .env("ISSUING_LOG", "info")
        .env("ISSUING_WEBHOOK_ALLOW_PRIVATE", "true");
    if db.backend() == "postgres" {
        cmd.env("ISSUING_MASTER_KEY", PG_MASTER_KEY);
    }
    cmd
}

pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the issuing binary runs")
}

/// With `ISSUING_E2E_RAILS=fakes` every server's sandbox runs on the real
/// connectors, Sudo's and Smile ID's, pointed at fakes built from their
/// documentation: CI runs the card and cardholder suites once more so.
pub fn on_fakes() -> bool {
    std::env::var("ISSUING_E2E_RAILS").is_ok_and(|v| v == "fakes")
}

/// The fakes every server's sandbox runs on (see [`on_fakes`]): one pair
/// for the whole run, so a restarted server finds its cards at "Sudo".
pub struct Rails {
    pub sudo: FakeSudo,
    pub smileid: FakeSmileId,
}

impl Rails {
    const SUDO_KEY: &str = "sudo-sandbox-api-key";
    const FUNDING_SOURCE: &str = "61e5a1ef0d3c3e7e4d3ff0a1";
    const GATEWAY_SECRET: &str = "sandbox-gateway-secret-of-at-least-32-chars";
    const PARTNER: &str = "2204";
    const SMILEID_KEY: &str = "smile-sandbox-api-key";

    /// The run's fakes, started on first use. Wiremock serves each on a
    /// thread of its own, so the runtime that starts them may end.
    pub fn get() -> &'static Rails {
        static RAILS: OnceLock<Rails> = OnceLock::new();
        RAILS.get_or_init(|| {
            let started = std::thread::spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    let smileid = FakeSmileId::start(Rails::PARTNER, Rails::SMILEID_KEY).await;
                    smileid.finish_jobs_at_once();
                    Rails {
                        sudo: FakeSudo::start(Rails::SUDO_KEY, Rails::FUNDING_SOURCE).await,
                        smileid,
                    }
                })
            });
            started.join().expect("the fakes start")
        })
    }

    /// The sandbox's connectors, pointed at these fakes.
    fn configure(&self, cmd: &mut Command) {
        cmd.env("ISSUING_SANDBOX_CARD_PROCESSOR", "sudo")
            .env("ISSUING_SUDO_API_URL", self.sudo.url())
            .env("ISSUING_SUDO_VAULT_URL", self.sudo.url())
            .env("ISSUING_SANDBOX_SUDO_FUNDING_SOURCE_ID", Rails::FUNDING_SOURCE)
            .env("ISSUING_SANDBOX_SUDO_CREDIT_ACCOUNT_ID", SETTLEMENT_ACCOUNT)
            .env("ISSUING_SANDBOX_SUDO_API_KEY", Rails::SUDO_KEY)
            .env("ISSUING_SANDBOX_SUDO_GATEWAY_SECRET", Rails::GATEWAY_SECRET)
            .env("ISSUING_SANDBOX_KYC_PROVIDER", "smileid")
            .env("ISSUING_SMILEID_API_URL", self.smileid.url())
            .env("ISSUING_SANDBOX_SMILEID_PARTNER_ID", Rails::PARTNER)
            .env("ISSUING_SANDBOX_SMILEID_API_KEY", Rails::SMILEID_KEY)
            .env("ISSUING_PUBLIC_URL", "https://issuing.example");
    }
}

pub struct Server {
    child: Child,
    pub base: String,
    /// The card-details relay's address.
    pub relay: String,
    pub demo_key: String,
    /// `GET /metrics`'s URL, when served (`--metrics-listen`).
    pub metrics: Option<String>,
    /// The dashboard's base URL (printed before the API's).
    pub dashboard: Option<String>,
    stderr: mpsc::Receiver<String>,
}

impl Server {
    pub fn start(db: &TestDb) -> Server {
        Server::start_with(db, &[])
    }

    /// Starts `issuing serve` with extra arguments. Idle job runners look
    /// for work every 50 ms, so tests need not wait.
    pub fn start_with(db: &TestDb, args: &[&str]) -> Server {
        Server::spawn(&mut issuing(db), args)
    }

    /// Starts `issuing serve` as in production: webhooks reach public
    /// addresses only.
    pub fn start_guarded(db: &TestDb) -> Server {
        Server::spawn(issuing(db).env_remove("ISSUING_WEBHOOK_ALLOW_PRIVATE"), &[])
    }

    /// Starts `issuing serve` with these environment variables too.
    pub fn start_env(db: &TestDb, envs: &[(&str, &str)]) -> Server {
        Server::spawn(issuing(db).envs(envs.iter().copied()), &[])
    }

    /// Starts `issuing serve` logging at `level` (`ISSUING_LOG`).
    pub fn start_logging(db: &TestDb, level: &str) -> Server {
        Server::spawn(issuing(db).env("ISSUING_LOG", level), &[])
    }

    fn spawn(cmd: &mut Command, args: &[&str]) -> Server {
        if on_fakes() {
            Rails::get().configure(cmd);
        }
        let mut child = cmd
            .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
            .args(["--dashboard-listen", "127.0.0.1:0"])
            .args(["--worker-poll-ms", "50", "--demo"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the issuing binary");
        // Stderr is drained on a thread so the server never blocks on it.
        let mut err = child.stderr.take().unwrap();
        let (err_tx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut all = String::new();
            let _ = err.read_to_string(&mut all);
            let _ = err_tx.send(all);
        });
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let (mut base, mut relay, mut demo_key, mut metrics, mut dashboard) = (None, None, None, None, None);
        while base.is_none() || relay.is_none() || demo_key.is_none() {
            let line = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the server prints its addresses and demo key");
            if let Some(addr) = line.strip_prefix("issuing API listening on ") {
                base = Some(addr.to_string());
            } else if let Some(addr) = line.strip_prefix("card-details relay listening on ") {
                relay = Some(addr.to_string());
            } else if let Some(key) = line.strip_prefix("demo account test key: ") {
                demo_key = Some(key.to_string());
            } else if let Some(url) = line.strip_prefix("metrics listening on ") {
                metrics = Some(url.to_string());
            } else if let Some(url) = line.strip_prefix("dashboard listening on ") {
                dashboard = Some(url.to_string());
            }
        }
        Server {
            child,
            base: base.unwrap(),
            relay: relay.unwrap(),
            demo_key: demo_key.unwrap(),
            metrics,
            dashboard,
            stderr,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The server's process id (to kill it while requests borrow it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process at once (SIGKILL): no shutdown of any kind.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM, as a supervisor stops a service: whether the
    /// process ended by itself within 20 seconds.
    pub fn terminate(mut self) -> bool {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -TERM {pid}");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while std::time::Instant::now() < deadline {
            if self.child.try_wait().is_ok_and(|ended| ended.is_some()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// Stops the server and returns everything it logged.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr.recv_timeout(Duration::from_secs(10)).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One client for the whole run: building one loads the system's root
/// certificates, too slow to do per request in the concurrency tests.
pub fn client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| client_builder().build().unwrap()).clone()
}

/// A client that opens a connection of its own for every request, for
/// tests after which the server may close the connection it answered on.
pub fn unpooled_client() -> reqwest::Client {
    client_builder().pool_max_idle_per_host(0).build().unwrap()
}

pub fn client_builder() -> reqwest::ClientBuilder {
    // reqwest is built without a TLS provider of its own (see adapters'
    // webhook sender); the test client gets the same one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().timeout(Duration::from_secs(30))
}

pub fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

/// The server's OpenAPI document.
pub async fn openapi(server: &Server) -> serde_json::Value {
    let response = client().get(server.url("/v1/openapi.json")).send().await.unwrap();
    response.json().await.unwrap()
}

/// GET `path` with `key`: the status and the JSON body.
pub async fn get_json(server: &Server, key: &str, path: &str) -> (u16, serde_json::Value) {
    let response = client()
        .get(server.url(path))
        .header("token", bearer(key))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// An account made with `issuing accounts create`, as JSON.
pub fn create_account(db: &TestDb, webhook_url: Option<&str>) -> serde_json::Value {
    let mut cmd = issuing(db);
    cmd.args(["accounts", "create", "--name", "Acme Fintech"]);
    if let Some(url) = webhook_url {
        cmd.args(["--webhook-url", url]);
    }
    let out = run(&mut cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `issuing ledger check` on `db`: (passed, what it printed).
pub fn ledger_check(db: &TestDb) -> (bool, String) {
    let out = run(issuing(db).args(["ledger", "check"]));
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Moves the sandbox clock of `key`'s account forward.
pub async fn advance_clock(server: &Server, key: &str, seconds: i64) {
    let response = client()
        .post(server.url("/v1/issuing/sandbox/test_clock/advance"))
        .header("token", bearer(key))
        .json(&serde_json::json!({ "seconds": seconds }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// Asks `probe` every 50 ms until `done` holds for its answer, for 30 s
/// at most; returns the last answer, for the caller to assert on.
pub async fn eventually<T>(mut probe: impl AsyncFnMut() -> T, done: impl Fn(&T) -> bool) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let answer = probe().await;
        if done(&answer) || std::time::Instant::now() >= deadline {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until no USD is in transit: every funding and unloading
/// settled. Returns what is left in transit.
pub async fn settlements_finished(db: &TestDb) -> i64 {
    let in_transit = async || sandbox_totals(db)["USD"]["card_transit"].as_i64().unwrap_or(0);
    eventually(in_transit, |left| *left == 0).await
}

/// `issuing ledger totals` on `db`: `{"live": {"USD": {"card": ..., ...}, ...}, "test": ...}`,
/// each total (printed as a digit string, as amounts are) read as a
/// number for the tests' sums.
pub fn ledger_totals(db: &TestDb) -> serde_json::Value {
    let out = run(issuing(db).args(["ledger", "totals"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut totals: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    for currencies in totals.as_object_mut().unwrap().values_mut() {
        for kinds in currencies.as_object_mut().unwrap().values_mut() {
            for total in kinds.as_object_mut().unwrap().values_mut() {
                let text = total.as_str().expect("a total is a digit string");
                *total = serde_json::json!(text.parse::<i64>().expect("a total fits i64"));
            }
        }
    }
    totals
}

/// The sandbox's part of [`ledger_totals`]: `{"USD": {"card": ..., ...}, ...}`.
pub fn sandbox_totals(db: &TestDb) -> serde_json::Value {
    ledger_totals(db)["test"].take()
}

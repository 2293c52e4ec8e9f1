//! One account's sandbox on a running server: the requests the scenarios
//! send, and the seeding they need, sent through the driver like any load.

use crate::cpu::{CpuTimes, Usage};
use crate::driver::{self, Call, Load, MakeCall, MakeRequest, Outcome, Until};
use crate::server::Server;
use anyhow::{Context, ensure};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

const BASE: &str = "/v1/issuing/sandbox";

/// Concurrency of seeding: enough to keep both cores busy.
const SEED_CLIENTS: usize = 16;

/// The amount of a debit of the spread cards, in cents: 1 USD.
pub const DEBIT_CENTS: i64 = 100;

pub struct Sandbox {
    client: reqwest::Client,
    key: String,
    /// The API's address in each server process: requests go to each in
    /// turn.
    bases: Vec<String>,
    next: AtomicUsize,
    /// Numbers requests across the whole run, so references never repeat.
    sequence: Arc<AtomicU64>,
    /// The servers' processes, whose CPU each run measures.
    server_pids: Vec<u32>,
    /// PostgreSQL: the server and the database whose statements each run
    /// counts.
    database: Option<(String, String)>,
}

impl Sandbox {
    pub fn new(
        key: String,
        servers: &[Server],
        sequence: Arc<AtomicU64>,
        database: Option<(String, String)>,
    ) -> anyhow::Result<Sandbox> {
        // reqwest is built with rustls but no provider (see the adapters'
        // webhook sender); plain HTTP needs none, but the builder asks.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .pool_max_idle_per_host(256)
            .build()
            .context("an HTTP client")?;
        Ok(Sandbox {
            client,
            key,
            bases: servers.iter().map(|s| s.base.clone()).collect(),
            next: AtomicUsize::new(0),
            sequence,
            server_pids: servers.iter().map(Server::pid).collect(),
            database,
        })
    }

    /// The next server's API address.
    fn base(&self) -> &str {
        &self.bases[self.next.fetch_add(1, Ordering::Relaxed) % self.bases.len()]
    }

    /// A request to a sandbox `path`, with the key.
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, format!("{}{BASE}{path}", self.base()))
            .header("token", format!("Bearer {}", self.key))
    }

    /// A request to a path outside the sandbox, without a key.
    pub fn plain(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.get(format!("{}{path}", self.base()))
    }

    /// A call of Sudo's gateway, with the funding source's credential.
    pub fn gateway(&self, secret: &str, body: Vec<u8>) -> reqwest::RequestBuilder {
        self.client
            .post(format!("{}/v1/connectors/sudo/gateway", self.base()))
            .header("authorization", format!("Bearer {secret}"))
            .header("content-type", "application/json")
            .body(body)
    }

    /// Runs `load`; request numbers continue from the last run's.
    pub async fn drive(&self, load: Load, make: MakeRequest) -> Outcome {
        self.drive_calls(load, Arc::new(move |n| Box::pin(driver::send(make(n)))))
            .await
    }

    /// Runs `load` of calls of several requests each, timed whole.
    pub async fn drive_calls(&self, load: Load, make: MakeCall) -> Outcome {
        let first = self.sequence.fetch_add(1 << 32, Ordering::Relaxed);
        let before = self.usage();
        let mut outcome = driver::run_calls(load, first, make).await;
        outcome.charge(self.usage().since(&before));
        outcome
    }

    /// A payment as a card network makes it: an authorization of `cents`
    /// on `card` (a hold), then its capture in full. Its status: the
    /// capture's, or the first answer that was not a 200 (0: none came).
    pub fn pay(&self, card: &str, cents: i64, n: u64) -> Call {
        let authorize = self
            .request(Method::POST, "/authorizations")
            .json(&debit_body(card, cents, n));
        let capture = {
            let (client, base, key) = (self.client.clone(), self.base().to_string(), self.key.clone());
            move |id: &str| {
                client
                    .post(format!("{base}{BASE}/authorizations/{id}/capture"))
                    .header("token", format!("Bearer {key}"))
            }
        };
        Box::pin(async move {
            let Ok(answer) = authorize.send().await else { return 0 };
            let status = answer.status().as_u16();
            let Ok(body) = answer.json::<Value>().await else {
                return 0;
            };
            let id = body["data"]["issuer_transaction_reference"].as_str();
            match (status, body["data"]["status"].as_str(), id) {
                (200, Some("pending"), Some(id)) => driver::send(capture(id)).await,
                // A declined hold: nothing to capture (counted apart).
                (200, _, _) => 402,
                _ => status,
            }
        })
    }

    /// The CPU the server and the database used so far, and the
    /// statements the database ran.
    pub fn usage(&self) -> Usage {
        let statements = self
            .database
            .as_ref()
            .and_then(|(server, db)| crate::server::statements(server, db));
        Usage {
            cpu: CpuTimes::now(&self.server_pids),
            statements,
        }
    }

    async fn call(&self, request: reqwest::RequestBuilder) -> anyhow::Result<Value> {
        let response = request.send().await.context("calling the server")?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        ensure!(status.is_success(), "{status}: {body}");
        Ok(body)
    }

    pub async fn fund_wallet(&self, cents: i64) -> anyhow::Result<()> {
        let request = self
            .request(Method::PATCH, "/cards/fund_issuing_wallet")
            .json(&json!({"amount": cents.to_string()}));
        self.call(request).await.map(drop)
    }

    /// Moves the sandbox clock `seconds` ahead.
    pub async fn advance(&self, seconds: i64) -> anyhow::Result<()> {
        let request = self
            .request(Method::POST, "/test_clock/advance")
            .json(&json!({"seconds": seconds}));
        self.call(request).await.map(drop)
    }

    /// How many events the account has stored.
    pub async fn events_stored(&self) -> anyhow::Result<u64> {
        let body = self.call(self.request(Method::GET, "/events?page=1")).await?;
        body["data"]["meta"]["total"].as_u64().context("events total")
    }

    /// Registers `count` cardholders synchronously, numbered from `from`,
    /// at `concurrency`; the outcome, and the ids of all the account's
    /// cardholders.
    pub async fn register(
        self: &Arc<Self>,
        from: u64,
        count: u64,
        concurrency: usize,
    ) -> anyhow::Result<(Outcome, Vec<String>)> {
        let me = self.clone();
        let outcome = self
            .drive(
                Load::closed(concurrency, Until::Sent(count)),
                Arc::new(move |n| {
                    let person = from + (n & 0xffff_ffff);
                    me.request(Method::POST, "/cardholder/register_cardholder_synchronously")
                        .json(&registration(person))
                }),
            )
            .await;
        ensure!(
            outcome.errors() == 0,
            "registering cardholders: {}",
            outcome.error_summary()
        );
        Ok((outcome, self.cardholder_ids().await?))
    }

    /// Every cardholder id of the account, through the paged list.
    async fn cardholder_ids(&self) -> anyhow::Result<Vec<String>> {
        let mut ids = vec![];
        for page in 1.. {
            let body = self
                .call(self.request(Method::GET, &format!("/cards/get_all_cardholder?page={page}")))
                .await?;
            let listed = body["data"]["cardholders"].as_array().context("a cardholders list")?;
            ids.extend(
                listed
                    .iter()
                    .filter_map(|c| c["cardholder_id"].as_str().map(String::from)),
            );
            if body["data"]["meta"]["next"].is_null() {
                break;
            }
        }
        Ok(ids)
    }

    /// Creates `count` cards funded with `cents` each, spread over the
    /// cardholders; returns their ids.
    pub async fn cards(self: &Arc<Self>, holders: &[String], count: u64, cents: i64) -> anyhow::Result<Vec<String>> {
        let made = Arc::new(std::sync::Mutex::new(Vec::new()));
        let next = Arc::new(AtomicU64::new(0));
        let clients = (0..SEED_CLIENTS).map(|_| {
            let (me, made, next, holders) = (self.clone(), made.clone(), next.clone(), holders.to_vec());
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= count {
                        return Ok::<_, anyhow::Error>(());
                    }
                    let holder = &holders[usize::try_from(n).unwrap_or(0) % holders.len()];
                    let body = me
                        .call(
                            me.request(Method::POST, "/cards/create_card")
                                .json(&card_body(holder, cents)),
                        )
                        .await
                        .context("creating a card")?;
                    let id = body["data"]["card_id"].as_str().context("a card id")?.to_string();
                    made.lock().expect("not poisoned").push(id);
                }
            })
        });
        for client in futures::future::join_all(clients).await {
            client??;
        }
        let ids = made.lock().expect("not poisoned").clone();
        Ok(ids)
    }
}

/// A Nigerian registration on the BVN route, unique by `n` (phone and
/// BVN); the BVN ends in 12, never a sandbox outcome, so it verifies.
fn registration(n: u64) -> Value {
    json!({
        "first_name": "Adaeze",
        "last_name": "Okafor",
        "address": {"address": "Admiralty Way", "city": "Lekki", "state": "Lagos", "country": "Nigeria",
                    "postal_code": "106104", "house_no": "12B", "lga": "Eti Osa"},
        "phone": format!("+2348031{n:06}"),
        "email_address": "adaeze@example.com",
        "identity": {"id_type": "NIGERIAN_BVN_VERIFICATION", "bvn": format!("22{n:07}12"),
                     "selfie_image": "https://img.test/selfie.jpg"},
        "meta_data": {"user_id": n}
    })
}

fn card_body(holder: &str, cents: i64) -> Value {
    json!({
        "cardholder_id": holder, "card_type": "virtual", "card_brand": "Mastercard",
        "card_currency": "USD", "card_limit": "500000", "funding_amount": cents.to_string()
    })
}

/// Sudo's `authorization.request` of `cents` (written, as Sudo writes
/// amounts, in dollars) on its card `card`, its id unique to request `n`.
pub fn sudo_authorization(card: &str, cents: i64, n: u64) -> Vec<u8> {
    json!({
        "type": "authorization.request",
        "data": {"object": {
            "_id": format!("auth_bench_{n}"),
            "card": {"_id": card},
            "amount": 0,
            "approved": false,
            "status": "pending",
            "currency": "USD",
            "pendingRequest": {"amount": cents as f64 / 100.0, "currency": "USD"},
            "merchant": {"category": "5812", "name": "NETFLIX.COM", "city": "LOS GATOS", "country": "US"},
        }},
    })
    .to_string()
    .into_bytes()
}

/// A mock debit of `cents` with a reference unique to request `n`.
pub fn debit_body(card: &str, cents: i64, n: u64) -> Value {
    json!({
        "card_id": card, "amount": cents.to_string(), "merchant": "SPOTIFY P1A2B3",
        "transaction_reference": format!("bench-debit-{n}")
    })
}

/// A funding of `cents` with a reference unique to request `n`.
pub fn funding_body(card: &str, cents: i64, n: u64) -> Value {
    json!({
        "card_id": card, "amount": cents.to_string(), "currency": "USD",
        "transaction_reference": format!("bench-fund-{n}")
    })
}

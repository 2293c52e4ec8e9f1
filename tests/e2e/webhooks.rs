use crate::harness::{Server, advance_clock, bearer, client, create_account, eventually, get_json, issuing, run};
use crate::receiver::{Delivery, Receiver};
use adapters::crypto::aes_everywhere;
use adapters::crypto::signature;
use adapters::test_db::TestDb;
use domain::Secret;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::Duration;

const SANDBOX: &str = "/v1/issuing/sandbox";

struct Keys {
    test: String,
    webhook_secret: String,
}

fn keys(created: &Value) -> Keys {
    Keys {
        test: created["test_secret_key"].as_str().unwrap().to_string(),
        webhook_secret: created["test_webhook_secret"].as_str().unwrap().to_string(),
    }
}

async fn send_test_event(server: &Server, key: &str) -> String {
    let response = client()
        .post(server.url(&format!("{SANDBOX}/webhook/test")))
        .header("token", bearer(key))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    let body: Value = response.json().await.unwrap();
    body["data"]["event_id"].as_str().unwrap().to_string()
}

/// Both signatures hold, and the body is `{event, event_id, created_at, data}`.
fn assert_signed(d: &Delivery, keys: &Keys) {
    let (t, _) = d
        .issuing_signature
        .strip_prefix("t=")
        .unwrap()
        .split_once(",v1=")
        .unwrap();
    let t: i64 = t.parse().unwrap();
    assert_eq!(
        d.issuing_signature,
        signature::sign(&keys.webhook_secret, t, d.body.as_bytes())
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!((now - t).abs() < 300, "the signed time is real time");
    let opened = aes_everywhere::decrypt(&d.webhook_signature, &Secret::new(keys.test.clone())).unwrap();
    assert_eq!(opened.expose(), keys.webhook_secret.as_bytes());
    let body: Value = serde_json::from_str(&d.body).unwrap();
    assert_eq!(body["event"], "webhook.test");
    assert_eq!(body["event_id"], d.event_id);
    assert_eq!(d.standard[0], d.event_id, "webhook-id");
    assert_eq!(d.standard[1], t.to_string(), "webhook-timestamp");
    assert!(d.standard[2].starts_with("v1,"), "webhook-signature: {}", d.standard[2]);
    assert!(body["created_at"].is_i64());
    assert_eq!(body["data"]["livemode"], false);
}

/// The event `id` once its delivery is recorded, or as it stands after
/// 30 s: the receiver counts a delivery when it answers, a moment before
/// the server records the answer.
async fn delivered(server: &Server, key: &str, id: &str) -> Value {
    let event = async || get_json(server, key, &format!("{SANDBOX}/events/{id}")).await.1;
    eventually(event, |e| e["data"]["delivery"]["state"] == "delivered").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stored_event_arrives_signed_and_the_log_says_so() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start(&db);
        let keys = keys(&create_account(&db, Some(&receiver.url)));
        let mut sent = Vec::new();
        for _ in 0..5 {
            sent.push(send_test_event(&server, &keys.test).await);
        }
        assert!(
            receiver.wait_for(30, |r| r.accepted().len() == 5).await,
            "{}: {:?}",
            db.backend(),
            receiver.deliveries()
        );
        for d in receiver.deliveries() {
            assert_signed(&d, &keys);
        }
        let (status, page) = get_json(&server, &keys.test, &format!("{SANDBOX}/events?page=1")).await;
        assert_eq!(status, 200);
        let listed: Vec<&str> = page["data"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["event_id"].as_str().unwrap())
            .collect();
        let newest_first: Vec<&str> = sent.iter().rev().map(String::as_str).collect();
        assert_eq!(listed, newest_first, "{}", db.backend());
        assert_eq!(
            page["data"]["meta"],
            json!({"total": 5, "pages": 1, "previous": null, "next": null})
        );
        let one = delivered(&server, &keys.test, &sent[0]).await;
        assert_eq!(one["data"]["delivery"]["state"], "delivered", "{one}");
        assert_eq!(one["data"]["attempts"][0]["status_code"], 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_refuses_for_a_while_loses_nothing() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        receiver.refuse(true);
        let server = Server::start(&db);
        let keys = keys(&create_account(&db, Some(&receiver.url)));
        let mut sent = HashSet::new();
        for _ in 0..4 {
            sent.insert(send_test_event(&server, &keys.test).await);
        }
        assert!(
            receiver.wait_for(30, |r| r.deliveries().len() >= 4).await,
            "{}",
            db.backend()
        );
        receiver.refuse(false);
        // Every failed delivery is back in the queue (the clock moves
        // pending jobs only) ...
        let pending = async || {
            let listed = run(issuing(&db).args(["jobs", "list"]));
            let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
            listed.lines().filter(|l| l.contains(r#""state":"pending""#)).count()
        };
        let waiting = eventually(pending, |n| *n == 4).await;
        assert_eq!(waiting, 4, "{}", db.backend());
        // ... and retries are a minute out; the sandbox's test clock brings
        // them forward, as an integrator would.
        let advance = client()
            .post(server.url(&format!("{SANDBOX}/test_clock/advance")))
            .header("token", bearer(&keys.test))
            .json(&json!({"seconds": 3600}))
            .send()
            .await
            .unwrap();
        assert_eq!(advance.status(), 200);
        assert!(
            receiver.wait_for(30, |r| r.accepted().len() == 4).await,
            "{}: {:?}",
            db.backend(),
            receiver.deliveries()
        );
        let arrived: HashSet<String> = receiver.accepted().into_keys().collect();
        assert_eq!(arrived, sent);
        let id = sent.iter().next().unwrap();
        let event = delivered(&server, &keys.test, id).await;
        let attempts = event["data"]["attempts"].as_array().unwrap();
        assert_eq!(attempts.first().unwrap()["status_code"], 500, "{event}");
        assert_eq!(attempts.last().unwrap()["status_code"], 200, "{event}");
        assert_eq!(event["data"]["delivery"]["state"], "delivered");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_accepted_before_a_sigkill_is_delivered_after_restart() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start_with(&db, &["--no-workers"]);
        let keys = keys(&create_account(&db, Some(&receiver.url)));
        let id = send_test_event(&server, &keys.test).await;
        server.kill();
        assert!(receiver.deliveries().is_empty());
        let _restarted = Server::start(&db);
        assert!(
            receiver.wait_for(30, |r| r.accepted().contains_key(&id)).await,
            "{}",
            db.backend()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redelivery_sends_the_same_event_again_and_accounts_see_only_their_own() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start(&db);
        let keys = keys(&create_account(&db, Some(&receiver.url)));
        let id = send_test_event(&server, &keys.test).await;
        assert!(receiver.wait_for(30, |r| r.accepted().get(&id) == Some(&1)).await);
        let redeliver = client()
            .post(server.url(&format!("{SANDBOX}/events/{id}/redeliver")))
            .header("token", bearer(&keys.test))
            .send()
            .await
            .unwrap();
        assert_eq!(redeliver.status(), 202);
        assert!(
            receiver.wait_for(30, |r| r.accepted().get(&id) == Some(&2)).await,
            "{}",
            db.backend()
        );

        // The demo account and the live mode see nothing of it.
        let (status, body) = get_json(&server, &server.demo_key, &format!("{SANDBOX}/events/{id}")).await;
        assert_eq!((status, body["code"].as_str()), (400, Some("event_not_found")));
        let other = create_account(&db, None);
        let live = other["live_secret_key"].as_str().unwrap();
        let (status, body) = get_json(&server, live, "/v1/issuing/events").await;
        assert_eq!((status, body["data"]["meta"]["total"].as_u64()), (200, Some(0)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_url_is_validated_and_used() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        // No workers at first: a delivery job, if one were queued, would
        // still be waiting.
        let server = Server::start_with(&db, &["--no-workers"]);
        let keys = keys(&create_account(&db, None));
        let set = |server: &Server, url: &str| {
            client()
                .patch(server.url(&format!("{SANDBOX}/webhook")))
                .header("token", bearer(&keys.test))
                .json(&json!({ "url": url }))
                .send()
        };
        let bad = set(&server, "ftp://nope").await.unwrap();
        assert_eq!(bad.status(), 400);
        let body: Value = bad.json().await.unwrap();
        assert!(body["message"].as_str().unwrap().starts_with("url:"), "{body}");

        // With no URL the event is kept, marked at once, and can be
        // redelivered later; no delivery job is queued for it.
        let early = send_test_event(&server, &keys.test).await;
        let (_, e) = get_json(&server, &keys.test, &format!("{SANDBOX}/events/{early}")).await;
        assert_eq!(e["data"]["delivery"]["state"], "no_endpoint", "{}: {e}", db.backend());
        let jobs = run(issuing(&db).args(["jobs", "list"]));
        assert!(jobs.status.success(), "{}", String::from_utf8_lossy(&jobs.stderr));
        assert!(
            !String::from_utf8_lossy(&jobs.stdout).contains(&early),
            "{}: a delivery job was queued for an event with nowhere to go",
            db.backend()
        );
        server.stop();

        let server = Server::start(&db);
        assert_eq!(set(&server, &receiver.url).await.unwrap().status(), 200);
        let late = send_test_event(&server, &keys.test).await;
        assert!(receiver.wait_for(30, |r| r.accepted().contains_key(&late)).await);
        assert!(!receiver.accepted().contains_key(&early));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_keeps_failing_is_parked_listed_and_retried() {
    let db = TestDb::sqlite();
    let receiver = Receiver::start();
    receiver.refuse(true);
    let server = Server::start(&db);
    let keys = keys(&create_account(&db, Some(&receiver.url)));
    let id = send_test_event(&server, &keys.test).await;
    let advanced = async || {
        advance_clock(&server, &keys.test, 200_000).await;
        tokio::time::sleep(Duration::from_millis(150)).await;
        get_json(&server, &keys.test, &format!("{SANDBOX}/events/{id}")).await.1
    };
    let state = eventually(advanced, |s| s["data"]["delivery"]["state"] == "failed").await;
    assert_eq!(state["data"]["delivery"]["state"], "failed", "{state}");
    assert_eq!(state["data"]["delivery"]["attempts"], 10);

    let listed = run(issuing(&db).args(["jobs", "list", "--failed"]));
    let line: Value = serde_json::from_slice(listed.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(
        (line["subject"].as_str(), line["state"].as_str()),
        (Some(id.as_str()), Some("failed"))
    );
    assert!(line["last_error"].as_str().unwrap().contains("500"), "{line}");

    receiver.refuse(false);
    let retried = run(issuing(&db).args(["jobs", "retry", line["id"].as_str().unwrap()]));
    assert!(retried.status.success());
    // Ten failures in a row rest the endpoint for ten minutes of the
    // sandbox's clock: the retried delivery waits for the rest to end.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(receiver.accepted().is_empty());
    advance_clock(&server, &keys.test, 600).await;
    assert!(receiver.wait_for(30, |r| r.accepted().contains_key(&id)).await);
    let again = run(issuing(&db).args(["jobs", "retry", "job_nonexistent"]));
    assert!(!again.status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_worker_processes_deliver_a_thousand_events_once_each() {
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    let receiver = Receiver::start();
    receiver.hold(Duration::from_millis(2));
    let server = Server::start_with(&db, &["--no-workers"]);
    let keys = keys(&create_account(&db, Some(&receiver.url)));
    let mut sent = HashSet::new();
    for chunk in 0..20 {
        let calls = (0..50).map(|_| send_test_event(&server, &keys.test));
        sent.extend(futures::future::join_all(calls).await);
        assert_eq!(sent.len(), (chunk + 1) * 50);
    }
    let spawn_worker = || {
        issuing(&db)
            .args(["worker", "--workers", "4", "--worker-poll-ms", "50"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut workers = [spawn_worker(), spawn_worker()];
    let all = receiver.wait_for(120, |r| r.accepted().len() == 1_000).await;
    for w in &mut workers {
        let _ = w.kill();
        let _ = w.wait();
    }
    assert!(all, "{} of 1000 arrived", receiver.accepted().len());
    let arrived: HashSet<String> = receiver.accepted().into_keys().collect();
    assert_eq!(arrived, sent);
    assert_eq!(
        receiver.overlaps(),
        Vec::<String>::new(),
        "an event was delivered twice at the same time"
    );
    assert_eq!(
        receiver.deliveries().len(),
        1_000,
        "every event was delivered exactly once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sandbox_delivery_reveals_nothing_that_verifies_a_live_one() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start(&db);
        let created = crate::cardholders::account_created(&db, Some(&receiver.url));
        let field = |name: &str| created[name].as_str().unwrap().to_string();
        let (test_key, live_key) = (field("test_secret_key"), field("live_secret_key"));
        let live_secret = field("live_webhook_secret");
        send_test_event(&server, &test_key).await;
        // A live event: the verification of a cardholder registered with the live key.
        let registered = client()
            .post(server.url("/v1/issuing/cardholder/register_cardholder"))
            .header("token", bearer(&live_key))
            .json(&crate::cardholders::nigerian(41))
            .send()
            .await
            .unwrap();
        assert_eq!(registered.status(), 201, "{}", registered.text().await.unwrap());
        let livemode = |d: &Delivery| serde_json::from_str::<Value>(&d.body).unwrap()["data"]["livemode"] == true;
        assert!(
            receiver.wait_for(30, |r| r.deliveries().iter().any(livemode)).await,
            "{}",
            db.backend()
        );
        let deliveries = receiver.deliveries();
        let sandbox = deliveries.iter().find(|d| !livemode(d)).unwrap();
        let live = deliveries.iter().find(|d| livemode(d)).unwrap();
        // What the test key opens is the sandbox secret...
        let revealed = aes_everywhere::decrypt(&sandbox.webhook_signature, &Secret::new(test_key.clone())).unwrap();
        let revealed = String::from_utf8(revealed.expose().clone()).unwrap();
        assert_eq!(revealed, field("test_webhook_secret"));
        // ...which signs no live delivery; the live secret does.
        let t: i64 = live.issuing_signature[2..].split_once(',').unwrap().0.parse().unwrap();
        assert_ne!(
            live.issuing_signature,
            signature::sign(&revealed, t, live.body.as_bytes())
        );
        assert_eq!(
            live.issuing_signature,
            signature::sign(&live_secret, t, live.body.as_bytes())
        );
        let opened = aes_everywhere::decrypt(&live.webhook_signature, &Secret::new(test_key.clone())).ok();
        assert!(
            opened.is_none_or(|o| o.expose() != live_secret.as_bytes()),
            "{}",
            db.backend()
        );

        // An account from before per-mode secrets (as migration 000009
        // leaves it) gets a new sandbox secret at the next start.
        server.stop();
        db.execute("UPDATE accounts SET test_webhook_secret_sealed = NULL")
            .await;
        let server = Server::start(&db);
        let event_id = send_test_event(&server, &test_key).await;
        assert!(receiver.wait_for(30, |r| r.accepted().contains_key(&event_id)).await);
        let again = receiver
            .deliveries()
            .into_iter()
            .find(|d| d.event_id == event_id)
            .unwrap();
        let given = aes_everywhere::decrypt(&again.webhook_signature, &Secret::new(test_key)).unwrap();
        let given = String::from_utf8(given.expose().clone()).unwrap();
        assert!(given.starts_with("whsec_"), "{}", db.backend());
        assert_ne!(given, live_secret);
        assert_ne!(given, revealed);
    }
}

/// A webhook endpoint that takes connections and never answers; it holds
/// every connection until dropped.
struct BlackHole {
    url: String,
    accepted: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl BlackHole {
    fn start() -> BlackHole {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hooks", listener.local_addr().unwrap());
        let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = accepted.clone();
        std::thread::spawn(move || {
            let mut held = vec![];
            for stream in listener.incoming().flatten() {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                held.push(stream);
            }
        });
        BlackHole { url, accepted }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_accounts_dead_webhook_endpoint_never_delays_a_settlement() {
    use crate::cards::Sandbox;
    for db in TestDb::all().await {
        let hole = BlackHole::start();
        let victim = Sandbox::start(&db, None);
        let noisy = keys(&create_account(&db, Some(&hole.url)));
        for _ in 0..100 {
            send_test_event(&victim.server, &noisy.test).await;
        }
        let accepted = async || hole.accepted.load(std::sync::atomic::Ordering::SeqCst);
        assert!(eventually(accepted, |n| *n > 0).await > 0, "deliveries are hanging");
        victim.fund_wallet(10_000).await;
        let holder = victim.cardholder(81).await;
        let card = victim.card(&holder, "1000").await;
        let started = std::time::Instant::now();
        let funded = victim
            .patch(
                "/cards/fund_card_asynchronously",
                Sandbox::transfer(&card, "500", "fund-victim"),
            )
            .await;
        assert_eq!(funded.status, 202, "{}", funded.body);
        victim.settled(&card, 1_500).await;
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(2),
            "{}: settled after {took:?}",
            db.backend()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_endpoint_rests_and_never_holds_another_accounts_deliveries() {
    use std::sync::atomic::Ordering::SeqCst;
    for db in TestDb::all().await {
        let hole = BlackHole::start();
        let receiver = Receiver::start();
        let server = Server::start_with(&db, &["--webhook-timeout-ms", "3000"]);
        let noisy = keys(&create_account(&db, Some(&hole.url)));
        let victim = keys(&create_account(&db, Some(&receiver.url)));
        for _ in 0..100 {
            send_test_event(&server, &noisy.test).await;
        }
        eventually(async || hole.accepted.load(SeqCst), |n| *n > 0).await;
        let started = std::time::Instant::now();
        let id = send_test_event(&server, &victim.test).await;
        assert!(
            receiver.wait_for(2, |r| r.accepted().contains_key(&id)).await,
            "{}: the victim's event waited behind the dead endpoint",
            db.backend()
        );
        let took = started.elapsed();
        // The dead endpoint had its account's share in flight, timed out
        // (a few more may start as the first failures free places, before
        // the fifth rests it), and now rests: no connection while it does.
        tokio::time::sleep(Duration::from_secs(5)).await;
        let tried = hole.accepted.load(SeqCst);
        let most = (domain::events::share::PER_ACCOUNT + domain::events::breaker::FAILURES_TO_REST - 1) as usize;
        assert!(
            (domain::events::share::PER_ACCOUNT as usize..=most).contains(&tried),
            "{}: {tried} connections to the dead endpoint (victim delivered after {took:?})",
            db.backend()
        );
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(
            hole.accepted.load(SeqCst),
            tried,
            "{}: tried while resting",
            db.backend()
        );
        let mut attempts = 0;
        for page in 1..=5 {
            let (_, events) = get_json(&server, &noisy.test, &format!("{SANDBOX}/events?page={page}")).await;
            for event in events["data"]["events"].as_array().unwrap() {
                attempts += event["delivery"]["attempts"].as_u64().unwrap() as usize;
            }
        }
        assert_eq!(attempts, tried, "{}: untried deliveries use no attempt", db.backend());
    }
}

/// A dozen accounts whose endpoints hang fill what one process has in
/// flight but for the places kept for quiet accounts: a quiet account's
/// delivery goes at once (it once waited 48 s for their timeouts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dozen_accounts_with_dead_endpoints_never_delay_a_quiet_accounts_delivery() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let tenants = Tenants::new(&db, 12);
        for account in &tenants.noisy {
            for _ in 0..100 {
                send_test_event(&server, &account.test).await;
            }
        }
        // Each noisy account has its deliveries hanging, up to its share.
        tenants.hanging(&db, 48).await;
        tenants.quiet_delivered_at_once(&db, &server).await;
    }
}

/// Accounts whose webhook endpoint is a black hole, and a quiet one with
/// a receiver.
struct Tenants {
    hole: BlackHole,
    receiver: Receiver,
    noisy: Vec<Keys>,
    quiet: Keys,
}

impl Tenants {
    fn new(db: &TestDb, noisy: usize) -> Tenants {
        let (hole, receiver) = (BlackHole::start(), Receiver::start());
        let noisy = (0..noisy).map(|_| keys(&create_account(db, Some(&hole.url)))).collect();
        let quiet = keys(&create_account(db, Some(&receiver.url)));
        Tenants {
            hole,
            receiver,
            noisy,
            quiet,
        }
    }

    /// Waits until at least `places` deliveries hang in the black hole.
    async fn hanging(&self, db: &TestDb, places: usize) {
        let accepted = &self.hole.accepted;
        let hanging = eventually(
            async || accepted.load(std::sync::atomic::Ordering::SeqCst),
            |n| *n >= places,
        )
        .await;
        assert!(hanging >= places, "{}: {hanging} deliveries hanging", db.backend());
    }

    /// The quiet account's test event reaches its receiver within 2 s.
    async fn quiet_delivered_at_once(&self, db: &TestDb, server: &Server) {
        let started = std::time::Instant::now();
        let id = send_test_event(server, &self.quiet.test).await;
        assert!(
            self.receiver.wait_for(2, |r| r.accepted().contains_key(&id)).await,
            "{}: the quiet account's event waited {:?} behind {} deliveries to dead endpoints",
            db.backend(),
            started.elapsed(),
            self.hole.accepted.load(std::sync::atomic::Ordering::SeqCst)
        );
    }
}

/// More dead endpoints than a process has places: the first deliveries
/// to them take every place until they time out, and from then on their
/// accounts are known to fail and stay out of the places kept for healthy
/// accounts, so a quiet account's delivery goes at once (it once waited
/// for the whole backlog: 40 to 50 s with 70 such accounts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dead_endpoints_once_seen_failing_never_hold_a_quiet_accounts_place() {
    for db in TestDb::all().await {
        // Twice the wait allowed below: a quiet delivery behind a new wave
        // of them would wait that long.
        let server = Server::start_with(&db, &["--webhook-timeout-ms", "4000"]);
        // More accounts than places: their first deliveries alone take them all.
        let tenants = Tenants::new(&db, 70);
        for _ in 0..3 {
            for account in &tenants.noisy {
                send_test_event(&server, &account.test).await;
            }
        }
        // Every place taken by a hanging delivery, then those time out.
        tenants.hanging(&db, 64).await;
        tokio::time::sleep(Duration::from_millis(4_500)).await;
        for _ in 0..3 {
            tenants.quiet_delivered_at_once(&db, &server).await;
        }
    }
}

/// A claim's hanging deliveries hold only their own places in flight (a
/// claim once held all of its places until its slowest delivery ended).
/// Here the first claim is all one account's, and all of them hang:
/// another account's delivery still goes at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_full_of_one_accounts_hanging_deliveries_never_holds_another_accounts() {
    use std::sync::atomic::Ordering::SeqCst;
    for db in TestDb::all().await {
        let hole = BlackHole::start();
        let receiver = Receiver::start();
        // Queued while nothing delivers, so the first claim is all of them.
        let queueing = Server::start_with(&db, &["--no-workers"]);
        let noisy = keys(&create_account(&db, Some(&hole.url)));
        let victim = keys(&create_account(&db, Some(&receiver.url)));
        for _ in 0..100 {
            send_test_event(&queueing, &noisy.test).await;
        }
        queueing.stop();
        let server = Server::start_with(&db, &["--webhook-timeout-ms", "4000"]);
        let accepted = eventually(async || hole.accepted.load(SeqCst), |n| *n > 0).await;
        assert!(accepted > 0, "deliveries are hanging");
        let started = std::time::Instant::now();
        let id = send_test_event(&server, &victim.test).await;
        assert!(
            receiver.wait_for(2, |r| r.accepted().contains_key(&id)).await,
            "{}: the victim's event waited {:?} behind the hanging claim",
            db.backend(),
            started.elapsed()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_cut_off_by_a_sigkill_is_made_again_within_seconds() {
    for db in TestDb::all().await {
        // The cut-off request is answered (and recorded) only after a
        // minute: whatever arrives before is the delivery made again.
        let receiver = Receiver::start();
        receiver.hold(Duration::from_secs(60));
        let server = Server::start(&db);
        let keys = keys(&create_account(&db, Some(&receiver.url)));
        let id = send_test_event(&server, &keys.test).await;
        assert!(receiver.wait_for(10, |r| r.in_flight() == 1).await);
        server.kill();
        receiver.hold(Duration::ZERO);
        let restarted = std::time::Instant::now();
        let _server = Server::start(&db);
        assert!(
            receiver.wait_for(30, |r| r.accepted().contains_key(&id)).await,
            "{}: the killed process's lease held the delivery",
            db.backend()
        );
        let took = restarted.elapsed();
        assert!(took < Duration::from_secs(20), "{}: {took:?}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_urls_never_reach_inside_the_network() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start_guarded(&db);
        // An operator set a loopback URL; the API would not have.
        let created = create_account(&db, Some(&receiver.url));
        let (test, live) = (
            created["test_secret_key"].as_str().unwrap(),
            created["live_secret_key"].as_str().unwrap(),
        );
        let set = |key: &str, path: &str, url: &str| {
            client()
                .patch(server.url(&format!("{path}/webhook")))
                .header("token", bearer(key))
                .json(&json!({ "url": url }))
                .send()
        };
        for inside in [
            "http://169.254.169.254/latest/meta-data/",
            "http://127.0.0.1:5432",
            "http://10.1.2.3/x",
            "http://[::1]/x",
            "http://[::ffff:7f00:1]/x",
            "http://localhost:8080/x",
            &receiver.url,
        ] {
            for (key, path) in [(test, SANDBOX), (live, "/v1/issuing")] {
                let refused = set(key, path, &inside.replace("http://", "https://")).await.unwrap();
                assert_eq!(refused.status(), 400, "{}: {inside}", db.backend());
                let body: Value = refused.json().await.unwrap();
                assert!(body["message"].as_str().unwrap().starts_with("url:"), "{body}");
            }
        }
        let plain = set(live, "/v1/issuing", "http://93.184.216.34/hooks").await.unwrap();
        assert_eq!(plain.status(), 400, "live mode wants https");
        let public = set(live, "/v1/issuing", "https://93.184.216.34/hooks").await.unwrap();
        assert_eq!(public.status(), 200);

        // The operator's loopback URL is never reached, and the attempt
        // log says why in a category, not with the network's details.
        let id = send_test_event(&server, test).await;
        let logged =
            async || get_json(&server, test, &format!("{SANDBOX}/events/{id}")).await.1["data"]["attempts"].clone();
        let attempts = eventually(logged, |a| a.as_array().is_some_and(|a| !a.is_empty())).await;
        let error = attempts[0]["error"].as_str().unwrap_or_default().to_string();
        assert!(error.starts_with("blocked:"), "{}: {attempts}", db.backend());
        assert!(!error.contains("127.0.0.1") && !error.contains("os error"), "{error}");
        assert!(receiver.deliveries().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolled_webhook_secret_signs_beside_the_old_one_until_it_expires() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start(&db);
        let created = create_account(&db, Some(&receiver.url));
        let keys = keys(&created);
        let account = created["account_id"].as_str().unwrap();
        let roll = |overlap: &str| {
            let out = run(issuing(&db).args([
                "accounts",
                "roll-webhook-secret",
                account,
                "--mode",
                "test",
                "--expire-old-in",
                overlap,
            ]));
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let rolled: Value = serde_json::from_slice(&out.stdout).unwrap();
            rolled["webhook_secret"].as_str().unwrap().to_string()
        };
        let delivered = |id: String| {
            let receiver = &receiver;
            async move {
                assert!(receiver.wait_for(30, |r| r.accepted().contains_key(&id)).await);
                receiver.deliveries().into_iter().find(|d| d.event_id == id).unwrap()
            }
        };
        let verifies = |secret: &str, d: &Delivery| {
            signature::verify(
                secret,
                &d.issuing_signature,
                d.body.as_bytes(),
                domain::Timestamp::from_unix(
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_secs() as i64,
                ),
            )
        };
        let (first, second) = (keys.webhook_secret.clone(), roll("1h"));
        let d = delivered(send_test_event(&server, &keys.test).await).await;
        assert_eq!(
            d.issuing_signature.matches(",v1=").count(),
            2,
            "{}",
            d.issuing_signature
        );
        assert!(verifies(&second, &d) && verifies(&first, &d), "{}", db.backend());
        // Standard Webhooks' header too holds both, space-separated.
        let standard: Vec<&str> = d.standard[2].split(' ').collect();
        assert!(
            standard.len() == 2 && standard.iter().all(|s| s.starts_with("v1,")),
            "{standard:?}"
        );
        // The current secret's signature first, the previous one's last.
        let t: i64 = d.issuing_signature[2..].split(',').next().unwrap().parse().unwrap();
        assert_eq!(
            d.issuing_signature,
            signature::sign_with_each(&[&second, &first], t, d.body.as_bytes())
        );
        let legacy = aes_everywhere::decrypt(&d.webhook_signature, &Secret::new(keys.test.clone())).unwrap();
        assert_eq!(
            legacy.expose(),
            second.as_bytes(),
            "the legacy header carries the current secret"
        );

        // Rolled again at once: only the newest signs.
        let third = roll("0s");
        let d = delivered(send_test_event(&server, &keys.test).await).await;
        assert_eq!(d.issuing_signature.matches(",v1=").count(), 1);
        assert!(verifies(&third, &d) && !verifies(&second, &d) && !verifies(&first, &d));
        assert_eq!(d.standard[2].matches("v1,").count(), 1, "{}", d.standard[2]);

        for args in [
            vec!["acct_nobody", "--mode", "test"],
            vec![account, "--mode", "test", "--expire-old-in", "8d"],
        ] {
            let out = run(issuing(&db).args(["accounts", "roll-webhook-secret"]).args(&args));
            assert!(!out.status.success(), "{args:?}");
        }
        let d = delivered(send_test_event(&server, &keys.test).await).await;
        assert!(verifies(&third, &d), "a refused roll changed nothing");
    }
}

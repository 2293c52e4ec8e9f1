//! Secrets at rest: after keys, webhook secrets, cards with PINs, card
//! data read in clear, deliveries and rolls of keys and secrets have gone
//! through the service, neither the database (SQLite's file, WAL and
//! shared memory; PostgreSQL's rows, dumped) nor the logs hold a card
//! number, an API key, a webhook secret or the master key in clear.

use crate::cardholders::account_created;
use crate::cards::Sandbox;
use crate::harness::{PG_MASTER_KEY, Server, issuing, run};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::Value;

/// Everything the database holds, as bytes: the SQLite files, or a
/// PostgreSQL data dump.
fn database_bytes(db: &TestDb) -> Vec<u8> {
    match db.url().strip_prefix("sqlite://") {
        Some(path) => ["", "-wal", "-shm"]
            .iter()
            .filter_map(|suffix| std::fs::read(format!("{path}{suffix}")).ok())
            .flatten()
            .collect(),
        None => {
            // This test's schema alone: others' come and go meanwhile.
            let schema = db.pg_schema().expect("a PostgreSQL test has its schema");
            let dump = std::process::Command::new("pg_dump")
                .args(["--data-only", "--schema", schema, db.url()])
                .output()
                .expect("pg_dump runs");
            assert!(dump.status.success(), "{}", String::from_utf8_lossy(&dump.stderr));
            dump.stdout
        }
    }
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_card_number_key_or_secret_is_stored_or_logged_in_clear() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start_logging(&db, "debug");
        let created = account_created(&db, Some(&receiver.url));
        let secret = |name: &str| created[name].as_str().unwrap().to_string();
        let s = Sandbox {
            server,
            key: secret("test_secret_key"),
        };
        s.fund_wallet(5_000).await;
        let holder = s.cardholder(93).await;
        let card = s.card(&holder, "1000").await;
        let path = format!("/cards/get_card_details?card_id={card}");
        let details = s
            .call_at(&s.server.relay.clone(), reqwest::Method::GET, &path, None)
            .await;
        assert_eq!(details.status, 200, "{}", details.body);
        let pan = details.body["data"]["card_number"].as_str().unwrap().to_string();
        let event = s.post("/webhook/test", Value::Null).await;
        let event_id = event.body["data"]["event_id"].as_str().unwrap().to_string();
        assert!(receiver.wait_for(30, |r| r.accepted().contains_key(&event_id)).await);

        let account = secret("account_id");
        let rolled = |what: &str, field: &str| {
            let out = run(issuing(&db).args(["accounts", what, &account, "--mode", "live", "--expire-old-in", "1h"]));
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
            (printed[field].as_str().unwrap().to_string(), out.stderr)
        };
        let (new_key, key_log) = rolled("roll-key", "secret_key");
        let (new_whsec, whsec_log) = rolled("roll-webhook-secret", "webhook_secret");
        let mut logs = s.server.stop().into_bytes();
        logs.extend(key_log);
        logs.extend(whsec_log);
        assert!(holds(&logs, "DEBUG"), "{}: logged at debug", db.backend());

        let master_key = match db.url().strip_prefix("sqlite://") {
            Some(path) => std::fs::read_to_string(format!("{path}.master.key")).unwrap(),
            None => PG_MASTER_KEY.to_string(),
        };
        let stored = database_bytes(&db);
        assert!(holds(&stored, &card), "{}: the scan reads the data", db.backend());
        let secrets = [
            ("the card number", pan),
            ("the test key", secret("test_secret_key")),
            ("the live key", secret("live_secret_key")),
            ("the rolled live key", new_key),
            ("the test webhook secret", secret("test_webhook_secret")),
            ("the live webhook secret", secret("live_webhook_secret")),
            ("the rolled webhook secret", new_whsec),
            ("the master key", master_key),
        ];
        for (what, value) in &secrets {
            assert!(!holds(&stored, value), "{}: {what} is stored in clear", db.backend());
            assert!(!holds(&logs, value), "{}: {what} is in the logs", db.backend());
        }
    }
}

//! No log level prints personal data or secrets: a full registration
//! logged at trace level shows neither the BVN, the phone nor the key.

use crate::cardholders::{account, nigerian};
use crate::harness::{Server, bearer, client};
use adapters::test_db::TestDb;

/// `value` as a log could show it: as text, or as the list of its bytes
/// (`[50, 50, ...]`, how tokio-postgres prints a bind parameter).
fn shown(logs: &str, value: &str) -> bool {
    let bytes = value.bytes().map(|b| b.to_string()).collect::<Vec<_>>().join(", ");
    logs.contains(value) || logs.contains(&bytes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registration_logged_at_trace_level_shows_no_bvn_phone_or_key() {
    for db in TestDb::all().await {
        let server = Server::start_logging(&db, "trace");
        let key = account(&db, None);
        let body = nigerian(77);
        for path in ["register_cardholder_synchronously", "register_cardholder"] {
            let mut body = body.clone();
            if path == "register_cardholder" {
                body = nigerian(78);
            }
            let response = client()
                .post(server.url(&format!("/v1/issuing/sandbox/cardholder/{path}")))
                .header("token", bearer(&key))
                .json(&body)
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success(), "{}", response.text().await.unwrap());
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let logs = server.stop();
        assert!(
            logs.contains("TRACE") || logs.contains("DEBUG"),
            "{}: logged at trace",
            db.backend()
        );
        for n in [77, 78] {
            let body = nigerian(n);
            let bvn = body["identity"]["bvn"].as_str().unwrap();
            let phone = body["phone"].as_str().unwrap();
            assert!(!shown(&logs, bvn), "{}: the BVN {bvn} is in the log", db.backend());
            assert!(
                !shown(&logs, &phone[1..]),
                "{}: the phone {phone} is in the log",
                db.backend()
            );
        }
        assert!(!shown(&logs, &key), "{}: the API key is in the log", db.backend());
    }
}

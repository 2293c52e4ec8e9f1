//! No log level prints personal data or secrets: a full registration
//! logged at trace level shows neither the BVN, the phone nor the key, and
//! card data read in clear on the relay stays out of the log.

use crate::cardholders::{account, nigerian};
use crate::cards::Sandbox;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_data_read_in_clear_on_the_relay_and_logged_at_trace_level_is_not_in_the_log() {
    for db in TestDb::all().await {
        let s = Sandbox {
            server: Server::start_logging(&db, "trace"),
            key: account(&db, None),
        };
        s.fund_wallet(5_000).await;
        let holder = s.cardholder(79).await;
        let card = s.card(&holder, "1000").await;
        let relay = s.server.relay.clone();
        let (one, list) = (
            format!("/cards/get_card_details?card_id={card}"),
            format!("/cards/get_all_cardholder_cards?cardholder_id={holder}"),
        );
        let one = s.call_at(&relay, reqwest::Method::GET, &one, None).await;
        let list = s.call_at(&relay, reqwest::Method::GET, &list, None).await;
        assert_eq!((one.status, list.status), (200, 200), "{}", db.backend());
        let card_data = &one.body["data"];
        assert_eq!(list.body["data"]["cards"][0]["card_number"], card_data["card_number"]);
        let logs = s.server.stop();
        assert!(
            logs.contains("TRACE") || logs.contains("DEBUG"),
            "{}: logged at trace",
            db.backend()
        );
        let pan = card_data["card_number"].as_str().unwrap();
        assert!(!shown(&logs, pan), "{}: the card number is in the log", db.backend());
        // The CVV is three digits: look for it where a log would name it.
        let cvv = card_data["cvv"].as_str().unwrap();
        assert!(
            !logs.contains(&format!("\"cvv\":\"{cvv}\"")),
            "{}: the CVV is in the log",
            db.backend()
        );
    }
}

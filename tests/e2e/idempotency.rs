//! `Idempotency-Key` on writes, against the real binary on SQLite and
//! PostgreSQL: a retry runs nothing and gets the first answer byte for
//! byte; another request under the key is 422; one still running is 409;
//! a key lasts a day of the mode's clock, and is the account's own.

use crate::cardholders::{account, nigerian};
use crate::cards::Sandbox;
use crate::harness::{bearer, client, ledger_check};
use adapters::test_db::TestDb;
use reqwest::Method;
use serde_json::{Value, json};

const SANDBOX: &str = "/v1/issuing/sandbox";

/// An answer as it came: status, whether it was replayed, and its bytes.
#[derive(Debug)]
struct Raw {
    status: u16,
    replayed: bool,
    body: Vec<u8>,
}

impl Raw {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// `method path` with `body`, the account's `secret` and `key`, at `address`.
async fn keyed(address: &str, secret: &str, method: Method, path: &str, body: &Value, key: &str) -> Raw {
    let response = client()
        .request(method, format!("{address}{SANDBOX}{path}"))
        .header("token", bearer(secret))
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let replayed = match response.headers().get("idempotent-replayed") {
        Some(v) => v == "true",
        None => false,
    };
    let body = response.bytes().await.unwrap().to_vec();
    Raw { status, replayed, body }
}

/// `create_card` with `body` and `key`, on the base address.
async fn create_card(s: &Sandbox, body: &Value, key: &str) -> Raw {
    keyed(&s.server.base, &s.key, Method::POST, "/cards/create_card", body, key).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_write_runs_once_and_gets_the_first_answer_byte_for_byte() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        let base = s.server.base.clone();
        let post = |path: &'static str, body: Value, key: &'static str| {
            let (base, secret) = (base.clone(), s.key.clone());
            async move { keyed(&base, &secret, Method::POST, path, &body, key).await }
        };
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(1).await;
        let card = s.card_body(&holder, "1000");

        // After success: one card, one funding, the same bytes again.
        let first = post("/cards/create_card", card.clone(), "card-1").await;
        assert_eq!((first.status, first.replayed), (200, false), "{first:?}");
        let again = post("/cards/create_card", card.clone(), "card-1").await;
        assert_eq!((again.status, again.replayed), (200, true), "{again:?}");
        assert_eq!(again.body, first.body, "{}", db.backend());
        assert_eq!(s.wallet().await, 10_000 - 1_000);

        // After a 4xx: the same refusal, without running again.
        let nobody = json!({"cardholder_id": "nobody", "card_type": "virtual", "card_brand": "Mastercard",
                            "card_currency": "USD", "card_limit": "500000", "funding_amount": "1000",
                            "pin": s.pin("4321")});
        let refused = post("/cards/create_card", nobody.clone(), "card-2").await;
        assert!((400..500).contains(&refused.status), "{refused:?}");
        let refused_again = post("/cards/create_card", nobody, "card-2").await;
        assert!(refused_again.replayed);
        assert_eq!(
            (refused_again.status, refused_again.body),
            (refused.status, refused.body)
        );

        // The key with another body, another path, or on the other listener.
        let mut more = card.clone();
        more["funding_amount"] = json!("2000");
        let other_body = post("/cards/create_card", more, "card-1").await;
        assert_eq!(other_body.status, 422, "{other_body:?}");
        assert_eq!(other_body.json()["code"], "idempotency_key_reused");
        assert!(
            other_body.json()["message"]
                .as_str()
                .unwrap()
                .starts_with("Idempotency-Key: ")
        );
        let other_path = post("/cardholder/register_cardholder_synchronously", nigerian(9), "card-1").await;
        assert_eq!(other_path.status, 422);
        let named = other_path.json()["message"].as_str().unwrap().to_string();
        assert!(named.contains("POST /v1/issuing/sandbox/cards/create_card"), "{named}");
        let relay = keyed(
            &s.server.relay,
            &s.key,
            Method::POST,
            "/cards/create_card",
            &card,
            "card-1",
        )
        .await;
        assert_eq!(relay.status, 422, "the relay's answers are not the base's: {relay:?}");
        assert_eq!(s.wallet().await, 10_000 - 1_000, "nothing of these ran");

        // Keys that are not keys.
        for bad in ["k".repeat(256), " ".into(), "caf\u{e9}".into()] {
            let answer = client()
                .post(format!("{base}{SANDBOX}/cards/create_card"))
                .header("token", bearer(&s.key))
                .header("Idempotency-Key", bad.as_bytes())
                .json(&card)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 400, "{bad:?}");
            let body: Value = answer.json().await.unwrap();
            assert!(
                body["message"].as_str().unwrap().starts_with("Idempotency-Key: "),
                "{body}"
            );
        }

        // Another account's key of the same name is its own.
        let other = account(&db, None);
        let mine = post("/cardholder/register_cardholder_synchronously", nigerian(2), "holder").await;
        let theirs = keyed(
            &base,
            &other,
            Method::POST,
            "/cardholder/register_cardholder_synchronously",
            &nigerian(2),
            "holder",
        )
        .await;
        assert_eq!(
            (mine.status, theirs.status, theirs.replayed),
            (201, 201, false),
            "{theirs:?}"
        );
        assert_ne!(
            mine.json()["data"]["cardholder_id"],
            theirs.json()["data"]["cardholder_id"]
        );

        // Reads ignore the header.
        let read = client()
            .get(format!("{base}{SANDBOX}/cards/get_issuing_wallet_balance"))
            .header("token", bearer(&s.key))
            .header("Idempotency-Key", "card-1")
            .send()
            .await
            .unwrap();
        assert_eq!(read.status(), 200);
        assert!(read.headers().get("idempotent-replayed").is_none());
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_duplicates_run_exactly_once() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(3).await;
        let card = s.card_body(&holder, "1000");
        let sent = (0..16).map(|_| create_card(&s, &card, "once"));
        let answers = futures::future::join_all(sent).await;
        let ran: Vec<&Raw> = answers.iter().filter(|a| a.status == 200).collect();
        assert!(!ran.is_empty(), "{answers:?}");
        assert!(ran.iter().all(|a| a.body == ran[0].body), "{answers:?}");
        for busy in answers.iter().filter(|a| a.status != 200) {
            assert_eq!(busy.status, 409, "{busy:?}");
            assert_eq!(busy.json()["code"], "idempotency_key_in_use");
        }
        assert_eq!(
            s.wallet().await,
            100_000 - 1_000,
            "{}: one card, funded once",
            db.backend()
        );
        let after = create_card(&s, &card, "once").await;
        assert_eq!((after.replayed, &after.body), (true, &ran[0].body));
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_lasts_a_day_of_the_modes_clock() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(4).await;
        let card = s.card_body(&holder, "1000");
        let create = || create_card(&s, &card, "daily");
        let first = create().await;
        assert_eq!(first.status, 200, "{first:?}");
        // A minute short of the day (the real clock moves on meanwhile).
        s.advance(24 * 3600 - 60).await;
        assert!(create().await.replayed);
        s.advance(60).await;
        let next_day = create().await;
        assert_eq!((next_day.status, next_day.replayed), (200, false), "{next_day:?}");
        assert_ne!(next_day.json()["data"]["card_id"], first.json()["data"]["card_id"]);
        assert_eq!(s.wallet().await, 10_000 - 2 * 1_000, "{}", db.backend());
        assert!(create().await.replayed, "the key is kept again from its new first use");
        // An advance of a day, retried, moves the clock once.
        let day = json!({"seconds": 24 * 3600});
        let advance = || {
            keyed(
                &s.server.base,
                &s.key,
                Method::POST,
                "/test_clock/advance",
                &day,
                "advance",
            )
        };
        let (once, again) = (advance().await, advance().await);
        assert_eq!((once.status, again.replayed), (200, true), "{again:?}");
        assert_eq!(once.body, again.body);
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

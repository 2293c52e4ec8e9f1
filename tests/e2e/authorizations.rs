//! The authorization lifecycle over HTTP, as the sandbox simulates it: a
//! hold moves the available balance and not the book balance; it is
//! captured in part, in full, or above within the tolerance (and refused
//! past it), raised by increments, reversed in part and in full, expired
//! by its job on the test clock, and its capture refunded after the
//! card's month rolled over; every step once, told by its event, listed
//! with its state, and the ledger exact after each; on SQLite and
//! PostgreSQL.

use crate::card_transactions::{SANDBOX_PROCESSOR_SECRET, events_for, processor_sandbox};
use crate::cards::{Answer, Sandbox};
use crate::harness::{eventually, ledger_check, sandbox_totals};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

impl Sandbox {
    /// A sandbox authorization of `cents` on `card`: its answer.
    async fn authorize(&self, card: &str, cents: i64) -> Answer {
        self.post("/authorizations", json!({"card_id": card, "amount": cents.to_string()}))
            .await
    }

    /// A pending authorization's id.
    async fn hold(&self, card: &str, cents: i64) -> String {
        let a = self.authorize(card, cents).await;
        assert_eq!(a.status, 200, "{}", a.body);
        let d = &a.body["data"];
        assert_eq!(
            (d["type"].as_str(), d["status"].as_str()),
            (Some("authorization"), Some("pending")),
            "{d}"
        );
        d["issuer_transaction_reference"].as_str().unwrap().to_string()
    }

    /// A step of authorization `id` with `body` (none: an empty body).
    async fn step(&self, id: &str, step: &str, body: Option<Value>) -> Answer {
        let path = format!("/authorizations/{id}/{step}");
        self.call(reqwest::Method::POST, &path, body).await
    }

    /// The card's (book, available) balances.
    async fn books(&self, card: &str) -> (i64, i64) {
        self.advance(3).await;
        let a = self.get(&format!("/cards/get_card_balance?card_id={card}")).await;
        assert_eq!(a.status, 200, "{}", a.body);
        let n = |f: &str| a.body["data"][f].as_str().unwrap().parse::<i64>().unwrap();
        (n("settled_book_balance"), n("settled_available_balance"))
    }
}

fn code(a: &Answer) -> (u16, &str) {
    (a.status, a.body["code"].as_str().unwrap_or_default())
}

fn assert_books(db: &TestDb, held: i64) {
    let (ok, out) = ledger_check(db);
    assert!(ok, "{}: {out}", db.backend());
    assert_eq!(sandbox_totals(db)["USD"]["card_held"], held, "{}", db.backend());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_step_of_an_authorization_moves_its_hold_once() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(1_000_000).await;
        let holder = s.cardholder(91).await;
        let card = s.card(&holder, "10000").await;
        assert_eq!(s.books(&card).await, (10_000, 9_700));

        // A hold: the available balance drops, the book balance does not.
        let a = s.hold(&card, 2_000).await;
        assert_eq!(s.books(&card).await, (10_000, 7_700));
        assert_books(&db, 2_000);
        let created = &events_for(&receiver, "card_authorization_event.created", &card, 1).await[0];
        assert_eq!(
            (created["authorization_id"].as_str(), created["amount"].as_str()),
            (Some(a.as_str()), Some("2000"))
        );

        // Captured in part: the rest goes back to the card.
        let c = s.step(&a, "capture", Some(json!({"amount": "1500"}))).await;
        assert_eq!(c.status, 200, "{}", c.body);
        let d = &c.body["data"];
        assert_eq!(
            (
                d["authorization"]["status"].as_str(),
                d["captured_amount"].as_str(),
                d["released_amount"].as_str(),
                d["released_to"].as_str()
            ),
            (Some("closed"), Some("1500"), Some("500"), Some("card"))
        );
        let capture = d["capture"]["issuer_transaction_reference"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(d["capture"]["type"], "capture");
        assert_eq!(s.books(&card).await, (8_500, 8_200));
        assert_books(&db, 0);
        // Once: a closed authorization takes no other step.
        for step in ["capture", "reverse", "expire", "increment"] {
            let again = s.step(&a, step, Some(json!({"amount": "1"}))).await;
            let expected = if step == "increment" {
                "authorization_not_found"
            } else {
                "authorization_not_pending"
            };
            assert_eq!(code(&again), (400, expected), "{step}: {}", again.body);
        }

        // Above the hold: within 15% from the card's spendable balance,
        // past it refused with nothing moved.
        let b = s.hold(&card, 1_000).await;
        let over = s.step(&b, "capture", Some(json!({"amount": "1151"}))).await;
        assert_eq!(code(&over), (400, "capture_above_tolerance"), "{}", over.body);
        assert!(over.body["message"].as_str().unwrap().contains("1150"), "{}", over.body);
        assert_eq!(s.books(&card).await, (8_500, 7_200));
        let within = s.step(&b, "capture", Some(json!({"amount": "1150"}))).await;
        assert_eq!(within.status, 200, "{}", within.body);
        assert_eq!(within.body["data"]["released_amount"], "0");
        assert_eq!(s.books(&card).await, (7_350, 7_050));
        assert_books(&db, 0);

        // Raised by an increment, reversed in part (still pending), then
        // in full; a reversal's reference applies once.
        let r = s.hold(&card, 1_000).await;
        let inc = s.step(&r, "increment", Some(json!({"amount": "500"}))).await;
        assert_eq!(inc.status, 200, "{}", inc.body);
        assert_eq!(
            (
                inc.body["data"]["type"].as_str(),
                inc.body["data"]["authorization_id"].as_str()
            ),
            (Some("increment"), Some(r.as_str()))
        );
        assert_books(&db, 1_500);
        let raised = events_for(&receiver, "card_authorization_event.created", &card, 4).await;
        let raised = raised
            .iter()
            .find(|e| e["card_transaction_type"] == "INCREMENT")
            .expect("the increment's event");
        assert_eq!(
            (
                raised["authorization_id"].as_str(),
                raised["held_amount"].as_str(),
                raised["amount"].as_str()
            ),
            (Some(r.as_str()), Some("1500"), Some("500")),
            "{raised}"
        );
        let root = s
            .get(&format!("/transactions?card_id={card}&type=authorization&limit=1"))
            .await;
        assert_eq!(
            raised["transaction_reference"],
            root.body["data"]["transactions"][0]["client_transaction_reference"]
        );
        // Listed, a hold names itself as the id its steps take.
        assert_eq!(root.body["data"]["transactions"][0]["authorization_id"], r.as_str());
        let part = s
            .step(&r, "reverse", Some(json!({"amount": "300", "reference": "rev-1"})))
            .await;
        assert_eq!(part.status, 200, "{}", part.body);
        assert_eq!(
            (
                part.body["data"]["authorization"]["status"].as_str(),
                part.body["data"]["held_amount"].as_str()
            ),
            (Some("pending"), Some("1200"))
        );
        let repeat = s
            .step(&r, "reverse", Some(json!({"amount": "300", "reference": "rev-1"})))
            .await;
        assert_eq!(code(&repeat), (400, "transaction_reference_used"), "{}", repeat.body);
        assert_books(&db, 1_200);
        let rest = s.step(&r, "reverse", None).await;
        assert_eq!(rest.status, 200, "{}", rest.body);
        assert_eq!(
            (
                rest.body["data"]["authorization"]["status"].as_str(),
                rest.body["data"]["released_amount"].as_str()
            ),
            (Some("reversed"), Some("1200"))
        );
        assert_eq!(s.books(&card).await, (7_350, 7_050));
        assert_books(&db, 0);

        // Captured in full with no amount; the capture spends what is held.
        let f = s.hold(&card, 700).await;
        let full = s.step(&f, "capture", Some(Value::Null)).await;
        assert_eq!(
            (full.status, full.body["data"]["captured_amount"].as_str()),
            (200, Some("700")),
            "{}",
            full.body
        );

        // Left uncaptured, a hold expires by its job on the test clock.
        let e = s.hold(&card, 400).await;
        assert_books(&db, 400);
        s.advance(7 * 86_400 + 60).await;
        let expired = async || {
            s.get(&format!(
                "/transactions?card_id={card}&type=authorization&status=expired"
            ))
            .await
            .body["data"]["transactions"]
                .as_array()
                .map_or(0, Vec::len)
        };
        assert_eq!(eventually(expired, |n| *n == 1).await, 1, "the hold expired");
        let told = &events_for(&receiver, "card_authorization_event.expired", &card, 1).await[0];
        assert_eq!(
            (told["authorization_id"].as_str(), told["released_amount"].as_str()),
            (Some(e.as_str()), Some("400"))
        );
        assert_books(&db, 0);

        // A refund of a capture after the card's month rolled over: at
        // most what is left, once by its reference.
        s.advance(32 * 86_400).await;
        // (The month's fee goes to fee income, so the spend tells refunds.)
        let spend = || sandbox_totals(&db)["USD"]["card_spend"].as_i64().unwrap();
        assert_eq!(spend(), 1_500 + 1_150 + 700);
        let refund = s
            .post(
                "/refunds",
                json!({"transaction_id": capture, "amount": "500", "refund_reference": "rf-1"}),
            )
            .await;
        assert_eq!(refund.status, 200, "{}", refund.body);
        assert_eq!(
            (
                refund.body["data"]["refunded_amount"].as_str(),
                refund.body["data"]["credited_to"].as_str()
            ),
            (Some("500"), Some("card"))
        );
        assert_eq!(spend(), 3_350 - 500);
        // Both events name the refund by the reference the account sent.
        for event in ["card_refund_event.successful", "card_reversal_event.successful"] {
            let told = events_for(&receiver, event, &card, 1).await;
            assert_eq!(told[0]["reversal_reference"], "rf-1", "{event}: {}", told[0]);
        }
        let again = s
            .post(
                "/refunds",
                json!({"transaction_id": capture, "refund_reference": "rf-1"}),
            )
            .await;
        assert_eq!(code(&again), (400, "transaction_reference_used"), "{}", again.body);
        let rest = s.post("/refunds", json!({"transaction_id": capture})).await;
        assert_eq!(rest.body["data"]["refunded_amount"], "1000", "{}", rest.body);
        assert_eq!(spend(), 3_350 - 1_500);
        let none = s.post("/refunds", json!({"transaction_id": capture})).await;
        assert_eq!(code(&none), (400, "nothing_left_to_refund"), "{}", none.body);
        let of_hold = s.post("/refunds", json!({"transaction_id": a})).await;
        assert_eq!(
            code(&of_hold),
            (400, "transaction_not_found"),
            "an authorization is not refunded: {}",
            of_hold.body
        );
        events_for(&receiver, "card_refund_event.successful", &card, 2).await;
        events_for(&receiver, "card_authorization_event.captured", &card, 3).await;
        events_for(&receiver, "card_authorization_event.reversed", &card, 2).await;
        assert_books(&db, 0);

        // The card's history: the contract's list shows what was spent
        // (captures), the account's list every kind with its state.
        let listed = s.get(&format!("/transactions?card_id={card}&limit=100")).await;
        let kinds: Vec<(String, String)> = listed.body["data"]["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["type"].as_str().unwrap().to_string(),
                    t["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        for (kind, status) in [
            ("authorization", "closed"),
            ("authorization", "reversed"),
            ("authorization", "expired"),
            ("increment", "reversed"),
            ("capture", "approved"),
        ] {
            assert!(
                kinds.contains(&(kind.into(), status.into())),
                "{kind} {status}: {kinds:?}"
            );
        }
        let history = s.get(&format!("/cards/get_card_transactions?card_id={card}")).await;
        let amounts: Vec<&str> = history.body["data"]["transactions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["description"] != "Monthly maintenance fee")
            .map(|t| t["amount"].as_str().unwrap())
            .collect();
        assert_eq!(amounts, ["700", "1150", "1500"], "{}", history.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_steps_are_refused_naming_the_field_and_move_nothing() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(92).await;
        let card = s.card(&holder, "5000").await;
        let a = s.hold(&card, 1_000).await;
        for amount in [
            json!("0"),
            json!("-1"),
            json!("1.5"),
            json!("1000000000000001"),
            json!("99999999999999999999999"),
            json!("1\u{0}"),
            json!("１"),
        ] {
            for step in ["capture", "reverse", "increment"] {
                let bad = s.step(&a, step, Some(json!({"amount": amount}))).await;
                let message = bad.body["message"].as_str().unwrap_or_default();
                assert_eq!(bad.status, 400, "{step} {amount}: {}", bad.body);
                assert!(message.starts_with("amount:"), "{step} {amount}: {message}");
            }
            let refund = s.post("/refunds", json!({"transaction_id": a, "amount": amount})).await;
            assert_eq!(refund.status, 400, "{amount}: {}", refund.body);
        }
        let misspelt = s.step(&a, "capture", Some(json!({"amonut": "5"}))).await;
        assert!(
            misspelt.body["message"]
                .as_str()
                .unwrap_or_default()
                .starts_with("amonut:"),
            "{}",
            misspelt.body
        );
        let increment = s.step(&a, "increment", None).await;
        assert_eq!(
            increment.status, 400,
            "an increment names its amount: {}",
            increment.body
        );
        for id in ["ctx_nope", "", "a\u{0}"] {
            let unknown = s.step(id, "capture", None).await;
            assert!(
                unknown.status == 400 || unknown.status == 404,
                "{id:?}: {}",
                unknown.body
            );
        }
        // Another account's authorization is no authorization here.
        let other = Sandbox::start_with(&db, None, &[]);
        let theirs = other.step(&a, "capture", None).await;
        assert_eq!(code(&theirs), (400, "authorization_not_found"), "{}", theirs.body);
        // A reference is the account's own: another's use of it blocks nothing.
        other.fund_wallet(100_000).await;
        let their_card = other.card(&other.cardholder(95).await, "5000").await;
        let their_hold = other.hold(&their_card, 100).await;
        let shared = json!({"amount": "1", "reference": "shared-ref"});
        assert_eq!(
            other.step(&their_hold, "reverse", Some(shared.clone())).await.status,
            200
        );
        let mine = s.step(&a, "reverse", Some(shared.clone())).await;
        assert_eq!(mine.status, 200, "{}", mine.body);
        let again = s.step(&a, "reverse", Some(shared)).await;
        assert_eq!(code(&again), (400, "transaction_reference_used"), "{}", again.body);
        assert!(
            again.body["message"].as_str().unwrap().starts_with("reference:"),
            "{}",
            again.body
        );
        // A hold the balance cannot cover is declined, answered and listed.
        let declined = s.authorize(&card, 9_000).await;
        assert_eq!(declined.status, 200, "{}", declined.body);
        assert_eq!(
            (
                declined.body["data"]["status"].as_str(),
                declined.body["data"]["decline_code"].as_str()
            ),
            (Some("declined"), Some("insufficient_balance"))
        );
        // A declined authorization held nothing and takes no step.
        let id = declined.body["data"]["issuer_transaction_reference"].as_str().unwrap();
        for step in ["capture", "reverse", "expire", "increment"] {
            let none = s.step(id, step, Some(json!({"amount": "1"}))).await;
            assert_eq!(code(&none), (400, "authorization_not_found"), "{step}: {}", none.body);
        }
        for (body, field) in [
            (json!({"card_id": card, "force": true}), "force"),
            (json!({"card_id": card, "currency": "NGN"}), "currency"),
        ] {
            let refused = s.post("/authorizations", body).await;
            assert!(
                refused.body["message"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with(&format!("{field}:")),
                "{}",
                refused.body
            );
        }
        // The excess over a hold comes from what the card may spend: 401
        // past it, as every insufficient balance.
        let big = s.hold(&card, 3_600).await;
        let excess = s.step(&big, "capture", Some(json!({"amount": "4000"}))).await;
        assert_eq!(code(&excess), (401, "insufficient_card_balance"), "{}", excess.body);
        assert_eq!(s.step(&big, "reverse", None).await.status, 200);
        let three_ds = s
            .post("/authorizations", json!({"card_id": card, "three_ds": true}))
            .await;
        assert!(
            three_ds.body["message"]
                .as_str()
                .unwrap_or_default()
                .starts_with("three_ds:"),
            "{}",
            three_ds.body
        );
        assert_eq!(s.books(&card).await, (5_000, 5_000 - 300 - 1_000 + 1));
        // Ours, and what the other account still holds.
        assert_books(&db, 999 + 99);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_steps_of_one_authorization_apply_once() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(1_000_000).await;
        let holder = s.cardholder(93).await;
        let card = s.card(&holder, "100000").await;
        let a = s.hold(&card, 10_000).await;
        let steps = (0..40).map(|i| {
            let (s, a) = (&s, a.clone());
            async move {
                match i % 4 {
                    0 => s.step(&a, "capture", Some(json!({"amount": "6000"}))).await,
                    1 => {
                        s.step(
                            &a,
                            "reverse",
                            Some(json!({"amount": "1000", "reference": format!("r{i}")})),
                        )
                        .await
                    }
                    2 => s.step(&a, "expire", None).await,
                    _ => s.step(&a, "increment", Some(json!({"amount": "100"}))).await,
                }
            }
        });
        let answers = futures::future::join_all(steps).await;
        let ended = answers
            .iter()
            .filter(|a| {
                a.status == 200
                    && a.body["data"]["authorization"]["status"]
                        .as_str()
                        .is_some_and(|s| s != "pending")
            })
            .count();
        assert_eq!(ended, 1, "one step ends it");
        let failed: Vec<&Value> = answers
            .iter()
            .filter(|a| a.status != 200 && a.status != 400)
            .map(|a| &a.body)
            .collect();
        assert!(failed.is_empty(), "no 5xx on {}: {failed:?}", db.backend());
        assert_books(&db, 0);
        // What the card lost is exactly what was captured.
        let captured: i64 = answers
            .iter()
            .filter_map(|a| a.body["data"]["captured_amount"].as_str())
            .map(|c| c.parse::<i64>().unwrap())
            .sum();
        assert_eq!(s.books(&card).await.0, 100_000 - captured, "{}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_processor_places_holds_captures_and_releases_them_once() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = processor_sandbox(&db, &receiver);
        let signed = Some((SANDBOX_PROCESSOR_SECRET, 0));
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(94).await;
        let card = s.card(&holder, "10000").await;
        let hold = |reference: &str, cents: &str| json!({"card_id": card, "amount": cents, "merchant": "SHELL LEKKI", "transaction_reference": reference, "hold": true});
        let placed = s.processor("authorizations", &hold("net-1", "4000"), signed).await;
        assert_eq!(placed.body["data"]["decision"], "approve", "{}", placed.body);
        assert_eq!(s.books(&card).await, (10_000, 5_700));
        assert_books(&db, 4_000);
        for extra in ["three_ds", "force"] {
            let mut body = json!({"card_id": card, "amount": "1", "merchant": "M", "transaction_reference": "net-x", "hold": true});
            body[extra] = json!(true);
            let refused = s.processor("authorizations", &body, signed).await;
            assert!(
                refused.body["message"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("hold:"),
                "{extra}: {}",
                refused.body
            );
        }

        // A reversal of the pending hold releases part of it, once.
        let reversal = json!({"card_id": card, "transaction_reference": "net-1", "reversal_reference": "net-1-r", "amount": "1000"});
        let released = s.processor("reversals", &reversal, signed).await;
        assert_eq!(
            (
                released.body["data"]["outcome"].as_str(),
                released.body["data"]["amount"].as_str()
            ),
            (Some("released"), Some("1000")),
            "{}",
            released.body
        );
        let again = s.processor("reversals", &reversal, signed).await;
        assert_eq!(again.body["data"]["outcome"], "already_applied", "{}", again.body);
        assert_books(&db, 3_000);

        // The capture clears part of what is left; the rest goes back.
        let capture = json!({"card_id": card, "transaction_reference": "net-1", "amount": "2500"});
        let captured = s.processor("captures", &capture, signed).await;
        let d = &captured.body["data"];
        assert_eq!(
            (
                d["outcome"].as_str(),
                d["captured_amount"].as_str(),
                d["released_amount"].as_str()
            ),
            (Some("captured"), Some("2500"), Some("500")),
            "{}",
            captured.body
        );
        assert_eq!(
            s.processor("captures", &capture, signed).await.body["data"]["outcome"],
            "not_pending"
        );
        let unknown = json!({"card_id": card, "transaction_reference": "net-nope"});
        assert_eq!(
            s.processor("captures", &unknown, signed).await.body["data"]["outcome"],
            "no_such_authorization"
        );
        let unsigned = s.processor("captures", &capture, None).await;
        assert_eq!(unsigned.status, 401, "{}", unsigned.body);
        assert_eq!(s.books(&card).await, (7_500, 7_200));
        assert_books(&db, 0);

        // A refund of the captured authorization goes through its reference.
        let refund = json!({"card_id": card, "transaction_reference": "net-1", "reversal_reference": "net-1-rf", "kind": "refund", "amount": "700"});
        let refunded = s.processor("reversals", &refund, signed).await;
        assert_eq!(
            (
                refunded.body["data"]["outcome"].as_str(),
                refunded.body["data"]["amount"].as_str()
            ),
            (Some("credited"), Some("700")),
            "{}",
            refunded.body
        );
        events_for(&receiver, "card_refund_event.successful", &card, 1).await;
        assert_eq!(sandbox_totals(&db)["USD"]["card_spend"], 2_500 - 700);
        assert_books(&db, 0);
    }
}

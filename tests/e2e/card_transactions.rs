//! Card debits over HTTP: the sandbox's mock debit, enrichment, history,
//! and the automatic card rules with their webhooks.

use crate::cardholders::account_created;
use crate::cards::{Answer, Sandbox, event, unix_now};
use crate::harness::{ledger_check, sandbox_totals};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

fn debit(card: &str, amount: &str, merchant: &str, reference: &str) -> Value {
    json!({"card_id": card, "amount": amount, "merchant": merchant, "transaction_reference": reference})
}

/// Waits until the receiver holds `count` events named `event` for `card`.
pub(crate) async fn events_for(receiver: &Receiver, event: &str, card: &str, count: usize) -> Vec<Value> {
    let matching = |r: &Receiver| {
        r.deliveries()
            .into_iter()
            .filter_map(|d| serde_json::from_str::<Value>(&d.body).ok())
            .filter(|b| b["event"] == event && b["data"]["card_id"] == card)
            .map(|b| b["data"].clone())
            .collect::<Vec<_>>()
    };
    let arrived = receiver.wait_for(30, |r| matching(r).len() >= count).await;
    assert!(arrived, "{count} {event} for {card}: got {}", matching(receiver).len());
    matching(receiver)
}

fn assert_ledger(db: &TestDb) {
    let (ok, out) = ledger_check(db);
    assert!(ok, "{}: {out}", db.backend());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debits_are_enriched_listed_newest_first_and_found_by_either_reference() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(11).await;
        let card = s.card(&holder, "10000").await;
        let netflix = "NETFLIX.COM 866-579-7172 CA";
        for (n, (merchant, amount)) in [
            (netflix, "1500"),
            ("UBER *TRIP HELP.UBER.COM", "800"),
            ("SQ *MAMA PUT 0423 LAGOS", "250"),
        ]
        .into_iter()
        .enumerate()
        {
            let a = s
                .patch(
                    "/cards/mock_debit_transaction",
                    debit(&card, amount, merchant, &format!("d{n}")),
                )
                .await;
            assert_eq!(a.status, 200, "{}: {}", db.backend(), a.body);
            assert_eq!(
                a.body["data"],
                json!({"card_id": card, "transaction_reference": format!("d{n}")})
            );
            s.advance(60).await;
        }
        assert_eq!(s.balance(&card).await, (10_000 - 2_550, 10_000 - 2_550 - 300));
        let page = s
            .get(&format!("/cards/get_card_transactions?card_id={card}&page=1"))
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        let list = page.body["data"]["transactions"].as_array().unwrap().clone();
        let refs: Vec<&str> = list
            .iter()
            .map(|t| t["client_transaction_reference"].as_str().unwrap())
            .collect();
        assert_eq!(refs, ["d2", "d1", "d0"], "newest first");
        let uber = &list[1];
        assert_eq!(
            (uber["amount"].as_str(), uber["card_transaction_type"].as_str()),
            (Some("800"), Some("DEBIT"))
        );
        assert_eq!(uber["enriched_data"]["merchant_name"], "Uber");
        assert_eq!(uber["enriched_data"]["transaction_group"], "Transportation");
        // Each approved debit is told, as the transaction list shows it.
        let told = events_for(&receiver, "card_debit_event.successful", &card, 3).await;
        let told = told.iter().find(|d| d["transaction_reference"] == "d1").unwrap();
        assert_eq!(
            (
                told["amount"].as_str(),
                told["currency"].as_str(),
                told["card_transaction_type"].as_str(),
                told["description"].as_str(),
                told["cardholder_id"].as_str(),
            ),
            (
                Some("800"),
                Some("USD"),
                Some("DEBIT"),
                Some("UBER *TRIP HELP.UBER.COM"),
                Some(holder.as_str())
            ),
            "{told}"
        );
        assert_eq!(
            told["issuer_transaction_reference"],
            uber["issuer_transaction_reference"]
        );
        assert_eq!(told["enriched_data"], uber["enriched_data"]);
        assert_eq!(told["merchant_category_code"], uber["merchant_category_code"]);
        assert!(
            told.as_object().unwrap().contains_key("merchant_category_code"),
            "{told}"
        );
        assert!(
            told["transaction_timestamp"].is_i64() && told.get("decline_reason").is_none(),
            "{told}"
        );
        assert_eq!(list[0]["enriched_data"]["merchant_name"], "Sq Mama Put");
        assert_eq!(list[0]["enriched_data"]["is_recurring"], false);
        let date = uber["transaction_date"].as_str().unwrap();
        assert_eq!(date.len(), 19, "{date}");

        // By either reference; both dates or neither.
        let issuer = uber["issuer_transaction_reference"].as_str().unwrap();
        let by_client = s
            .get(&format!(
                "/cards/get_card_transaction_by_id?card_id={card}&client_transaction_reference=d1"
            ))
            .await;
        assert_eq!(by_client.body["data"]["issuer_transaction_reference"], issuer);
        let by_issuer = s
            .get(&format!(
                "/cards/get_card_transaction_by_id?card_id={card}&issuer_transaction_reference={issuer}"
            ))
            .await;
        assert_eq!(by_issuer.body["data"]["client_transaction_reference"], "d1");
        let missing = s
            .get(&format!(
                "/cards/get_card_transaction_by_id?card_id={card}&client_transaction_reference=nope"
            ))
            .await;
        assert_eq!(
            (missing.status, missing.body["code"].as_str()),
            (400, Some("transaction_not_found"))
        );
        let window = format!(
            "start_date={}&end_date={}",
            date.replace(' ', "%20"),
            date.replace(' ', "%20")
        );
        let only = s
            .get(&format!("/cards/get_card_transactions?card_id={card}&page=1&{window}"))
            .await;
        assert_eq!(
            only.body["data"]["transactions"].as_array().unwrap().len(),
            1,
            "{}",
            only.body
        );
        assert_eq!(only.body["data"]["meta"]["total"], 1);
        for bad in [
            format!("card_id={card}&page=1&start_date=2026-11-01%2000:00:00"),
            format!("card_id={card}&page=1&start_date=2026-11-01&end_date=2026-12-01"),
            format!("card_id={card}&page=0"),
            "card_id=card_nope&page=1".to_string(),
        ] {
            let a = s.get(&format!("/cards/get_card_transactions?{bad}")).await;
            assert_eq!(a.status, 400, "{bad}: {}", a.body);
        }

        // The same merchant in each of the two previous months: recurring.
        s.advance(31 * 86_400).await;
        assert_eq!(
            s.patch("/cards/mock_debit_transaction", debit(&card, "1500", netflix, "n2"))
                .await
                .status,
            200
        );
        s.advance(31 * 86_400).await;
        assert_eq!(
            s.patch("/cards/mock_debit_transaction", debit(&card, "1500", netflix, "n3"))
                .await
                .status,
            200
        );
        let latest = s
            .get(&format!(
                "/cards/get_card_transaction_by_id?card_id={card}&client_transaction_reference=n3"
            ))
            .await;
        assert_eq!(
            latest.body["data"]["enriched_data"]["is_recurring"], true,
            "{}",
            latest.body
        );

        // A reference is used once across fundings, unloadings and debits.
        let reused = s
            .patch("/cards/mock_debit_transaction", debit(&card, "1", netflix, "n3"))
            .await;
        assert_eq!(
            (reused.status, reused.body["code"].as_str()),
            (400, Some("transaction_reference_used"))
        );
        let reused = s
            .patch("/cards/fund_card_asynchronously", Sandbox::transfer(&card, "100", "d0"))
            .await;
        assert_eq!(reused.status, 400);
        // Sandbox only.
        let live = crate::harness::client()
            .patch(s.server.url("/v1/issuing/cards/mock_debit_transaction"))
            .json(&json!({"card_id": card}))
            .send()
            .await
            .unwrap();
        assert_eq!(live.status(), 404);
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declines_are_reported_and_the_15th_consecutive_for_balance_deletes_the_card() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(12).await;
        let card = s.card(&holder, "300").await;
        let decline = async |n: u32| {
            let a = s
                .patch(
                    "/cards/mock_debit_transaction",
                    debit(&card, "200", "UBER *TRIP", &format!("x{n}")),
                )
                .await;
            assert_eq!(
                (a.status, a.body["code"].as_str()),
                (401, Some("insufficient_balance")),
                "{n}: {}",
                a.body
            );
        };
        for n in 0..10 {
            decline(n).await;
        }
        let declined = events_for(&receiver, "card_debit_event.declined", &card, 10).await;
        assert!(
            declined[0]["decline_reason"]
                .as_str()
                .unwrap()
                .contains("cannot cover the merchant charge and fee")
        );
        // Funding resets the count.
        let a = s
            .patch("/cards/fund_card_asynchronously", Sandbox::transfer(&card, "100", "f1"))
            .await;
        assert_eq!(a.status, 202, "{}", a.body);
        events_for(&receiver, "card_credit_event.successful", &card, 1).await;
        for n in 10..24 {
            decline(n).await;
        }
        assert_eq!(s.balance(&card).await, (400, 100), "14 in a row: still there");
        decline(24).await;
        let deleted = events_for(&receiver, "card_delete_event.successful", &card, 1).await;
        assert_eq!(deleted[0]["reason"], "insufficient_balance");
        assert_eq!(
            s.get(&format!("/cards/get_card_balance?card_id={card}")).await.status,
            400
        );
        assert_eq!(s.wallet().await, 10_000, "{}: the 400 went back", db.backend());
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_post_may_overdraw_and_the_next_debit_deletes_the_card_and_other_declines_have_reasons() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(600_000).await;
        let holder = s.cardholder(13).await;
        // A card funded with 1,000 that a forced post of `cents` overdraws.
        let overdrawn = |cents: &'static str, reference: &'static str| {
            let (s, holder) = (&s, &holder);
            async move {
                let card = s.card(holder, "1000").await;
                let mut forced = debit(&card, cents, "EMIRATES 176 DXB", reference);
                forced["force"] = json!(true);
                assert_eq!(s.patch("/cards/mock_debit_transaction", forced).await.status, 200);
                card
            }
        };
        // What deleted cards left to the account's losses, and what cards hold.
        let losses_and_cards = || {
            let usd = &sandbox_totals(&db)["USD"];
            (usd["losses"].clone(), usd["card"].clone())
        };
        let card = overdrawn("5000", "f1").await;
        assert_eq!(s.balance(&card).await.0, -4_000, "{}", db.backend());
        let a = s
            .patch(
                "/cards/mock_debit_transaction",
                debit(&card, "1", "EMIRATES 176 DXB", "f2"),
            )
            .await;
        assert_eq!((a.status, a.body["code"].as_str()), (400, Some("negative_balance")));
        let deleted = events_for(&receiver, "card_delete_event.successful", &card, 1).await;
        assert_eq!(deleted[0]["reason"], "negative_balance");
        assert_ledger(&db);
        // The deleted card owes nothing: its 4,000 are the account's loss.
        assert_eq!(losses_and_cards(), (json!(-4_000), json!(0)), "{}", db.backend());
        // Deleted by the client, an overdrawn card is written off the same way.
        let card = overdrawn("1500", "f3").await;
        assert_eq!(s.delete(&format!("/cards/delete_card/{card}")).await.status, 200);
        assert_eq!(losses_and_cards(), (json!(-4_500), json!(0)), "{}", db.backend());
        // Migrated, an overdrawn card is written off too: the new card starts at 0.
        let card = overdrawn("1200", "f4").await;
        let migration = json!({"cardholder_id": holder, "card_id": card, "card_type": "virtual",
            "target_card_brand": "Mastercard", "target_card_currency": "USD", "card_limit": "500000"});
        assert_eq!(s.post("/cards/migrate_card", migration).await.status, 201);
        assert_eq!(losses_and_cards(), (json!(-4_700), json!(0)), "{}", db.backend());
        assert_ledger(&db);

        // Frozen: declined with its reason; the monthly limit counts approved spend.
        let big = s.card(&holder, "500000").await;
        s.patch(&format!("/cards/freeze_card?card_id={big}"), json!({})).await;
        let a = s
            .patch(
                "/cards/mock_debit_transaction",
                debit(&big, "100", "AMZN Mktp US", "z0"),
            )
            .await;
        assert_eq!((a.status, a.body["code"].as_str()), (400, Some("card_frozen")));
        s.patch(&format!("/cards/unfreeze_card?card_id={big}"), json!({})).await;
        assert_eq!(
            s.patch(
                "/cards/mock_debit_transaction",
                debit(&big, "499700", "AMZN Mktp US", "z1")
            )
            .await
            .status,
            200
        );
        let a = s
            .patch(
                "/cards/mock_debit_transaction",
                debit(&big, "301", "AMZN Mktp US", "z2"),
            )
            .await;
        assert_eq!(
            (a.status, a.body["code"].as_str()),
            (400, Some("monthly_limit_exceeded"))
        );
        // Deliveries run concurrently: they may arrive in either order.
        let mut reasons: Vec<String> = events_for(&receiver, "card_debit_event.declined", &big, 2)
            .await
            .into_iter()
            .map(|d| d["decline_code"].as_str().unwrap_or_default().to_string())
            .collect();
        reasons.sort();
        assert_eq!(reasons, ["card_frozen", "monthly_limit_exceeded"]);
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_pages_approved_debits_newest_first_with_declines_left_out() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(16).await;
        let card = s.card(&holder, &(300 + 45 * 100).to_string()).await;
        for n in 0..45 {
            let a = s
                .patch(
                    "/cards/mock_debit_transaction",
                    debit(&card, "100", "SPOTIFY", &format!("h{n}")),
                )
                .await;
            assert_eq!(a.status, 200, "{}", a.body);
            if n % 15 == 0 {
                let declined = s
                    .patch(
                        "/cards/mock_debit_transaction",
                        debit(&card, "5000", "SPOTIFY", &format!("x{n}")),
                    )
                    .await;
                assert_eq!(declined.status, 401, "{}", declined.body);
            }
        }
        let mut listed = vec![];
        for page in 1..=4 {
            let a = s
                .get(&format!("/cards/get_card_transactions?card_id={card}&page={page}"))
                .await;
            let refs: Vec<String> = a.body["data"]["transactions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["client_transaction_reference"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(refs.len(), [20, 20, 5, 0][page - 1], "{}: page {page}", db.backend());
            let next = if page < 3 { json!(page + 1) } else { Value::Null };
            let previous = if page > 1 {
                json!((page - 1).min(3))
            } else {
                Value::Null
            };
            assert_eq!(
                a.body["data"]["meta"],
                json!({"total": 45, "pages": 3, "previous": previous, "next": next}),
                "page {page}"
            );
            listed.extend(refs);
        }
        // Without a page: the first.
        let first = s.get(&format!("/cards/get_card_transactions?card_id={card}")).await;
        assert_eq!(first.status, 200, "{}", first.body);
        assert_eq!(
            first.body["data"]["transactions"][0]["client_transaction_reference"],
            "h44"
        );
        assert_eq!(first.body["data"]["meta"]["next"], 2);
        let newest_first: Vec<String> = (0..45).rev().map(|n| format!("h{n}")).collect();
        assert_eq!(listed, newest_first, "{}", db.backend());
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_debits_on_a_card_funded_for_five_hundred_approve_exactly_five_hundred() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(14).await;
        let card = s.card(&holder, &(300 + 500 * 100).to_string()).await;
        let answers: Vec<Answer> = futures::future::join_all((0..1000).map(|n| {
            s.patch(
                "/cards/mock_debit_transaction",
                debit(&card, "100", "SPOTIFY P1A2B3", &format!("c{n}")),
            )
        }))
        .await;
        let count = |status: u16, code: Option<&str>| {
            answers
                .iter()
                .filter(|a| a.status == status && (status == 200 || a.body["code"].as_str() == code))
                .count()
        };
        assert_eq!(count(200, None), 500, "{}", db.backend());
        // After the money ran out, the 15th insufficient-balance decline
        // deleted the card; later debits find no card.
        assert_eq!(count(401, Some("insufficient_balance")), 15);
        assert_eq!(count(400, Some("card_not_found")), 485);
        assert_eq!(s.wallet().await, 100_000 - 50_300 + 300, "the held 300 went back");
        let listed = s.get("/cards/get_all_cards").await;
        assert_eq!(listed.body["data"]["meta"]["total"], 0);
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monthly_fee_is_charged_from_the_held_amount_on_the_card_anniversary() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(15).await;
        let card = s.card(&holder, "1300").await;
        s.advance(20 * 86_400).await;
        assert_eq!(s.balance(&card).await, (1300, 1000), "not before the anniversary");
        s.advance(12 * 86_400).await;
        let fees = events_for(&receiver, "card_maintenance_fee_event.successful", &card, 1).await;
        assert_eq!(fees[0]["amount"], "300");
        assert_eq!(s.balance(&card).await, (1000, 700), "{}", db.backend());
        let history = s
            .get(&format!("/cards/get_card_transactions?card_id={card}&page=1"))
            .await;
        let fee = &history.body["data"]["transactions"][0];
        assert_eq!(fee["description"], "Monthly maintenance fee");
        assert_eq!(fee["enriched_data"]["transaction_group"], "Fees");
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_card_is_reminded_a_week_before_and_deleted_after_three_months() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(16).await;
        let card = s.card(&holder, "2000").await;
        // A debit on day 10 moves the deadline to three months after it.
        s.advance(10 * 86_400).await;
        assert_eq!(
            s.patch("/cards/mock_debit_transaction", debit(&card, "100", "SPOTIFY", "i1"))
                .await
                .status,
            200
        );
        // Fees fall due by calendar month: two by day 88 whatever today's
        // date (two months are at most 62 days, three at least 89).
        s.advance(78 * 86_400).await;
        events_for(&receiver, "card_maintenance_fee_event.successful", &card, 2).await;
        assert_eq!(s.balance(&card).await.0, 1900 - 2 * 300, "day 88: two fees");
        // Day 97: past the reminder (a week before day 99 to 102, three
        // months after the debit), before the deletion.
        s.advance(9 * 86_400).await;
        let notice = events_for(&receiver, "card_delete_event.notification", &card, 1).await;
        let date = notice[0]["potential_delete_date"].as_str().unwrap().to_string();
        assert_eq!(date.len(), 19, "{date}");
        assert_eq!(notice[0]["currency"], "USD", "as the deletion's event carries it");
        assert_eq!(
            s.get(&format!("/cards/get_card_balance?card_id={card}")).await.status,
            200,
            "still there"
        );
        let early = receiver
            .deliveries()
            .iter()
            .filter(|d| d.body.contains("card_delete_event.notification"))
            .count();
        assert_eq!(early, 1, "one reminder");
        s.advance(8 * 86_400).await;
        let deleted = events_for(&receiver, "card_delete_event.successful", &card, 1).await;
        assert_eq!(deleted[0]["reason"], "inactivity", "{}", db.backend());
        assert_eq!(
            s.get(&format!("/cards/get_card_balance?card_id={card}")).await.status,
            400
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let fees = events_for(&receiver, "card_maintenance_fee_event.successful", &card, 3)
            .await
            .len() as i64;
        assert_eq!(s.wallet().await, 10_000 - 100 - 300 * fees, "the rest went back");
        assert_ledger(&db);
    }
}

pub(crate) const SANDBOX_PROCESSOR_SECRET: &str = "psk_sandbox_processor_secret_0123456789";
const LIVE_PROCESSOR_SECRET: &str = "psk_live_processor_secret_0123456789";

/// A sandbox the processor calls, with each mode's secret, whose
/// webhooks go to `receiver`.
pub(crate) fn processor_sandbox(db: &TestDb, receiver: &Receiver) -> Sandbox {
    let secrets = ["--sandbox-processor-secret", SANDBOX_PROCESSOR_SECRET];
    let live = ["--processor-secret", LIVE_PROCESSOR_SECRET];
    Sandbox::start_with(db, Some(&receiver.url), &[secrets, live].concat())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_processor_gives_back_an_authorization_once_by_its_reference_and_never_more() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (secret, live_secret) = (SANDBOX_PROCESSOR_SECRET, LIVE_PROCESSOR_SECRET);
        let mut s = processor_sandbox(&db, &receiver);
        // Another account's card, authorized the same way.
        let theirs = account_created(&db, None)["test_secret_key"]
            .as_str()
            .unwrap()
            .to_string();
        let ours = std::mem::replace(&mut s.key, theirs);
        s.fund_wallet(10_000).await;
        let their_holder = s.cardholder(19).await;
        let their_card = s.card(&their_holder, "1300").await;
        s.key = ours;
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(18).await;
        let created = domain::Timestamp::from_unix(unix_now());
        let card = s.card(&holder, "1300").await;
        for card in [&card, &their_card] {
            let auth =
                json!({"card_id": card, "amount": "600", "merchant": "BOLT.EU/R/2211", "transaction_reference": "a1"});
            let approved = s.processor("authorizations", &auth, Some((secret, 0))).await;
            assert_eq!(approved.body["data"]["decision"], "approve", "{}", approved.body);
        }
        let back = |reference: &str, amount: Option<&str>, kind: &str| {
            let mut body =
                json!({"card_id": card, "transaction_reference": "a1", "reversal_reference": reference, "kind": kind});
            if let Some(amount) = amount {
                body["amount"] = json!(amount);
            }
            body
        };
        let reverse = async |body: &Value, key: &str| s.processor("reversals", body, Some((key, 0))).await;

        // Part of it, told twice: credited once.
        let first = reverse(&back("rv-1", Some("200"), "reversal"), secret).await;
        assert_eq!(first.status, 200, "{}: {}", db.backend(), first.body);
        assert_eq!(
            first.body["data"],
            json!({"outcome": "credited", "amount": "200", "credited_to": "card"})
        );
        let again = reverse(&back("rv-1", Some("200"), "reversal"), secret).await;
        assert_eq!(again.body["data"]["outcome"], "already_applied", "{}", again.body);
        // The processor's reference names its own transaction: applied
        // once per mode, whichever account's card the call names.
        let mut elsewhere = back("rv-1", Some("200"), "reversal");
        elsewhere["card_id"] = json!(their_card);
        let elsewhere = reverse(&elsewhere, secret).await;
        assert_eq!(
            elsewhere.body["data"]["outcome"], "already_applied",
            "{}",
            elsewhere.body
        );
        let told = event(&receiver, "card_reversal_event.successful", |d| {
            d["reversal_reference"] == "rv-1"
        })
        .await;
        for (field, value) in [
            ("card_id", json!(card)),
            ("cardholder_id", json!(holder)),
            ("amount", json!("200")),
            ("currency", json!("USD")),
            ("transaction_reference", json!("a1")),
            ("description", json!("BOLT.EU/R/2211")),
            ("livemode", json!(false)),
        ] {
            assert_eq!(told[field], value, "{field}: {told}");
        }
        assert!(
            told["transaction_timestamp"].is_i64() && told["issuing_app_id"].is_string(),
            "{told}"
        );

        // Ten refunds of the whole at once: only the 400 left comes back.
        let refunds: Vec<Value> = (0..10)
            .map(|i| back(&format!("rf-{i}"), Some("600"), "refund"))
            .collect();
        let answers = futures::future::join_all(refunds.iter().map(|b| reverse(b, secret))).await;
        let credited: i64 = answers
            .iter()
            .filter(|a| a.body["data"]["outcome"] == "credited")
            .map(|a| a.body["data"]["amount"].as_str().unwrap().parse::<i64>().unwrap())
            .sum();
        assert_eq!(
            credited,
            400,
            "{:?}",
            answers.iter().map(|a| &a.body).collect::<Vec<_>>()
        );
        assert!(
            answers
                .iter()
                .all(|a| ["credited", "nothing_left"].contains(&a.body["data"]["outcome"].as_str().unwrap()))
        );

        // A void before the authorization: its debit is refused when it comes.
        let void = json!({"card_id": card, "transaction_reference": "a2", "reversal_reference": "rv-a2"});
        assert_eq!(reverse(&void, secret).await.body["data"]["outcome"], "voided");
        let late = json!({"card_id": card, "amount": "100", "merchant": "X", "transaction_reference": "a2"});
        let late = s.processor("authorizations", &late, Some((secret, 0))).await;
        assert_ne!(late.body["data"]["decision"], "approve", "{}", late.body);

        // What names nothing here, and what breaks a rule.
        let elsewhere = json!({"card_id": "card_nope", "transaction_reference": "a1", "reversal_reference": "rv-x"});
        assert_eq!(
            reverse(&elsewhere, secret).await.body["data"]["outcome"],
            "card_not_found"
        );
        assert_eq!(
            reverse(&back("rv-y", Some("1"), "refund"), live_secret).await.body["data"]["outcome"],
            "card_not_found"
        );
        let unknown =
            json!({"card_id": card, "transaction_reference": "a9", "reversal_reference": "rv-z", "amount": "1"});
        assert_eq!(reverse(&unknown, secret).await.body["data"]["outcome"], "no_such_debit");
        for (body, field) in [
            (back("rv-k", Some("1"), "chargeback"), "kind"),
            (back("rv-0", Some("0"), "refund"), "amount"),
            (back("rv-h", Some("99999999999999999999"), "refund"), "amount"),
            (back("rv-n", Some("-5"), "refund"), "amount"),
            (back("", Some("1"), "refund"), "reversal_reference"),
            (back("rv\u{0}", Some("1"), "refund"), "reversal_reference"),
        ] {
            let refused = reverse(&body, secret).await;
            assert_eq!(refused.status, 400, "{body}: {}", refused.body);
            assert!(
                refused.body["message"].as_str().unwrap().starts_with(field),
                "{}",
                refused.body
            );
        }
        let unsigned = s.processor("reversals", &back("rv-u", Some("1"), "refund"), None).await;
        assert_eq!(unsigned.status, 401);
        assert_eq!(
            s.balance(&card).await,
            (1300, 1000),
            "all of a1 came back, and nothing more"
        );
        // A monthly fee is not the processor's: neither given back nor voided.
        s.advance(32 * 86_400).await;
        events_for(&receiver, "card_maintenance_fee_event.successful", &card, 1).await;
        let fee = format!("fee_{card}_{}", created.add_months(1).month_key());
        for (n, amount) in [Some("300"), None].into_iter().enumerate() {
            let mut body =
                json!({"card_id": card, "transaction_reference": fee, "reversal_reference": format!("fee-{n}")});
            if let Some(amount) = amount {
                body["amount"] = json!(amount);
            }
            let refused = reverse(&body, secret).await;
            assert_eq!(
                refused.body["data"]["outcome"], "no_such_debit",
                "{amount:?}: {}",
                refused.body
            );
        }
        assert_eq!(s.balance(&card).await, (1000, 700), "the fee taken, the next one held");
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_processor_gets_real_time_decisions_for_signed_requests_only() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (secret, live_secret) = (SANDBOX_PROCESSOR_SECRET, LIVE_PROCESSOR_SECRET);
        let s = processor_sandbox(&db, &receiver);
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(17).await;
        let card = s.card(&holder, "1300").await;
        let now = unix_now;
        let ask = async |body: &Value, signed_at: Option<i64>, key: &str| {
            let a = s.processor("authorizations", body, signed_at.map(|t| (key, t))).await;
            (a.status, a.body)
        };
        let auth = |amount: &str, reference: &str| {
            json!({"card_id": card, "amount": amount, "merchant": "BOLT.EU/R/2211", "merchant_category_code": "4121",
                   "transaction_reference": reference})
        };
        let (status, body) = ask(&auth("600", "p1"), Some(now()), secret).await;
        assert_eq!(status, 200, "{}: {body}", db.backend());
        assert_eq!(
            (body["data"]["decision"].as_str(), body["data"]["reason_code"].as_str()),
            (Some("approve"), Some("approved"))
        );
        let (_, body) = ask(&auth("600", "p2"), Some(now()), secret).await;
        assert_eq!(
            (body["data"]["decision"].as_str(), body["data"]["reason_code"].as_str()),
            (Some("decline"), Some("insufficient_balance"))
        );
        let declined = events_for(&receiver, "card_debit_event.declined", &card, 1).await;
        assert_eq!(declined[0]["transaction_reference"], "p2");
        // The merchant as the transaction shows it, declined or approved.
        assert_eq!(declined[0]["merchant_category_code"], "4121", "{}", declined[0]);
        assert!(
            declined[0]["enriched_data"]["merchant_name"].is_string(),
            "{}",
            declined[0]
        );
        let approved = events_for(&receiver, "card_debit_event.successful", &card, 1).await;
        assert_eq!(approved[0]["merchant_category_code"], "4121", "{}", approved[0]);
        let (status, body) = ask(&auth("1", "p1"), Some(now()), secret).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("transaction_reference_used"))
        );
        // Unsigned, wrongly signed and stale requests are refused and leave nothing.
        for (signed_at, key) in [(None, secret), (Some(now()), "wrong"), (Some(now() - 301), secret)] {
            let (status, body) = ask(&auth("1", "p9"), signed_at, key).await;
            assert_eq!(
                (status, body["code"].as_str()),
                (401, Some("bad_processor_signature")),
                "{body}"
            );
        }
        let (status, body) = ask(&auth("1", "p9"), Some(now()), secret).await;
        assert_eq!(status, 200, "p9 was left unused: {body}");
        let (_, body) = ask(
            &json!({"card_id": "card_nope", "amount": "1", "merchant": "X", "transaction_reference": "p10"}),
            Some(now()),
            secret,
        )
        .await;
        assert_eq!(body["data"]["reason_code"], "card_not_found");
        // An invalid body is 400 whatever the card, known, unknown or
        // deleted: the body is judged first.
        for card_id in [card.as_str(), "card_nope"] {
            let bad = [
                (
                    "authorizations",
                    json!({"card_id": card_id, "amount": "0", "merchant": "X", "transaction_reference": "p12"}),
                ),
                (
                    "authorizations",
                    json!({"card_id": card_id, "amount": "1", "merchant": "X", "transaction_reference": "p\u{0}"}),
                ),
                (
                    "captures",
                    json!({"card_id": card_id, "transaction_reference": "p1", "amount": "-5"}),
                ),
                (
                    "captures",
                    json!({"card_id": card_id, "transaction_reference": "p\u{1}"}),
                ),
                (
                    "reversals",
                    json!({"card_id": card_id, "transaction_reference": "p1", "reversal_reference": "r1", "amount": "0"}),
                ),
            ];
            for (path, body) in bad {
                let a = s.processor(path, &body, Some((secret, now()))).await;
                assert_eq!(
                    (a.status, a.body["code"].as_str()),
                    (400, Some("invalid_request")),
                    "{path} {body}: {}",
                    a.body
                );
            }
        }
        // The live secret debits no sandbox card: as if it did not exist.
        let (status, body) = ask(&auth("1", "p11"), Some(now()), live_secret).await;
        assert_eq!(
            (status, body["data"]["reason_code"].as_str()),
            (200, Some("card_not_found")),
            "{body}"
        );
        assert_eq!(s.balance(&card).await, (1300 - 601, 1000 - 601));
        assert_ledger(&db);
    }
    // Without a processor secret the endpoint is closed.
    let db = TestDb::sqlite();
    let s = Sandbox::start(&db, None);
    let closed = crate::harness::client()
        .post(s.server.url("/v1/processor/authorizations"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(closed.status(), 403);
}

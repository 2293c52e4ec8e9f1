//! Naira cards over HTTP: issued without funding or fee, funded and
//! unloaded from the NGN wallet with their own events, read by card or
//! cardholder id, frozen, debited within 1,500 USD a month counted at the
//! configured rate, and listed; on SQLite and PostgreSQL.

use crate::cards::{Answer, Sandbox, event};
use crate::harness::{eventually, ledger_check, on_fakes};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

/// Kobo per USD the sandbox sells at (`--fx-ngn-usd`, see README).
const NGN_USD: i64 = 160_000;

impl Sandbox {
    pub(crate) async fn fund_ngn_wallet(&self, kobo: i64) {
        let a = self
            .patch(
                "/cards/fund_issuing_wallet?currency=NGN",
                json!({"amount": kobo.to_string()}),
            )
            .await;
        assert_eq!(a.status, 200, "{}", a.body);
    }

    async fn naira_card(&self, holder: &str) -> String {
        let body = json!({"cardholder_id": holder, "card_type": "virtual", "card_brand": "Mastercard",
                          "card_currency": "NGN", "nin": "12345678901", "meta_data": {"k": 1}});
        let a = self.post("/cards/create_card", body).await;
        assert_eq!(a.status, 200, "{}", a.body);
        assert_eq!(a.body["data"]["currency"], "NGN");
        a.body["data"]["card_id"].as_str().unwrap().to_string()
    }

    pub(crate) async fn naira_balance(&self, id: &str) -> (u16, Value) {
        self.advance(3).await;
        let a = self
            .get(&format!("/naira_cards/get_card_balance?cardholder_id={id}"))
            .await;
        (a.status, a.body)
    }

    async fn naira_transfer(&self, path: &str, card: &str, kobo: &str, reference: &str) -> (u16, Value) {
        let body = json!({"card_id": card, "amount": kobo, "transaction_reference": reference});
        let a = self
            .call(
                reqwest::Method::from_bytes(if path.starts_with("fund") { b"POST" } else { b"PATCH" }).unwrap(),
                &format!("/naira_cards/{path}"),
                Some(body),
            )
            .await;
        (a.status, a.body)
    }

    /// A Naira card of `holder` holding `kobo` once its funding settled.
    pub(crate) async fn funded_naira_card(&self, holder: &str, kobo: i64) -> String {
        let card = self.naira_card(holder).await;
        let (status, body) = self
            .naira_transfer("fund_naira_card", &card, &kobo.to_string(), &format!("fund-{card}"))
            .await;
        assert_eq!(status, 202, "{body}");
        let balance = eventually(async || available(&self.naira_balance(&card).await.1), |b| *b == kobo).await;
        assert_eq!(balance, kobo, "the funding settled");
        card
    }

    /// The OTP of `card`'s challenge of `kobo`, read on the relay.
    pub(crate) async fn otp(&self, card: &str, kobo: &str) -> Answer {
        let path = format!("/naira_cards/get_otp_message?card_id={card}&amount={kobo}");
        self.call_at(&self.server.relay, reqwest::Method::GET, &path, None)
            .await
    }
}

/// The six digits of an OTP answer.
pub(crate) fn digits(otp: &Answer) -> String {
    let code = otp.body["data"]["otp"].as_str().unwrap_or_default().to_string();
    assert!(
        code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()),
        "{}",
        otp.body
    );
    code
}

/// An OTP other than `otp`.
fn wrong(otp: &str) -> &'static str {
    if otp == "000000" { "111111" } else { "000000" }
}

pub(crate) fn available(body: &Value) -> i64 {
    body["data"]["available_balance"].as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_naira_card_is_issued_funded_unloaded_frozen_debited_and_listed() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(10_000).await;
        s.fund_ngn_wallet(100_000_000).await;
        let holder = s.cardholder(51).await;
        let card = s.naira_card(&holder).await;
        let created = event(&receiver, "card_creation_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        assert_eq!(created["currency"], "NGN");
        // Nothing moved at creation: no funding, no fee hold.
        assert_eq!(s.wallet().await, 10_000, "{}", db.backend());
        let (status, body) = s.naira_balance(&card).await;
        assert_eq!((status, available(&body)), (200, 0), "{body}");
        let details = s.get(&format!("/cards/get_card_details?card_id={card}")).await;
        assert_eq!(details.body["data"]["card_currency"], "NGN", "{}", details.body);
        // Physical Naira cards are not issued.
        let physical = json!({"cardholder_id": holder, "card_type": "physical", "card_brand": "Mastercard", "card_currency": "NGN"});
        let refused = s.post("/cards/create_card", physical).await;
        assert_eq!(
            (refused.status, refused.body["code"].as_str()),
            (400, Some("card_type_unavailable"))
        );

        // Funding from the NGN wallet: 202, then the Naira credit event.
        let (status, body) = s.naira_transfer("fund_naira_card", &card, "5000000", "n-fund").await;
        assert_eq!(status, 202, "{body}");
        assert_eq!(body["data"]["transaction_reference"], "n-fund");
        let credited = event(&receiver, "naira_card_credit_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        assert_eq!(
            (credited["currency"].as_str(), credited["amount"].as_str()),
            (Some("NGN"), Some("5000000"))
        );
        // By the cardholder's id too, since they have one Naira card.
        let (status, body) = s.naira_balance(&holder).await;
        assert_eq!((status, available(&body)), (200, 5_000_000), "{body}");
        // References are one namespace with every other money movement.
        s.advance(300).await;
        let (status, body) = s.naira_transfer("fund_naira_card", &card, "100", "n-fund").await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("transaction_reference_used")),
            "{body}"
        );
        // The NGN wallet too low: 401; the card too low to unload: 401.
        let (status, _) = s.naira_transfer("fund_naira_card", &card, "990000000", "n-big").await;
        assert_eq!(status, 401);
        let (status, _) = s.naira_transfer("unload_naira_card", &card, "5000001", "n-over").await;
        assert_eq!(status, 401);
        // A USD card is no Naira card, and a Naira card no USD card.
        let usd = s.card(&holder, "300").await;
        let (status, body) = s.naira_transfer("fund_naira_card", &usd, "100", "n-usd").await;
        assert_eq!((status, body["code"].as_str()), (400, Some("card_not_found")), "{body}");
        let usd_fund = crate::cards::Sandbox::transfer(&card, "100", "u-ngn");
        let usd_path = s.patch("/cards/fund_card_asynchronously", usd_fund).await;
        assert_eq!(usd_path.status, 400, "{}", usd_path.body);

        // Unloading: the unload event; one the simulator declines (0013) is
        // told as a credit failure (on Sudo's gateway source, nothing declines it).
        let (status, _) = s
            .naira_transfer("unload_naira_card", &card, "1000000", "n-unload")
            .await;
        assert_eq!(status, 202);
        event(&receiver, "naira_card_unload_event.successful", |d| {
            d["transaction_reference"] == "n-unload"
        })
        .await;
        s.advance(300).await;
        let (status, _) = s
            .naira_transfer("unload_naira_card", &card, "10013", "n-unload-declined")
            .await;
        assert_eq!(status, 202);
        let declined = |d: &Value| d["transaction_reference"] == "n-unload-declined";
        let unloaded = match on_fakes() {
            false => {
                let failed = event(&receiver, "naira_card_credit_event.failed", declined).await;
                assert_eq!(failed["card_transaction_type"], "UNLOAD");
                0
            }
            true => {
                event(&receiver, "naira_card_unload_event.successful", declined).await;
                10_013
            }
        };
        let (_, body) = s.naira_balance(&card).await;
        assert_eq!(available(&body), 4_000_000 - unloaded, "{body}");

        // Freeze: a debit is declined; unfreeze: approved.
        let freeze = s
            .patch(&format!("/naira_cards/freeze_card?card_id={card}"), json!({}))
            .await;
        assert_eq!((freeze.status, &freeze.body["data"]["card_id"]), (200, &json!(card)));
        let debit =
            |kobo: &str, reference: &str| json!({"card_id": card, "amount": kobo, "transaction_reference": reference});
        let frozen = s
            .patch("/naira_cards/mock_debit_naira_card", debit("1000", "d-frozen"))
            .await;
        assert_eq!(frozen.status, 400, "{}", frozen.body);
        let wrong = s
            .patch(&format!("/naira_cards/freeze_card?card_id={usd}"), json!({}))
            .await;
        assert_eq!(wrong.status, 400, "a USD card is no Naira card");
        assert_eq!(
            s.patch(&format!("/naira_cards/unfreeze_card?card_id={card}"), json!({}))
                .await
                .status,
            200
        );
        let paid = s
            .patch("/naira_cards/mock_debit_naira_card", debit("160000", "d-1"))
            .await;
        assert_eq!(
            (paid.status, &paid.body["data"]["transaction_reference"]),
            (200, &json!("d-1")),
            "{}",
            paid.body
        );
        let approved = event(&receiver, "card_debit_event.successful", |d| {
            d["transaction_reference"] == "d-1"
        })
        .await;
        assert_eq!(
            (approved["amount"].as_str(), approved["currency"].as_str()),
            (Some("160000"), Some("NGN")),
            "{approved}"
        );
        assert!(approved["enriched_data"]["merchant_name"].is_string(), "{approved}");
        let default = s
            .patch("/naira_cards/mock_debit_naira_card", json!({"card_id": card}))
            .await;
        assert_eq!(default.status, 200, "{}", default.body);
        let history = s
            .get(&format!("/cards/get_naira_card_transactions?card_id={card}"))
            .await;
        assert_eq!(history.status, 200, "{}", history.body);
        let listed = history.body["data"]["transactions"].as_array().unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(
            (listed[1]["amount"].as_str(), listed[1]["currency"].as_str()),
            (Some("160000"), Some("NGN"))
        );
        assert!(listed[1]["enriched_data"]["merchant_name"].is_string());
        let usd_history = s.get(&format!("/cards/get_card_transactions?card_id={card}")).await;
        assert_eq!(usd_history.status, 400, "a Naira card's history is on the Naira path");
        let (_, body) = s.naira_balance(&card).await;
        assert_eq!(available(&body), 4_000_000 - unloaded - 160_000 - 100);

        // A second Naira card: the cardholder's id alone no longer says which.
        let other = s.naira_card(&holder).await;
        let (status, body) = s.naira_balance(&holder).await;
        assert_eq!(status, 400, "{body}");
        assert!(body["message"].as_str().unwrap().contains("pass the card id"), "{body}");
        let (status, _) = s.naira_balance(&other).await;
        assert_eq!(status, 200);
        // The USD balance path is no place for kobo.
        s.advance(3).await;
        let usd_balance = s.get(&format!("/cards/get_card_balance?card_id={card}")).await;
        assert_eq!(usd_balance.status, 400, "{}", usd_balance.body);
        // Deleted with its cardholder: the event says NGN, the money goes to the NGN wallet.
        let gone = s.delete(&format!("/cardholder/delete_cardholder/{holder}")).await;
        assert_eq!(gone.status, 200, "{}", gone.body);
        let deleted = event(&receiver, "card_delete_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        assert_eq!(deleted["currency"], "NGN");
        let wallets = s.get("/cards/get_issuing_wallet_balance").await;
        let ngn: i64 = wallets.body["data"]["issuing_balance_NGN"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            ngn,
            100_000_000 - 160_000 - 100,
            "every kobo not spent is back: {}",
            wallets.body
        );
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn naira_spending_stops_at_1500_usd_a_month_counted_at_the_rate_and_starts_again_next_month() {
    for db in TestDb::all().await {
        let s = Sandbox::start_with(&db, None, &["--fx-ngn-usd", &NGN_USD.to_string()]);
        s.fund_ngn_wallet(900_000_000).await;
        let holder = s.cardholder(52).await;
        let card = s.naira_card(&holder).await;
        let (status, _) = s
            .naira_transfer("fund_naira_card", &card, "500000000", "cap-fund")
            .await;
        assert_eq!(status, 202);
        let balance = eventually(
            async || available(&s.naira_balance(&card).await.1),
            |b| *b == 500_000_000,
        )
        .await;
        assert_eq!(balance, 500_000_000, "{}", db.backend());
        let debit =
            |kobo: i64, reference: &str| json!({"card_id": card, "amount": kobo, "transaction_reference": reference});
        // 1,499.99 USD, then one cent (1,600 kobo at 1,600 NGN a USD) exactly reaches 1,500 USD.
        let under = s
            .patch(
                "/naira_cards/mock_debit_naira_card",
                debit(149_999 * NGN_USD / 100, "cap-1"),
            )
            .await;
        assert_eq!(under.status, 200, "{}", under.body);
        let exact = s
            .patch("/naira_cards/mock_debit_naira_card", debit(NGN_USD / 100, "cap-2"))
            .await;
        assert_eq!(exact.status, 200, "{}", exact.body);
        // One kobo more counts as a cent (rounded up): over the cap.
        let over = s.patch("/naira_cards/mock_debit_naira_card", debit(1, "cap-3")).await;
        assert_eq!(
            (over.status, over.body["code"].as_str()),
            (400, Some("monthly_limit_exceeded")),
            "{}",
            over.body
        );
        // Next month the cap starts again.
        s.advance(32 * 86_400).await;
        let next = s.patch("/naira_cards/mock_debit_naira_card", debit(1, "cap-4")).await;
        assert_eq!(next.status, 200, "{}", next.body);
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_fundings_of_many_naira_cards_take_exactly_what_the_wallet_holds() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        let holder = s.cardholder(53).await;
        let mut cards = vec![];
        for _ in 0..200 {
            cards.push(s.naira_card(&holder).await);
        }
        // The NGN wallet covers 120 fundings of 1,000 NGN.
        s.fund_ngn_wallet(120 * 100_000).await;
        let fundings = cards.iter().enumerate().map(|(n, card)| {
            let s = &s;
            async move {
                s.naira_transfer("fund_naira_card", card, "100000", &format!("many-{n}"))
                    .await
                    .0
            }
        });
        let statuses = futures::future::join_all(fundings).await;
        let accepted = statuses.iter().filter(|s| **s == 202).count();
        let refused = statuses.iter().filter(|s| **s == 401).count();
        assert_eq!((accepted, refused), (120, 80), "{}: {statuses:?}", db.backend());
        // Every accepted funding settles onto its card.
        let on_cards = async || crate::harness::sandbox_totals(&db)["NGN"]["card"].as_i64().unwrap_or(0);
        let on_cards = eventually(on_cards, |kobo| *kobo == 120 * 100_000).await;
        assert_eq!(on_cards, 120 * 100_000, "{}", db.backend());
        let totals = crate::harness::sandbox_totals(&db);
        assert_eq!(totals["NGN"]["issuing_wallet"].as_i64().unwrap_or(0), 0);
        assert_eq!(totals["NGN"]["card_transit"].as_i64().unwrap_or(0), 0);
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_3ds_debit_waits_for_its_otp_which_only_the_relay_reads() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_ngn_wallet(10_000_000).await;
        let holder = s.cardholder(54).await;
        let card = s.funded_naira_card(&holder, 5_000_000).await;
        let challenge = |reference: &str| json!({"card_id": card, "amount": "25000", "transaction_reference": reference, "three_ds": true});
        let otp_path = |kobo: &str| format!("/naira_cards/get_otp_message?card_id={card}&amount={kobo}");
        let read_otp = |kobo: &'static str| s.otp(&card, kobo);
        let answer =
            |reference: &str, otp: &str| json!({"card_id": card, "transaction_reference": reference, "otp": otp});

        // The right OTP posts the debit; nothing moved before.
        let opened = s.patch("/naira_cards/mock_debit_naira_card", challenge("tds-1")).await;
        assert_eq!(opened.status, 202, "{}", opened.body);
        // The fintech is told the OTP to give its user, by signed webhook.
        let told = event(&receiver, "3d_secure_otp_event.generated", |d| {
            d["transaction_reference"] == "tds-1"
        })
        .await;
        assert_eq!(
            (
                told["amount"].as_str(),
                told["currency"].as_str(),
                told["card_id"].as_str()
            ),
            (Some("25000"), Some("NGN"), Some(card.as_str())),
            "{told}"
        );
        let told_otp = told["otp"].as_str().unwrap().to_string();
        assert!(
            told_otp.len() == 6 && told_otp.bytes().all(|b| b.is_ascii_digit()),
            "{told}"
        );
        assert!(told["expires_at"].as_i64().unwrap() > told["transaction_timestamp"].as_i64().unwrap());
        assert_eq!(available(&s.naira_balance(&card).await.1), 5_000_000);
        assert_eq!(
            s.get(&otp_path("25000")).await.status,
            404,
            "the base address has no OTPs"
        );
        for kobo in ["0", "24999"] {
            let none = read_otp(kobo).await;
            assert_eq!(
                (none.status, &none.body["status"]),
                (400, &json!(false)),
                "{kobo}: {}",
                none.body
            );
        }
        let otp = read_otp("25000").await;
        assert_eq!(otp.status, 200, "{}", otp.body);
        let code = digits(&otp);
        let done = s.post("/naira_cards/complete_3ds", answer("tds-1", &code)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(available(&s.naira_balance(&card).await.1), 4_975_000);
        let again = s.post("/naira_cards/complete_3ds", answer("tds-1", &code)).await;
        assert_eq!(again.status, 400, "answered once: {}", again.body);

        // Three wrong OTPs decline it, with the event; nothing moves.
        assert_eq!(
            s.patch("/naira_cards/mock_debit_naira_card", challenge("tds-2"))
                .await
                .status,
            202
        );
        let real = digits(&read_otp("25000").await);
        let wrong = wrong(&real);
        for left in ["2 attempts left", "1 attempt left"] {
            let w = s.post("/naira_cards/complete_3ds", answer("tds-2", wrong)).await;
            assert_eq!(
                (w.status, w.body["code"].as_str()),
                (400, Some("wrong_otp")),
                "{}",
                w.body
            );
            assert!(w.body["message"].as_str().unwrap().contains(left), "{}", w.body);
        }
        let failed = s.post("/naira_cards/complete_3ds", answer("tds-2", wrong)).await;
        assert_eq!(
            (failed.status, failed.body["code"].as_str()),
            (400, Some("three_ds_failed")),
            "{}",
            failed.body
        );
        let declined = event(&receiver, "card_debit_event.declined", |d| {
            d["transaction_reference"] == "tds-2"
        })
        .await;
        assert_eq!(
            (declined["decline_code"].as_str(), declined["currency"].as_str()),
            (Some("three_ds_failed"), Some("NGN"))
        );
        let late_right = s.post("/naira_cards/complete_3ds", answer("tds-2", &real)).await;
        assert_eq!(late_right.status, 400, "a failed challenge stays failed");

        // The OTP the webhook told completes a challenge no one read on the relay.
        let opened = s
            .patch("/naira_cards/mock_debit_naira_card", challenge("tds-told"))
            .await;
        assert_eq!(opened.status, 202, "{}", opened.body);
        let told = event(&receiver, "3d_secure_otp_event.generated", |d| {
            d["transaction_reference"] == "tds-told"
        })
        .await;
        let done = s
            .post(
                "/naira_cards/complete_3ds",
                answer("tds-told", told["otp"].as_str().unwrap()),
            )
            .await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(available(&s.naira_balance(&card).await.1), 4_950_000);

        // Left unanswered past five minutes: its expiry job declines it, and
        // even the right OTP no longer posts it.
        assert_eq!(
            s.patch("/naira_cards/mock_debit_naira_card", challenge("tds-3"))
                .await
                .status,
            202
        );
        let code = digits(&read_otp("25000").await);
        s.advance(301).await;
        assert_eq!(read_otp("25000").await.status, 400, "no OTP for an expired challenge");
        let expired = event(&receiver, "card_debit_event.declined", |d| {
            d["transaction_reference"] == "tds-3"
        })
        .await;
        assert_eq!(expired["decline_code"], "three_ds_failed");
        let late = s.post("/naira_cards/complete_3ds", answer("tds-3", &code)).await;
        assert_eq!(late.status, 400, "{}", late.body);
        assert_eq!(available(&s.naira_balance(&card).await.1), 4_950_000);

        // 3-D Secure is for Naira debits; a used reference is refused at once.
        s.fund_wallet(300).await;
        let usd = s.card(&holder, "300").await;
        let on_usd = json!({"card_id": usd, "three_ds": true});
        let refused = s.patch("/cards/mock_debit_transaction", on_usd).await;
        assert_eq!(refused.status, 400);
        assert!(
            refused.body["message"].as_str().unwrap().starts_with("three_ds:"),
            "{}",
            refused.body
        );
        // A challenge holds its reference from the start, answered or not.
        assert_eq!(
            s.patch("/naira_cards/mock_debit_naira_card", challenge("tds-4"))
                .await
                .status,
            202
        );
        for reference in ["tds-2", "tds-3", "tds-4"] {
            let plain = json!({"card_id": card, "amount": "100", "transaction_reference": reference});
            let taken = s.patch("/naira_cards/mock_debit_naira_card", plain).await;
            assert_eq!(
                taken.body["code"], "transaction_reference_used",
                "{reference}: {}",
                taken.body
            );
        }
        let reused = s.patch("/naira_cards/mock_debit_naira_card", challenge("tds-1")).await;
        assert_eq!(
            (reused.status, reused.body["code"].as_str()),
            (400, Some("transaction_reference_used"))
        );
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_processor_challenges_a_naira_authorization_and_completes_it_with_the_otp() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (secret, live_secret) = (
            "psk_sandbox_3ds_processor_secret_0123",
            "psk_live_3ds_processor_secret_01234",
        );
        let s = Sandbox::start_with(
            &db,
            Some(&receiver.url),
            &["--sandbox-processor-secret", secret, "--processor-secret", live_secret],
        );
        s.fund_ngn_wallet(10_000_000).await;
        let holder = s.cardholder(55).await;
        let card = s.funded_naira_card(&holder, 5_000_000).await;
        let authorization = |card: &str, reference: &str| {
            json!({"card_id": card, "amount": "40000", "merchant": "JUMIA NG LAGOS", "merchant_category_code": "5311",
                   "transaction_reference": reference, "three_ds": true})
        };
        let completion =
            |reference: &str, otp: &str| json!({"card_id": card, "transaction_reference": reference, "otp": otp});
        let complete =
            async |body: Value, key: &str| s.processor("authorizations/complete_3ds", &body, Some((key, 0))).await;

        // Challenged: nothing posts until the OTP comes back.
        let asked = s
            .processor("authorizations", &authorization(&card, "net-1"), Some((secret, 0)))
            .await;
        assert_eq!(asked.status, 200, "{}: {}", db.backend(), asked.body);
        assert_eq!(
            (
                asked.body["data"]["decision"].as_str(),
                asked.body["data"]["reason_code"].as_str()
            ),
            (Some("challenge"), Some("three_ds_required"))
        );
        assert_eq!(available(&s.naira_balance(&card).await.1), 5_000_000);
        let code = digits(&s.otp(&card, "40000").await);
        let again = complete(completion("net-1", wrong(&code)), secret).await;
        assert_eq!(
            (
                again.body["data"]["decision"].as_str(),
                again.body["data"]["reason_code"].as_str()
            ),
            (Some("challenge"), Some("wrong_otp")),
            "{}",
            again.body
        );
        assert_eq!(again.body["data"]["otp_attempts_left"], 2);
        // Signed for the other mode, or not at all: refused, and not counted.
        let live = complete(completion("net-1", &code), live_secret).await;
        assert_eq!(
            (live.status, live.body["code"].as_str()),
            (400, Some("card_not_found")),
            "{}",
            live.body
        );
        let unsigned = s
            .processor("authorizations/complete_3ds", &completion("net-1", &code), None)
            .await;
        assert_eq!(unsigned.status, 401);
        let approved = complete(completion("net-1", &code), secret).await;
        assert_eq!(
            (
                approved.body["data"]["decision"].as_str(),
                approved.body["data"]["reason_code"].as_str()
            ),
            (Some("approve"), Some("approved")),
            "{}",
            approved.body
        );
        assert!(approved.body["data"]["issuer_transaction_reference"].is_string());
        assert_eq!(available(&s.naira_balance(&card).await.1), 4_960_000);
        let twice = complete(completion("net-1", &code), secret).await;
        assert_eq!(twice.status, 400, "answered once: {}", twice.body);

        // The third wrong OTP declines it, with the event.
        s.processor("authorizations", &authorization(&card, "net-2"), Some((secret, 0)))
            .await;
        let code = digits(&s.otp(&card, "40000").await);
        for _ in 0..2 {
            complete(completion("net-2", wrong(&code)), secret).await;
        }
        let failed = complete(completion("net-2", wrong(&code)), secret).await;
        assert_eq!(
            (
                failed.body["data"]["decision"].as_str(),
                failed.body["data"]["reason_code"].as_str()
            ),
            (Some("decline"), Some("three_ds_failed")),
            "{}",
            failed.body
        );
        let declined = event(&receiver, "card_debit_event.declined", |d| {
            d["transaction_reference"] == "net-2"
        })
        .await;
        assert_eq!(declined["decline_code"], "three_ds_failed");
        assert_eq!(available(&s.naira_balance(&card).await.1), 4_960_000);

        // Voided by the processor while it waits: its OTP approves nothing.
        s.processor("authorizations", &authorization(&card, "net-6"), Some((secret, 0)))
            .await;
        let code = digits(&s.otp(&card, "40000").await);
        let void = json!({"card_id": card, "transaction_reference": "net-6", "reversal_reference": "void-net-6"});
        let voided = s.processor("reversals", &void, Some((secret, 0))).await;
        assert_eq!(voided.body["data"]["outcome"], "voided", "{}", voided.body);
        // The account hears of it as of an expired challenge.
        let declined = event(&receiver, "card_debit_event.declined", |d| {
            d["transaction_reference"] == "net-6"
        })
        .await;
        assert_eq!(declined["decline_code"], "three_ds_failed");
        let late = complete(completion("net-6", &code), secret).await;
        assert_ne!(late.body["data"]["decision"], "approve", "{}", late.body);
        assert_eq!(available(&s.naira_balance(&card).await.1), 4_960_000);
        // Nothing left to void: an approved debit is given back instead.
        let after = json!({"card_id": card, "transaction_reference": "net-2", "reversal_reference": "void-net-2"});
        let after = s.processor("reversals", &after, Some((secret, 0))).await;
        assert_eq!(
            after.body["data"]["outcome"], "no_such_debit",
            "a declined one: {}",
            after.body
        );

        // Only unforced Naira debits are challenged; the card must be there.
        s.fund_wallet(300).await;
        let usd = s.card(&holder, "300").await;
        let on_usd = s
            .processor("authorizations", &authorization(&usd, "net-3"), Some((secret, 0)))
            .await;
        assert_eq!(on_usd.status, 400, "{}", on_usd.body);
        let mut forced = authorization(&card, "net-4");
        forced["force"] = json!(true);
        let forced = s.processor("authorizations", &forced, Some((secret, 0))).await;
        assert_eq!(forced.status, 400, "{}", forced.body);
        let gone = s
            .processor(
                "authorizations",
                &authorization("card_nope", "net-5"),
                Some((secret, 0)),
            )
            .await;
        assert_eq!(gone.body["data"]["reason_code"], "card_not_found", "{}", gone.body);
        // Nor does the sandbox open a challenge on a card it does not know.
        let unknown = json!({"card_id": "card_nope", "amount": "100", "three_ds": true});
        let unknown = s.patch("/naira_cards/mock_debit_naira_card", unknown).await;
        assert_eq!(
            (unknown.status, unknown.body["code"].as_str()),
            (400, Some("card_not_found")),
            "{}",
            unknown.body
        );
        let foreign = crate::harness::client()
            .patch(s.server.url("/v1/issuing/sandbox/naira_cards/mock_debit_naira_card"))
            .header("token", crate::harness::bearer(&s.server.demo_key))
            .json(&json!({"card_id": card, "amount": "100", "three_ds": true}))
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status(), 400, "another account's card");
        // The network's fields follow the sandbox's rules.
        for (field, value) in [
            ("merchant_category_code", json!("54111")),
            ("merchant_category_code", json!("\u{0}\u{0}\u{0}\u{0}")),
            ("merchant", json!("JUMIA\u{0}NG")),
            ("merchant", json!("M".repeat(201))),
            ("transaction_reference", json!("net\u{0}7")),
        ] {
            let mut bad = authorization(&card, "net-7");
            bad["three_ds"] = json!(false);
            bad[field] = value;
            let refused = s.processor("authorizations", &bad, Some((secret, 0))).await;
            assert_eq!(refused.status, 400, "{field}: {}", refused.body);
            assert!(
                refused.body["message"].as_str().unwrap().starts_with(field),
                "{}",
                refused.body
            );
        }
        // A card deleted while its challenge waits: the OTP declines it,
        // recorded and told, and nothing moves.
        let doomed = s.funded_naira_card(&holder, 100_000).await;
        s.processor("authorizations", &authorization(&doomed, "net-8"), Some((secret, 0)))
            .await;
        let code = digits(&s.otp(&doomed, "40000").await);
        let unloaded = s
            .naira_transfer("unload_naira_card", &doomed, "100000", "net-8-unload")
            .await;
        assert_eq!(unloaded.0, 202, "{}", unloaded.1);
        let emptied = eventually(async || available(&s.naira_balance(&doomed).await.1), |b| *b == 0).await;
        assert_eq!(emptied, 0);
        assert_eq!(s.delete(&format!("/cards/delete_card/{doomed}")).await.status, 200);
        let completion = json!({"card_id": doomed, "transaction_reference": "net-8", "otp": code});
        let declined = s
            .processor("authorizations/complete_3ds", &completion, Some((secret, 0)))
            .await;
        assert_eq!(
            (declined.status, declined.body["data"]["reason_code"].as_str()),
            (200, Some("card_deleted")),
            "{}",
            declined.body
        );
        let told = event(&receiver, "card_debit_event.declined", |d| {
            d["transaction_reference"] == "net-8"
        })
        .await;
        assert_eq!(told["decline_code"], "card_deleted");
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

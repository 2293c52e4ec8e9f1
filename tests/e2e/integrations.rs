//! What public integrations of the original service send, exactly as
//! they send it (only their base URLs pointed here), on SQLite and
//! PostgreSQL.

use crate::cards::{Sandbox, event};
use crate::harness::{client, ledger_check};
use crate::naira_cards::{available, digits};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use reqwest::Method;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_created_without_a_limit_or_a_funding_gets_the_least_of_each() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(1).await;
        // Both integrations send no card_limit and no funding_amount.
        let bare = json!({"cardholder_id": holder, "card_type": "virtual", "card_brand": "Mastercard",
                          "card_currency": "USD", "pin": s.pin("4321")});
        let created = s.post("/cards/create_card", bare.clone()).await;
        assert_eq!(created.status, 200, "{}", created.body);
        let card = created.body["data"]["card_id"].as_str().unwrap().to_string();
        assert_eq!(s.wallet().await, 10_000 - 300, "{}", db.backend());
        assert_eq!(s.balance(&card).await, (300, 0), "the 5,000 USD limit's fee hold, held");
        let mut ten = bare.clone();
        ten["card_limit"] = json!("1000000");
        assert_eq!(s.post("/cards/create_card", ten).await.status, 200);
        assert_eq!(s.wallet().await, 10_000 - 300 - 400);
        // What is sent is read as ever.
        for (field, value) in [("card_limit", "700000"), ("card_limit", ""), ("funding_amount", "299")] {
            let mut body = bare.clone();
            body[field] = json!(value);
            let refused = s.post("/cards/create_card", body).await;
            assert_eq!(refused.status, 400, "{field}={value:?}: {}", refused.body);
            assert!(
                refused.body["message"].as_str().unwrap().starts_with(field),
                "{}",
                refused.body
            );
        }
        assert_eq!(s.wallet().await, 10_000 - 300 - 400);
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn naira_unloads_and_otps_take_the_method_each_integration_sends() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_ngn_wallet(10_000_000).await;
        let holder = s.cardholder(2).await;
        let card = s.funded_naira_card(&holder, 5_000_000).await;
        // POST on unload_naira_card, as one integration sends it.
        let unload = json!({"card_id": card, "amount": "1000000", "transaction_reference": "n-post-unload"});
        let posted = s.post("/naira_cards/unload_naira_card", unload).await;
        assert_eq!(posted.status, 202, "{}", posted.body);
        event(&receiver, "naira_card_unload_event.successful", |d| {
            d["transaction_reference"] == "n-post-unload"
        })
        .await;
        assert_eq!(available(&s.naira_balance(&card).await.1), 4_000_000);

        // POST on the relay's get_otp_message: the parameters in the query,
        // or in a JSON body (the amount a number).
        let challenge = |reference: &str| json!({"card_id": card, "amount": "25000", "transaction_reference": reference, "three_ds": true});
        let opened = s
            .patch("/naira_cards/mock_debit_naira_card", challenge("tds-post"))
            .await;
        assert_eq!(opened.status, 202, "{}", opened.body);
        let in_query = format!("/naira_cards/get_otp_message?card_id={card}&amount=25000");
        let by_query = s.call_at(&s.server.relay, Method::POST, &in_query, None).await;
        digits(&by_query);
        let in_body = json!({"card_id": card, "amount": 25000});
        let by_body = s
            .call_at(
                &s.server.relay,
                Method::POST,
                "/naira_cards/get_otp_message",
                Some(in_body),
            )
            .await;
        let code = digits(&by_body);
        let done = s
            .post(
                "/naira_cards/complete_3ds",
                json!({"card_id": card, "transaction_reference": "tds-post", "otp": code}),
            )
            .await;
        assert_eq!(done.status, 200, "the last OTP read counts: {}", done.body);
        let missing = s
            .call_at(
                &s.server.relay,
                Method::POST,
                "/naira_cards/get_otp_message",
                Some(json!({"card_id": card})),
            )
            .await;
        assert_eq!(missing.status, 400, "{}", missing.body);
        assert!(
            missing.body["message"].as_str().unwrap().contains("amount"),
            "{}",
            missing.body
        );
        let huge = json!({"card_id": card, "amount": 25000, "padding": "x".repeat(70_000)});
        let refused = s
            .call_at(
                &s.server.relay,
                Method::POST,
                "/naira_cards/get_otp_message",
                Some(huge),
            )
            .await;
        assert_eq!(
            (refused.status, refused.body["code"].as_str()),
            (413, Some("payload_too_large")),
            "as every body: {}",
            refused.body
        );
        let base = s
            .call(
                Method::POST,
                "/naira_cards/get_otp_message",
                Some(json!({"card_id": card, "amount": 1})),
            )
            .await;
        assert_eq!(base.status, 404, "the base address still has no OTPs");

        // Every other method mismatch is still a 405 naming the methods.
        for (method, path, allow) in [
            (Method::DELETE, "/naira_cards/unload_naira_card", "PATCH, POST"),
            (Method::PUT, "/naira_cards/get_otp_message", "GET, POST"),
            (Method::PATCH, "/naira_cards/fund_naira_card", "POST"),
        ] {
            let address = if path.ends_with("otp_message") {
                &s.server.relay
            } else {
                &s.server.base
            };
            let refused = client()
                .request(method.clone(), format!("{address}/v1/issuing/sandbox{path}"))
                .header("token", crate::harness::bearer(&s.key))
                .send()
                .await
                .unwrap();
            assert_eq!(refused.status().as_u16(), 405, "{method} {path}");
            assert_eq!(refused.headers()["allow"], allow, "{method} {path}");
        }
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fund_card_and_unload_card_answer_once_the_movement_settled() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(3).await;
        let card = s.card(&holder, "300").await;
        // Older integrations POST these, with the asynchronous body.
        let funded = s
            .post("/cards/fund_card", Sandbox::transfer(&card, "5000", "sync-fund"))
            .await;
        assert_eq!(funded.status, 200, "{}", funded.body);
        assert_eq!(
            funded.body["data"],
            json!({"card_id": card, "transaction_reference": "sync-fund"})
        );
        assert_eq!(s.balance(&card).await, (5300, 5000), "settled before the answer");
        event(&receiver, "card_credit_event.successful", |d| {
            d["transaction_reference"] == "sync-fund"
        })
        .await;
        // Sent again (a retry after a lost answer): the same funding, not a second.
        let again = s
            .post("/cards/fund_card", Sandbox::transfer(&card, "5000", "sync-fund"))
            .await;
        assert_eq!(again.status, 200, "{}", again.body);
        assert_eq!(s.balance(&card).await.0, 5300);
        // The reference of another amount, or of the other kind, is used.
        let other = s
            .post("/cards/fund_card", Sandbox::transfer(&card, "4000", "sync-fund"))
            .await;
        assert_eq!(other.body["code"], "transaction_reference_used", "{}", other.body);
        let unload_it = s
            .post("/cards/unload_card", Sandbox::transfer(&card, "5000", "sync-fund"))
            .await;
        assert_eq!(
            unload_it.body["code"], "transaction_reference_used",
            "{}",
            unload_it.body
        );
        // A Naira card's movement is no USD card's, whatever its reference.
        s.fund_ngn_wallet(10_000).await;
        let naira = s.funded_naira_card(&holder, 5000).await;
        let naira_fund = json!({"card_id": naira, "amount": "5000", "transaction_reference": format!("fund-{naira}")});
        let told = s.post("/cards/fund_card", naira_fund).await;
        assert_eq!(told.status, 400, "{}", told.body);

        // The limits of the asynchronous twins hold.
        let soon = s
            .post("/cards/fund_card", Sandbox::transfer(&card, "100", "sync-soon"))
            .await;
        assert_eq!(
            (soon.status, soon.body["code"].as_str()),
            (420, Some("card_funded_recently"))
        );

        let unloaded = s
            .post("/cards/unload_card", Sandbox::transfer(&card, "2000", "sync-unload"))
            .await;
        assert_eq!(unloaded.status, 200, "{}", unloaded.body);
        assert_eq!(s.balance(&card).await, (3300, 3000));
        assert_eq!(s.wallet().await, 100_000 - 300 - 3000);
        // One the network declines (the simulator: amounts ending in 0013)
        // is a 400 once its money is back; Sudo's gateway source declines none.
        s.advance(300).await;
        let declined = s
            .post("/cards/unload_card", Sandbox::transfer(&card, "13", "sync-declined"))
            .await;
        match crate::harness::on_fakes() {
            false => {
                assert_eq!(
                    (declined.status, declined.body["code"].as_str()),
                    (400, Some("transfer_failed")),
                    "{}",
                    declined.body
                );
                assert_eq!(s.balance(&card).await.0, 3300, "the money is back on the card");
            }
            true => assert_eq!(declined.status, 200, "{}", declined.body),
        }
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

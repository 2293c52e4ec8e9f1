//! What public integrations of the original service send, exactly as
//! they send it (only their base URLs pointed here), on SQLite and
//! PostgreSQL.

use crate::cards::Sandbox;
use crate::harness::ledger_check;
use adapters::test_db::TestDb;
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

use crate::harness::{Server, bearer, client, ledger_check};
use adapters::test_db::TestDb;
use serde_json::{Value, json};

async fn fund(server: &Server, key: &str, currency: &str, amount: &str) -> reqwest::Response {
    client()
        .patch(server.url(&format!(
            "/v1/issuing/sandbox/cards/fund_issuing_wallet?currency={currency}"
        )))
        .header("token", bearer(key))
        .json(&json!({ "amount": amount }))
        .send()
        .await
        .unwrap()
}

async fn balance(server: &Server, key: &str) -> Value {
    let response = client()
        .get(server.url("/v1/issuing/sandbox/cards/get_issuing_wallet_balance"))
        .header("token", bearer(key))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_walkthrough_funds_the_sandbox_wallet_and_reads_it() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let key = server.demo_key.clone();
        let funded = fund(&server, &key, "USD", "100000").await;
        assert_eq!(funded.status(), 200, "{}", db.backend());
        let body: Value = funded.json().await.unwrap();
        assert_eq!(body["status"], "success");
        assert_eq!(
            body["data"],
            json!({"currency": "USD", "amount": "100000", "issuing_balance": "100000"})
        );
        assert_eq!(fund(&server, &key, "NGN", "5000").await.status(), 200);
        let body = balance(&server, &key).await;
        assert_eq!(
            body["data"],
            json!({"issuing_balance_USD": "100000", "issuing_balance_NGN": "5000"})
        );

        let logs = server.stop();
        assert!(logs.contains("handled"), "requests are logged: {logs}");
        assert!(logs.contains("account_id=acct_"), "with the account: {logs}");
        assert!(!logs.contains(&key), "the key leaked into the logs");
        let (passed, report) = ledger_check(&db);
        assert!(passed, "{report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_fundings_over_http_sum_exactly() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let amounts: Vec<String> = (1..=50).map(|i| i.to_string()).collect();
        let calls = amounts
            .iter()
            .map(|amount| fund(&server, &server.demo_key, "USD", amount));
        for response in futures::future::join_all(calls).await {
            assert_eq!(response.status(), 200, "{}", db.backend());
        }
        let body = balance(&server, &server.demo_key).await;
        assert_eq!(
            body["data"]["issuing_balance_USD"],
            (50 * 51 / 2).to_string(),
            "{}",
            db.backend()
        );
        let (passed, report) = ledger_check(&db);
        assert!(passed, "{}: {report}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_funding_leaves_no_trace() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        assert_eq!(
            fund(&server, &server.demo_key, "USD", "9999999999000").await.status(),
            200
        );
        // The default maximum of a wallet is 10^13 minor units.
        let refused = fund(&server, &server.demo_key, "USD", "1001").await;
        assert_eq!(refused.status(), 400, "{}", db.backend());
        let body: Value = refused.json().await.unwrap();
        assert!(body["message"].as_str().unwrap().starts_with("amount:"), "{body}");
        for bad in ["-5", "1.50", "abc", ""] {
            assert_eq!(fund(&server, &server.demo_key, "USD", bad).await.status(), 400, "{bad}");
        }
        let body = balance(&server, &server.demo_key).await;
        assert_eq!(body["data"]["issuing_balance_USD"], "9999999999000");
        let (passed, report) = ledger_check(&db);
        assert!(passed, "{report}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_check_fails_and_names_a_tampered_balance() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        assert_eq!(fund(&server, &server.demo_key, "USD", "500").await.status(), 200);
        drop(server);
        db.execute("UPDATE ledger_accounts SET balance = balance + 7 WHERE code = 'issuing_wallet' AND currency = 'USD' AND livemode = FALSE")
            .await;
        let (passed, report) = ledger_check(&db);
        assert!(!passed, "{}", db.backend());
        assert!(
            report.contains("caches balance 507 but its postings sum to 500"),
            "{report}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_that_fail_to_parse_never_break_the_server() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        // More bad requests than the server has workers: a body that fails
        // while the key is being looked up must not cancel the lookup.
        for _ in 0..6 {
            let response = client()
                .patch(server.url("/v1/issuing/sandbox/cards/fund_issuing_wallet"))
                .header("token", bearer(&server.demo_key))
                .json(&json!({ "amount": true }))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 400, "{}", db.backend());
        }
        assert_eq!(fund(&server, &server.demo_key, "USD", "5").await.status(), 200);
        let logs = server.stop();
        assert!(!logs.contains("panicked"), "{logs}");
    }
}

use crate::harness::{Server, bearer, client, create_account, get_json};
use adapters::test_db::TestDb;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advancing_the_sandbox_by_301_seconds_lets_a_rate_limited_call_through_and_live_stays() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let created = create_account(&db, None);
        let (test, live) = (
            created["test_secret_key"].as_str().unwrap(),
            created["live_secret_key"].as_str().unwrap(),
        );
        let fx = |prefix: &'static str, key: &str| {
            client()
                .get(server.url(&format!("{prefix}/cards/fx-rate")))
                .header("token", bearer(key))
                .send()
        };
        assert_eq!(
            fx("/v1/issuing/sandbox", test).await.unwrap().status(),
            200,
            "{}",
            db.backend()
        );
        assert_eq!(fx("/v1/issuing/sandbox", test).await.unwrap().status(), 420);
        assert_eq!(fx("/v1/issuing", live).await.unwrap().status(), 200);
        assert_eq!(fx("/v1/issuing", live).await.unwrap().status(), 420);

        let advanced = client()
            .post(server.url("/v1/issuing/sandbox/test_clock/advance"))
            .header("token", bearer(test))
            .json(&json!({"seconds": 301}))
            .send()
            .await
            .unwrap();
        assert_eq!(advanced.status(), 200);
        let body: Value = advanced.json().await.unwrap();
        assert_eq!(body["data"]["offset_secs"], 301);

        assert_eq!(fx("/v1/issuing/sandbox", test).await.unwrap().status(), 200);
        assert_eq!(
            fx("/v1/issuing", live).await.unwrap().status(),
            420,
            "live mode never moves"
        );
        let (_, clock) = get_json(&server, test, "/v1/issuing/sandbox/test_clock").await;
        assert_eq!(clock["data"]["offset_secs"], 301);
        // Another account's sandbox did not move.
        let (_, other) = get_json(&server, &server.demo_key, "/v1/issuing/sandbox/test_clock").await;
        assert_eq!(other["data"]["offset_secs"], 0);
        // The clock has no production path, and bad input names the field.
        let live_path = client()
            .post(server.url("/v1/issuing/test_clock/advance"))
            .header("token", bearer(live))
            .json(&json!({"seconds": 5}))
            .send()
            .await
            .unwrap();
        assert_eq!(live_path.status(), 404);
        let bad = client()
            .post(server.url("/v1/issuing/sandbox/test_clock/advance"))
            .header("token", bearer(test))
            .json(&json!({"seconds": "soon"}))
            .send()
            .await
            .unwrap();
        assert_eq!(bad.status(), 400);
        let body: Value = bad.json().await.unwrap();
        assert!(body["message"].as_str().unwrap().starts_with("seconds:"), "{body}");
    }
}

/// The century limit is one conditional statement: advances raced
/// together cannot each read a clock below it and all pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advances_raced_together_stop_at_the_century_as_a_state_refusal() {
    const TEN_YEARS: i64 = 10 * 366 * 86_400;
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let key = &server.demo_key;
        let advance = || {
            client()
                .post(server.url("/v1/issuing/sandbox/test_clock/advance"))
                .header("token", bearer(key))
                .json(&json!({"seconds": TEN_YEARS}))
                .send()
        };
        let answers = futures::future::join_all((0..30).map(|_| advance())).await;
        let statuses: Vec<u16> = answers.iter().map(|a| a.as_ref().unwrap().status().as_u16()).collect();
        assert_eq!(
            statuses.iter().filter(|s| **s == 200).count(),
            10,
            "{}: {statuses:?}",
            db.backend()
        );
        assert_eq!(statuses.iter().filter(|s| **s == 409).count(), 20, "{statuses:?}");
        let refused = advance().await.unwrap();
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["code"], "sandbox_clock_limit", "{body}");
        let (_, clock) = get_json(&server, key, "/v1/issuing/sandbox/test_clock").await;
        assert_eq!(clock["data"]["offset_secs"], 10 * TEN_YEARS);
    }
}

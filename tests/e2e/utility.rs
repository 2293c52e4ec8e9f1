use crate::harness::{Server, client, openapi};
use adapters::test_db::TestDb;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_docs_and_openapi_are_served_with_request_ids() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let health = client().get(server.url("/health")).send().await.unwrap();
        assert_eq!(health.status(), 200, "{}", db.backend());
        assert!(health.headers().contains_key("x-request-id"));
        let body: Value = health.json().await.unwrap();
        assert_eq!(body["data"]["database"], "reachable");
        assert_eq!(body["data"]["parked_money_jobs"], 0, "{}", db.backend());

        let doc = openapi(&server).await;
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let docs = client().get(server.url("/v1/docs")).send().await.unwrap();
        assert_eq!(docs.status(), 200);
        assert!(docs.text().await.unwrap().contains("swagger-ui"));

        let missing = client().get(server.url("/v1/issuing/nothing")).send().await.unwrap();
        assert_eq!(missing.status(), 404);
        let body: Value = missing.json().await.unwrap();
        assert_eq!(body["code"], "not_found");
    }
}

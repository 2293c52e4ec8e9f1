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
        // It takes no key: it tells readiness and what live mode runs on,
        // nothing of the accounts' work nor any credential.
        assert_eq!(
            body["data"],
            serde_json::json!({"database": "reachable", "live_connectors": "simulated"}),
            "{}",
            db.backend()
        );

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_names_the_public_urls_or_else_the_listen_addresses() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let doc = openapi(&server).await;
        let api = server.url("");
        assert_eq!(doc["servers"][0]["url"], api.trim_end_matches('/'), "{}", db.backend());
        drop(server);

        let server = Server::start_with(
            &db,
            &[
                "--public-url",
                "https://api.example.com/",
                "--relay-public-url",
                "https://relay.example.com",
            ],
        );
        let doc = openapi(&server).await;
        assert_eq!(doc["servers"][0]["url"], "https://api.example.com", "{}", db.backend());
        let relay = &doc["paths"]["/v1/issuing/cards/get_card_details_from_token"]["servers"][0]["url"];
        assert_eq!(relay, "https://relay.example.com");
    }
}

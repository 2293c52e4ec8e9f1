//! What the edge refuses before anything reaches storage, the same on
//! both databases.

use crate::cards::Sandbox;
use adapters::test_db::TestDb;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nul_characters_are_refused_naming_the_field_on_both_databases() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(1_000).await;
        let holder = s.cardholder(91).await;
        let card = s.card(&holder, "300").await;
        let refused = [
            (
                "query",
                s.get("/cardholder/get_cardholder?cardholder_id=ch%00x").await,
                "cardholder_id",
            ),
            ("path", s.delete("/cards/delete_card/card%00x").await, "card_id"),
            (
                "merchant",
                s.patch(
                    "/cards/mock_debit_transaction",
                    json!({"card_id": card, "merchant": "NET\u{0}FLIX"}),
                )
                .await,
                "merchant",
            ),
            (
                "url",
                s.patch("/webhook", json!({"url": "https://hooks.test/\u{0}"})).await,
                "url",
            ),
            (
                "reference",
                s.patch(
                    "/cards/fund_card_asynchronously",
                    json!({"card_id": card, "amount": "100", "transaction_reference": "r\u{0}"}),
                )
                .await,
                "transaction_reference",
            ),
            ("key", s.patch("/webhook", json!({"url\u{0}": "x"})).await, "key"),
        ];
        for (what, answer, field) in refused {
            assert_eq!(answer.status, 400, "{}: {what}: {}", db.backend(), answer.body);
            let message = answer.body["message"].as_str().unwrap();
            assert!(message.starts_with(&format!("{field}: ")), "{what}: {message}");
            assert!(message.contains("NUL"), "{what}: {message}");
        }
        // Nothing moved.
        assert_eq!(s.balance(&card).await.0, 300);
    }
}

/// An extra field nested past the JSON parser's depth once hid a NUL
/// from the check, and on PostgreSQL the NUL then failed a whole batch of
/// debits: it is refused on the raw bytes, before any parse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nul_behind_a_deeply_nested_field_is_refused_before_any_parse() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(1_000).await;
        let holder = s.cardholder(93).await;
        let card = s.card(&holder, "300").await;
        let body = format!(
            r#"{{"card_id": "{card}", "merchant": "NET\u0000FLIX", "deep": {}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let answer = crate::harness::client()
            .patch(s.server.url("/v1/issuing/sandbox/cards/mock_debit_transaction"))
            .header("token", crate::harness::bearer(&s.key))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 400, "{}", db.backend());
        let body: serde_json::Value = answer.json().await.unwrap();
        assert_eq!(body["message"], "body: must not contain NUL characters", "{body}");
        // No debit was recorded.
        let list = s
            .get(&format!("/cards/get_card_transactions?card_id={card}&page=1"))
            .await;
        assert_eq!(list.body["data"]["transactions"], json!([]), "{}", list.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_parameter_given_twice_is_named() {
    let db = TestDb::sqlite();
    let s = Sandbox::start(&db, None);
    let holder = s.cardholder(92).await;
    let twice = s
        .get(&format!(
            "/cardholder/get_cardholder?cardholder_id={holder}&cardholder_id={holder}"
        ))
        .await;
    assert_eq!(twice.status, 400, "{}", twice.body);
    assert_eq!(twice.body["message"], "cardholder_id: must be given once");
    let missing = s.get("/cardholder/get_cardholder?other=1").await;
    assert_eq!(missing.body["message"], "cardholder_id: is required");
}

/// Through the real HTTP parser: a head over the service's limits answers
/// JSON; one past actix-http's own (128 KiB) still gets its bare 431.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_heads_answer_json_up_to_the_parsers_own_limit() {
    let db = TestDb::sqlite();
    let s = Sandbox::start(&db, None);
    let url = s.server.url("/v1/issuing/sandbox/cards/get_issuing_wallet_balance");
    // A connection of its own per request: the shared client's pool could
    // hand the last request a connection the server closed after its bare
    // 431, and the test would see that reset instead of the answer.
    let client = crate::harness::unpooled_client();
    let send = |header: String| {
        client
            .get(&url)
            .header("token", format!("Bearer {}", s.key))
            .header("x-padding", header)
            .send()
    };
    let over = send("v".repeat(40 * 1024)).await.unwrap();
    assert_eq!(over.status(), 431);
    let body: serde_json::Value = over.json().await.unwrap();
    assert_eq!(body["code"], "headers_too_large");
    let long = client
        .get(format!("{url}?x={}", "a".repeat(9 * 1024)))
        .header("token", format!("Bearer {}", s.key))
        .send()
        .await
        .unwrap();
    assert_eq!(long.status(), 414);
    assert_eq!(long.json::<serde_json::Value>().await.unwrap()["code"], "uri_too_long");
    // Past actix-http's own limit its dispatcher answers a bare 431 and
    // closes the connection, often while the client is still sending the
    // head, which then sees the reset instead.
    match send("v".repeat(200 * 1024)).await {
        Ok(bare) => {
            assert_eq!(bare.status(), 431);
            assert!(
                bare.bytes().await.unwrap_or_default().is_empty(),
                "actix-http's own answer"
            );
        }
        Err(reset) => assert!(reset.is_request(), "{reset}"),
    }
    let fine = send("v".repeat(1024)).await.unwrap();
    assert_eq!(fine.status(), 200);
}

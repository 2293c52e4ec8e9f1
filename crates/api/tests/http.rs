//! The HTTP conventions, checked through the real actix application over
//! mocked ports: envelopes, error bodies and statuses, limits, headers.

use actix_web::http::{Method, StatusCode};
use actix_web::{test, web};
use app::testing::Mocks;
use domain::ids::AccountId;
use domain::{Amount, Mode};
use ports::StoreError;
use ports::accounts::KeyOwner;
use ports::rate_limits::Permit;
use ports::wallets::WalletBalances;
use serde_json::Value;

const TEST_KEY: &str = "sk_test_0123456789abcdefghij0123456789abcdefghij";
const LIVE_KEY: &str = "sk_live_0123456789abcdefghij0123456789abcdefghij";

/// Mocks whose keys resolve to `acct_1` in their own mode.
fn authenticating() -> Mocks {
    let mut m = Mocks::default();
    m.accounts.expect_find_key().returning(|hash, _| {
        let mode = if hash.contains("sk_live_") {
            Mode::Live
        } else {
            Mode::Test
        };
        Ok(
            (hash != "h:sk_test_unknownunknownunknownunknownunknown").then(|| KeyOwner {
                account_id: AccountId::new("acct_1"),
                mode,
                expires_at: None,
            }),
        )
    });
    m.vault.expect_lookup_hash().returning(|k| format!("h:{k}"));
    m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
    m.test_clocks.expect_offset().returning(|_| Ok(0));
    m
}

async fn call(mocks: Mocks, req: test::TestRequest) -> (StatusCode, actix_web::http::header::HeaderMap, Value) {
    let service = test::init_service(issuing_api::build(
        web::Data::new(mocks.app()),
        issuing_api::Surface::Base,
        issuing_api::openapi::Served::new(&issuing_api::PublicUrls::default()),
    ))
    .await;
    let response = test::call_service(&service, req.to_request()).await;
    let (status, headers) = (response.status(), response.headers().clone());
    let body = test::read_body(response).await;
    let json = serde_json::from_slice(&body).unwrap_or_else(|_| panic!("not JSON: {body:?}"));
    (status, headers, json)
}

fn bearer(key: &str) -> (&'static str, String) {
    ("token", format!("Bearer {key}"))
}

fn fund(key: &str, body: &str) -> test::TestRequest {
    test::TestRequest::patch()
        .uri("/v1/issuing/sandbox/cards/fund_issuing_wallet?currency=USD")
        .insert_header(bearer(key))
        .insert_header(("content-type", "application/json"))
        .set_payload(body.to_string())
}

#[actix_web::test]
async fn health_is_200_with_the_envelope_and_a_request_id() {
    let mut m = Mocks::default();
    m.health.expect_ping().returning(|| Ok(()));
    let (status, headers, body) = call(m, test::TestRequest::get().uri("/health")).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "success");
    assert_eq!(body["data"]["database"], "reachable");
    assert_eq!(body["data"]["live_connectors"], "simulated");
    assert_eq!(
        body["data"].as_object().unwrap().len(),
        2,
        "nothing but readiness and what live mode runs on: {body}"
    );
    assert!(!headers.get("x-request-id").unwrap().is_empty());
}

#[actix_web::test]
async fn health_is_503_when_the_database_is_unreachable_and_says_nothing_internal() {
    let mut m = Mocks::default();
    m.health
        .expect_ping()
        .returning(|| Err(StoreError::new("connection refused to 10.0.0.1")));
    let (status, headers, body) = call(m, test::TestRequest::get().uri("/health")).await;
    assert_eq!(status, 503);
    assert_eq!(body["code"], "storage_unavailable");
    assert!(!body["message"].as_str().unwrap().contains("10.0.0.1"));
    assert_eq!(headers.get("retry-after").unwrap(), "1");
}

#[actix_web::test]
async fn shed_load_is_503_overloaded_with_retry_after() {
    let mut m = Mocks::default();
    m.health.expect_ping().returning(|| Err(StoreError::overloaded("pool")));
    let (status, headers, body) = call(m, test::TestRequest::get().uri("/health")).await;
    assert_eq!(status, 503);
    assert_eq!(body["code"], "overloaded");
    assert!(body["message"].as_str().unwrap().contains("Retry-After"), "{body}");
    assert_eq!(headers.get("retry-after").unwrap(), "1");
}

#[actix_web::test]
async fn liveness_is_200_without_touching_the_database() {
    let mut m = Mocks::default();
    m.health.expect_ping().never();
    let (status, _, body) = call(m, test::TestRequest::get().uri("/health/live")).await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["process"], "live");
}

/// Load balancers and monitors send HEAD.
#[actix_web::test]
async fn health_checks_answer_head_too() {
    let mut m = Mocks::default();
    m.health.expect_ping().times(1).returning(|| Ok(()));
    let (status, _, _) = call(m, test::TestRequest::default().method(Method::HEAD).uri("/health")).await;
    assert_eq!(status, 200);
    let (status, _, _) = call(
        Mocks::default(),
        test::TestRequest::default().method(Method::HEAD).uri("/health/live"),
    )
    .await;
    assert_eq!(status, 200);
    let (status, headers, _) = call(Mocks::default(), test::TestRequest::post().uri("/health")).await;
    assert_eq!(
        (status.as_u16(), headers.get("allow").unwrap().to_str().unwrap()),
        (405, "GET, HEAD")
    );
}

#[actix_web::test]
async fn a_sane_request_id_is_echoed() {
    let mut m = Mocks::default();
    m.health.expect_ping().returning(|| Ok(()));
    let req = test::TestRequest::get()
        .uri("/health")
        .insert_header(("x-request-id", "abc-123"));
    let (_, headers, _) = call(m, req).await;
    assert_eq!(headers.get("x-request-id").unwrap(), "abc-123");
}

#[actix_web::test]
async fn unknown_routes_are_json_404_and_wrong_methods_json_405() {
    let (status, headers, body) = call(Mocks::default(), test::TestRequest::get().uri("/v1/nothing")).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found"))
    );
    assert!(headers.contains_key("x-request-id"));
    for (uri, allow) in [
        ("/v1/issuing/sandbox/cards/fx-rate", "GET"),
        ("/v1/issuing/reward/rules", "GET, PATCH"),
        ("/v1/processor/authorizations", "POST"),
    ] {
        let req = test::TestRequest::delete().uri(uri);
        let (status, headers, body) = call(Mocks::default(), req).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::METHOD_NOT_ALLOWED, Some("method_not_allowed"))
        );
        assert_eq!(headers.get("allow").and_then(|v| v.to_str().ok()), Some(allow), "{uri}");
    }
}

#[actix_web::test]
async fn sandbox_helpers_do_not_exist_on_production_paths() {
    let req = test::TestRequest::patch()
        .uri("/v1/issuing/cards/fund_issuing_wallet")
        .insert_header(bearer(LIVE_KEY))
        .set_payload(r#"{"amount":"100"}"#);
    let (status, _, _) = call(Mocks::default(), req).await;
    assert_eq!(status, 404);
}

#[actix_web::test]
async fn keys_are_checked_for_presence_shape_existence_and_mode() {
    let cases = [
        (
            None,
            "/v1/issuing/sandbox/cards/get_issuing_wallet_balance",
            "missing_api_key",
        ),
        (
            Some("Bearer nope"),
            "/v1/issuing/sandbox/cards/get_issuing_wallet_balance",
            "malformed_api_key",
        ),
        (
            Some(LIVE_KEY),
            "/v1/issuing/sandbox/cards/get_issuing_wallet_balance",
            "malformed_api_key",
        ),
        (
            Some("Bearer sk_test_unknownunknownunknownunknownunknown"),
            "/v1/issuing/sandbox/cards/get_issuing_wallet_balance",
            "unknown_api_key",
        ),
        (
            Some(&format!("Bearer {LIVE_KEY}")),
            "/v1/issuing/sandbox/cards/get_issuing_wallet_balance",
            "wrong_mode_api_key",
        ),
        (
            Some(&format!("Bearer {TEST_KEY}")),
            "/v1/issuing/cards/get_issuing_wallet_balance",
            "wrong_mode_api_key",
        ),
    ];
    for (header, uri, code) in cases {
        let mut req = test::TestRequest::get().uri(uri);
        if let Some(h) = header {
            req = req.insert_header(("token", h.to_string()));
        }
        let (status, _, body) = call(authenticating(), req).await;
        assert_eq!(status, 401, "{header:?} {uri}");
        assert_eq!(body["code"], code, "{header:?} {uri}");
        assert!(
            !body.to_string().contains("0123456789abcdefghij"),
            "the key is echoed: {body}"
        );
    }
    // Two token headers, even both valid: no first-wins.
    let twice = test::TestRequest::get()
        .uri("/v1/issuing/sandbox/cards/get_issuing_wallet_balance")
        .append_header(("token", format!("Bearer {TEST_KEY}")))
        .append_header(("token", format!("Bearer {TEST_KEY}")));
    let (status, _, body) = call(authenticating(), twice).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("malformed_api_key")),
        "{body}"
    );
    // `Authorization: Bearer` is read as `token` is: a live key there is
    // the wrong mode, not a missing one; with `token` too, two keys.
    let by_authorization = |key: &str| {
        test::TestRequest::get()
            .uri("/v1/issuing/sandbox/cards/get_issuing_wallet_balance")
            .insert_header(("Authorization", format!("Bearer {key}")))
    };
    let (status, _, body) = call(authenticating(), by_authorization(LIVE_KEY)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("wrong_mode_api_key"))
    );
    let both = by_authorization(TEST_KEY).insert_header(("token", format!("Bearer {TEST_KEY}")));
    let (status, _, body) = call(authenticating(), both).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("malformed_api_key"))
    );
}

#[actix_web::test]
async fn funding_answers_the_new_balance_for_a_digit_string_or_an_integer() {
    for amount in [r#""2500""#, "2500"] {
        let mut m = authenticating();
        m.wallets
            .expect_fund_from_faucet()
            .withf(|_, mode, _, amount, _, _| *mode == Mode::Test && amount.minor() == 2_500)
            .returning(|_, _, _, _, _, _| Ok(Amount::from_minor(12_500).unwrap()));
        let (status, _, body) = call(m, fund(TEST_KEY, &format!(r#"{{"amount":{amount}}}"#))).await;
        assert_eq!(status, 200, "{amount}: {body}");
        assert_eq!(body["data"]["issuing_balance"], "12500");
        assert_eq!(body["data"]["currency"], "USD");
    }
}

#[actix_web::test]
async fn bad_bodies_are_400_naming_the_field() {
    let cases = [
        ("", "body"),
        ("{", "body"),
        ("{}", "amount: is required"),
        (r#"{"amount": -25}"#, "amount: must be a whole number"),
        (r#"{"amount": 2.5}"#, "amount: must be a whole number"),
        (r#"{"amount": 1e300}"#, "amount: must be a whole number"),
        (r#"{"amount": 4.99999999999999999}"#, "amount: must be a whole number"),
        (r#"{"amount": 2.5e3}"#, "amount: must be a whole number"),
        (r#"[null]"#, "body: must be a JSON object"),
        (r#"["25"]"#, "body: must be a JSON object"),
        (r#"{"amount": true}"#, "amount: invalid type"),
        (r#"{"amount": "25"} trailing garbage"#, "body: is not valid JSON"),
        (r#"{"amount": " 25 "}"#, "amount: must be a whole number"),
        (r#"{"amount": "-25"}"#, "amount: must be a whole number"),
        (r#"{"amount": "2.5"}"#, "amount: must be a whole number"),
        (r#"{"amount": "0"}"#, "amount: must be greater than zero"),
        (r#"{"amount": "99999999999999999999"}"#, "amount: must be at most"),
    ];
    for (payload, expected) in cases {
        let (status, _, body) = call(authenticating(), fund(TEST_KEY, payload)).await;
        assert_eq!(status, 400, "{payload}");
        let message = body["message"].as_str().unwrap();
        assert!(message.starts_with(expected), "{payload}: {message}");
        assert_eq!(body["code"], "invalid_request");
    }
    let req = fund(TEST_KEY, r#"{"amount":"1"}"#).uri("/v1/issuing/sandbox/cards/fund_issuing_wallet?currency=EUR");
    let (status, _, body) = call(authenticating(), req).await;
    assert_eq!(status, 400);
    assert_eq!(body["message"], "currency: must be one of USD, NGN");
}

#[actix_web::test]
async fn bodies_over_64_kib_are_413() {
    let big = format!(r#"{{"amount":"1","pad":"{}"}}"#, "x".repeat(70 * 1024));
    let (status, _, body) = call(authenticating(), fund(TEST_KEY, &big)).await;
    assert_eq!(status, 413);
    assert_eq!(body["code"], "payload_too_large");
}

#[actix_web::test]
async fn balances_in_both_modes() {
    for (key, prefix, mode) in [
        (TEST_KEY, "/v1/issuing/sandbox", Mode::Test),
        (LIVE_KEY, "/v1/issuing", Mode::Live),
    ] {
        let mut m = authenticating();
        m.wallets
            .expect_balances()
            .withf(move |_, m| *m == mode)
            .returning(|_, _| {
                Ok(WalletBalances {
                    usd: Amount::from_minor(7).unwrap(),
                    ngn: Amount::from_minor(9).unwrap(),
                })
            });
        let req = test::TestRequest::get()
            .uri(&format!("{prefix}/cards/get_issuing_wallet_balance"))
            .insert_header(bearer(key));
        let (status, _, body) = call(m, req).await;
        assert_eq!(status, 200);
        assert_eq!(body["data"]["issuing_balance_USD"], "7");
        assert_eq!(body["data"]["issuing_balance_NGN"], "9");
    }
}

#[actix_web::test]
async fn fx_rate_twice_in_a_minute_is_420_with_retry_after() {
    let mut m = authenticating();
    m.rate_limits
        .expect_acquire()
        .returning(|_, _, _, _, _, _| Ok(Permit::Denied { retry_after_secs: 37 }));
    let req = test::TestRequest::get()
        .uri("/v1/issuing/cards/fx-rate")
        .insert_header(bearer(LIVE_KEY));
    let (status, headers, body) = call(m, req).await;
    assert_eq!(status.as_u16(), 420);
    assert_eq!(headers.get("retry-after").unwrap(), "37");
    assert_eq!(body["code"], "rate_limited");

    let mut m = authenticating();
    m.rate_limits
        .expect_acquire()
        .returning(|_, _, _, _, _, _| Ok(Permit::Granted));
    let req = test::TestRequest::get()
        .uri("/v1/issuing/cards/fx-rate")
        .insert_header(bearer(LIVE_KEY));
    let (status, _, body) = call(m, req).await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["NGN-USD"], "160000");
    assert_eq!(body["data"]["USD-NGN"], "155000");
}

#[actix_web::test]
async fn the_openapi_document_and_the_docs_page_are_served() {
    let (status, _, body) = call(Mocks::default(), test::TestRequest::get().uri("/v1/openapi.json")).await;
    assert_eq!(status, 200);
    assert!(body["paths"]["/v1/issuing/sandbox/cards/fund_issuing_wallet"]["patch"].is_object());

    let service = test::init_service(issuing_api::build(
        web::Data::new(Mocks::default().app()),
        issuing_api::Surface::Base,
        issuing_api::openapi::Served::new(&issuing_api::PublicUrls::default()),
    ))
    .await;
    let response = test::call_service(&service, test::TestRequest::get().uri("/v1/docs/").to_request()).await;
    assert_eq!(response.status(), 200);
    let page = String::from_utf8(test::read_body(response).await.to_vec()).unwrap();
    assert!(page.contains("swagger-ui"), "{page}");
    let redirect = test::call_service(&service, test::TestRequest::get().uri("/v1/docs").to_request()).await;
    assert!(redirect.status().is_redirection());
}

#[actix_web::test]
async fn oversized_heads_are_json_414_and_431_and_heads_at_the_limits_pass() {
    let path = "/v1/issuing/sandbox/cards/get_issuing_wallet_balance?x=";
    let at = |n: usize| format!("{path}{}", "a".repeat(n - path.len()));
    let (status, headers, body) = call(Mocks::default(), test::TestRequest::get().uri(&at(8 * 1024 + 1))).await;
    assert_eq!(
        (status.as_u16(), body["code"].as_str()),
        (414, Some("uri_too_long")),
        "{body}"
    );
    assert!(headers.contains_key("x-request-id"));

    let many = (0..65).fold(test::TestRequest::get().uri(path), |r, i| {
        r.insert_header((format!("x-h{i}"), "v"))
    });
    let (status, _, body) = call(Mocks::default(), many).await;
    assert_eq!(
        (status.as_u16(), body["code"].as_str()),
        (431, Some("headers_too_large")),
        "{body}"
    );

    let big = test::TestRequest::get()
        .uri(path)
        .insert_header(("x-big", "v".repeat(32 * 1024)));
    let (status, _, body) = call(Mocks::default(), big).await;
    assert_eq!(status.as_u16(), 431, "{body}");

    // At the limits, the request reaches the key check.
    let long = test::TestRequest::get()
        .uri(&at(8 * 1024))
        .insert_header(("x-big", "v".repeat(16 * 1024)));
    let (status, _, body) = call(authenticating(), long).await;
    assert_eq!(status.as_u16(), 401, "{body}");
}

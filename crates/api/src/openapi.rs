//! The OpenAPI document, generated from the handlers' annotations, served
//! at `/v1/openapi.json` and rendered offline by the vendored Swagger UI
//! at `/v1/docs/`.

mod links;
mod request_rules;

use crate::error_codes::CATALOGUE;
use crate::{PublicUrls, routes};
use actix_web::http::Method;
use actix_web::{HttpResponse, web};
use domain::events::payloads::{
    CardAuthorization, CardCreated, CardDebit, CardDeleteNotice, CardDeleted, CardMovement, CardReversal,
    CardTransferSettled, CardholderVerification, RewardAssigned, ThreeDsOtp, WebhookTest,
};
use domain::events::*;
use utoipa::openapi::path::{HttpMethod, OperationBuilder};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::server::Server;
use utoipa::openapi::{
    ContentBuilder, ObjectBuilder, OpenApi as Document, PathItem, Paths, Ref, ResponseBuilder, Type,
};
use utoipa::{Modify, OpenApi};
use utoipa_swagger_ui::{Config, SwaggerUi};

const PRODUCTION: &str = "/v1/issuing/";
const SANDBOX: &str = "/v1/issuing/sandbox/";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Card issuing API",
        version = "0.1.0",
        description = "Register cardholders, issue USD and NGN cards, move money between issuing wallets and cards. \
            Production paths `/v1/issuing/...` take a live key, sandbox paths `/v1/issuing/sandbox/...` a test key, \
            in the header `token: Bearer <secret key>`. Amounts are strings of minor units (cents, kobo). \
            Errors are `{message, code}`; rate-limited calls answer 420 with `Retry-After`."
    ),
    paths(
        routes::health::health,
        routes::health::live,
        routes::wallets::fund_issuing_wallet,
        routes::wallets::get_issuing_wallet_balance,
        routes::fx::get_fx_rate,
        routes::webhook::set_webhook_url,
        routes::cardholders::register_cardholder_synchronously,
        routes::cardholders::register_cardholder,
        routes::cardholders::update_cardholder,
        routes::cardholders::get_cardholder,
        routes::cardholders::delete_cardholder,
        routes::cardholders::get_all_states,
        routes::cardholders::get_all_lga,
        routes::cardholders::get_all_cardholder,
        routes::cards::create_card,
        routes::cards::activate_physical_card,
        routes::cards::get_card_details,
        routes::cards::get_card_balance,
        routes::card_money::fund_card_asynchronously,
        routes::card_money::unload_card_asynchronously,
        routes::card_money::fund_card,
        routes::card_money::unload_card,
        routes::cards::freeze_card,
        routes::cards::unfreeze_card,
        routes::cards::get_all_cardholder_cards,
        routes::cards::get_all_cards,
        routes::cards::delete_card,
        routes::cards::update_card_pin,
        routes::cards::set_3d_secure_pin,
        routes::cards::generate_token_for_card_details,
        routes::cards::migrate_card,
        routes::card_transactions::mock_debit_transaction,
        routes::card_transactions::get_card_transactions,
        routes::card_transactions::get_card_transaction_by_id,
        routes::card_transactions::get_naira_card_transactions,
        routes::card_transactions::list_transactions,
        routes::card_transactions::mock_debit_naira_card,
        routes::card_money::fund_naira_card,
        routes::card_money::unload_naira_card,
        routes::card_money::unload_naira_card_by_post,
        routes::naira_cards::get_card_balance,
        routes::naira_cards::freeze_card,
        routes::naira_cards::unfreeze_card,
        routes::relay::get_card_details_from_token,
        routes::relay::get_otp_message,
        routes::relay::post_otp_message,
        routes::card_transactions::complete_3ds,
        routes::processor::authorize,
        routes::processor::complete_3ds,
        routes::processor::reverse,
        routes::processor::capture,
        routes::connectors::sudo_gateway,
        routes::connectors::smileid_callback,
        routes::events::list_events,
        routes::events::get_event,
        routes::events::redeliver_event,
        routes::events::send_test_event,
        routes::rewards::assign_reward,
        routes::rewards::get_cardholder_rewards,
        routes::rewards::get_rules,
        routes::rewards::update_rules,
        routes::authorizations::create_authorization,
        routes::authorizations::capture,
        routes::authorizations::reverse,
        routes::authorizations::increment,
        routes::authorizations::expire,
        routes::authorizations::refund,
        routes::spending_controls::get_card_controls,
        routes::spending_controls::set_card_controls,
        routes::spending_controls::get_account_controls,
        routes::spending_controls::set_account_controls,
        routes::test_clock::advance_test_clock,
        routes::test_clock::get_test_clock,
    ),
    components(schemas(
        CardholderVerification,
        CardCreated,
        CardMovement,
        CardTransferSettled,
        CardDebit,
        CardReversal,
        CardAuthorization,
        ThreeDsOtp,
        CardDeleted,
        CardDeleteNotice,
        RewardAssigned,
        WebhookTest
    )),
    modifiers(&TokenHeader),
    tags(
        (name = "utility", description = "Health and documentation"),
        (name = "wallets", description = "Issuing wallets and exchange rates"),
        (name = "cardholders", description = "Registration with identity verification, and the cardholder record"),
        (name = "cards", description = "Cards: issue, read, fund and unload, freeze, PINs, delete"),
        (name = "rewards", description = "Rewards: a cardholder's promo codes and deals, and the account's reward rules"),
        (name = "spending controls", description = "Extension: what a card may be used for (merchant categories, channels, \
            countries) and how much (per authorization, day, week, month, life), per card and for every card of a mode"),
        (name = "naira cards", description = "Naira cards: balance, funding and unloading from the NGN wallet, freeze, history"),
        (name = "relay", description = "The relay address (`--relay-listen`) serves every path of the API with card numbers, \
            CVVs and expiry dates in clear; these paths only it serves"),
        (name = "processor", description = "For the card processor: real-time authorization, signed with the processor secret"),
        (name = "connectors", description = "For the live connectors' providers: what they call back, authenticated as each documents"),
        (name = "events", description = "Webhook events: the log, redelivery, the endpoint"),
        (name = "sandbox", description = "Sandbox helpers"),
    )
)]
struct ApiDoc;

struct TokenHeader;

impl Modify for TokenHeader {
    fn modify(&self, doc: &mut Document) {
        let components = doc.components.get_or_insert_with(Default::default);
        let scheme = ApiKey::Header(ApiKeyValue::with_description(
            "token",
            "`Bearer sk_test_...` on sandbox paths, `Bearer sk_live_...` on production paths; \
             `Authorization: Bearer ...` is taken the same (one of the two headers, not both)",
        ));
        components.add_security_scheme("token", SecurityScheme::ApiKey(scheme));
    }
}

/// Every operation of `item`, whichever method it is under.
fn operations(item: &mut PathItem) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.options,
        &mut item.head,
        &mut item.patch,
        &mut item.trace,
    ]
    .into_iter()
    .filter_map(Option::as_mut)
}

/// Endpoints served in both modes are annotated once, on their production
/// path; this adds their sandbox twin with its own operation id.
fn mirror_into_sandbox(doc: &mut Document) {
    let twins: Vec<(String, PathItem)> = doc
        .paths
        .paths
        .iter()
        .filter(|(path, _)| path.starts_with(PRODUCTION) && !path.starts_with(SANDBOX))
        .map(|(path, item)| {
            let mut twin = item.clone();
            for op in operations(&mut twin) {
                op.operation_id = op.operation_id.take().map(|id| format!("{id}_sandbox"));
            }
            (format!("{SANDBOX}{}", &path[PRODUCTION.len()..]), twin)
        })
        .collect();
    doc.paths.paths.extend(twins);
}

/// The answers any operation can give, documented on every one that does
/// not say them itself: 414 and 431 for an oversized head; on keyed ones
/// 401 for a missing, unknown or wrong-mode key and 503 when the database
/// cannot be reached (the check of the key reads it); and 413 for a body
/// over 64 KiB where there is a body.
fn document_common_answers(doc: &mut Document) {
    for item in doc.paths.paths.values_mut() {
        for op in operations(item) {
            let keyed = op.security.as_ref().is_some_and(|s| !s.is_empty());
            let answers = [
                (true, "414", "Path and query over 8 KiB"),
                (true, "431", "More than 64 headers, or over 32 KiB of them"),
                (keyed, "401", "Missing, unknown or wrong-mode key"),
                (keyed, "503", "The database cannot be reached: retry later"),
                (op.request_body.is_some(), "413", "Body over 64 KiB"),
            ];
            for (applies, status, description) in answers {
                if !applies || op.responses.responses.contains_key(status) {
                    continue;
                }
                let body = ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("ErrorBody")))
                    .build();
                let answer = ResponseBuilder::new()
                    .description(description)
                    .content("application/json", body)
                    .build();
                op.responses.responses.insert(status.to_string(), answer.into());
            }
        }
    }
}

/// The document names the API's public URL as its server, and relay
/// endpoints the relay's.
fn name_the_servers(doc: &mut Document, urls: &PublicUrls) {
    doc.servers = Some(vec![Server::new(&urls.api)]);
    for item in doc.paths.paths.values_mut() {
        let on_relay = operations(item).any(|op| op.tags.as_ref().is_some_and(|t| t.iter().any(|t| t == "relay")));
        if on_relay {
            let mut relay = Server::new(&urls.relay);
            relay.description = Some("the card-details relay (`issuing serve --relay-listen`)".to_string());
            item.servers = Some(vec![relay]);
        }
    }
}

/// Every event the service sends: its name, its payload's schema, and
/// when it is sent.
const WEBHOOKS: [(&str, &str, &str); 25] = [
    (
        CARDHOLDER_VERIFICATION_SUCCESSFUL,
        "CardholderVerification",
        "A cardholder was verified: cards can be issued.",
    ),
    (
        CARDHOLDER_VERIFICATION_MANUAL_REVIEW,
        "CardholderVerification",
        "A cardholder's identity goes to manual review.",
    ),
    (
        CARDHOLDER_VERIFICATION_FAILED,
        "CardholderVerification",
        "A cardholder's verification failed.",
    ),
    (
        CARD_CREATION_SUCCESSFUL,
        "CardCreated",
        "A card was issued, activated or migrated.",
    ),
    (
        CARD_CREDIT_SUCCESSFUL,
        "CardTransferSettled",
        "A funding reached the card.",
    ),
    (
        CARD_CREDIT_FAILED,
        "CardTransferSettled",
        "A funding failed; the money is back in the wallet.",
    ),
    (
        CARD_UNLOAD_SUCCESSFUL,
        "CardTransferSettled",
        "An unloading reached the wallet.",
    ),
    (
        CARD_UNLOAD_FAILED,
        "CardTransferSettled",
        "An unloading failed; the money is back on the card.",
    ),
    (
        CARD_DEBIT_SUCCESSFUL,
        "CardDebit",
        "Beyond the contract, as the original service sends it: a debit was approved (USD and Naira cards), \
         with the merchant's enrichment.",
    ),
    (CARD_DEBIT_DECLINED, "CardDebit", "A debit was declined."),
    (
        THREE_DS_OTP_GENERATED,
        "ThreeDsOtp",
        "Beyond the contract, as the original service sends it: a Naira debit's 3-D Secure challenge opened; \
         `otp` is for the fintech to give its user (the last OTP issued for the challenge counts).",
    ),
    (
        CARD_MAINTENANCE_FEE_SUCCESSFUL,
        "CardDebit",
        "The monthly maintenance fee was charged from the held amount.",
    ),
    (
        CARD_REVERSAL_SUCCESSFUL,
        "CardReversal",
        "Beyond the contract, as the original service sends it: the card processor gave back (part of) an \
         approved debit (a refund, or a reversal of what it declined or cleared for less), to the card or, \
         when the card is deleted or full, to the issuing wallet.",
    ),
    (
        CARD_AUTHORIZATION_CREATED,
        "CardAuthorization",
        "Extension: an authorization's hold was placed (`card_transaction_type` AUTHORIZATION), or raised by an \
         increment (INCREMENT, with the increment's own `issuer_transaction_reference`); the card's available \
         balance dropped by `amount`.",
    ),
    (
        CARD_AUTHORIZATION_CAPTURED,
        "CardAuthorization",
        "Extension: an authorization was captured for `amount` (its capture's `issuer_transaction_reference`, \
         refundable); what was not captured went back (`released_amount`, `released_to`). State `closed`.",
    ),
    (
        CARD_AUTHORIZATION_REVERSED,
        "CardAuthorization",
        "Extension: `amount` of an authorization's hold was released: in part (state still `pending`) or in \
         full (`reversed`).",
    ),
    (
        CARD_AUTHORIZATION_EXPIRED,
        "CardAuthorization",
        "Extension: an authorization left uncaptured past its expiry released its hold. State `expired`.",
    ),
    (
        CARD_REFUND_SUCCESSFUL,
        "CardReversal",
        "Extension: a captured transaction (or a debit) was refunded, to the card or, when the card is deleted \
         or full, to the issuing wallet; `card_reversal_event.successful` tells it too.",
    ),
    (
        CARD_DELETE_SUCCESSFUL,
        "CardDeleted",
        "A card was deleted by a rule or with its cardholder; its balance went back to the wallet.",
    ),
    (
        CARD_DELETE_NOTIFICATION,
        "CardDeleteNotice",
        "An inactive card will be deleted on the date given.",
    ),
    (
        NAIRA_CARD_CREDIT_SUCCESSFUL,
        "CardTransferSettled",
        "A Naira card's funding reached the card.",
    ),
    (
        NAIRA_CARD_CREDIT_FAILED,
        "CardTransferSettled",
        "A Naira card's funding failed (the money is back in the NGN wallet), or its unloading failed \
         (the money is back on the card): the contract names both so.",
    ),
    (
        NAIRA_CARD_UNLOAD_SUCCESSFUL,
        "CardTransferSettled",
        "A Naira card's unloading reached the NGN wallet.",
    ),
    (
        REWARD_ASSIGNED_SUCCESSFUL,
        "RewardAssigned",
        "A cardholder earned a reward: assigned in the sandbox, or by one of the account's reward rules.",
    ),
    (
        WEBHOOK_TEST,
        "WebhookTest",
        "Sent on request (sandbox), to try an endpoint.",
    ),
];

/// OpenAPI 3.1 `webhooks`: what each event POSTs to the account's URL,
/// `{event, event_id, created_at, data}` with the event's payload.
fn webhooks(doc: &mut Document) {
    let mut paths = Paths::new();
    for (name, payload, when) in WEBHOOKS {
        let body = ObjectBuilder::new()
            .property(
                "event",
                ObjectBuilder::new().schema_type(Type::String).enum_values(Some([name])),
            )
            .property("event_id", ObjectBuilder::new().schema_type(Type::String))
            .property(
                "created_at",
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .description(Some("Unix seconds")),
            )
            .property("data", Ref::from_schema_name(payload))
            .required("event")
            .required("event_id")
            .required("created_at")
            .required("data");
        let operation = OperationBuilder::new()
            .operation_id(Some(name.replace('.', "_")))
            .summary(Some(name))
            .description(Some(format!(
                "{when} Signed with the mode's webhook secret in `x-issuing-signature` (see docs/api.md)."
            )))
            .request_body(Some(
                RequestBodyBuilder::new()
                    .content("application/json", ContentBuilder::new().schema(Some(body)).build())
                    .required(Some(utoipa::openapi::Required::True))
                    .build(),
            ))
            .response(
                "200",
                ResponseBuilder::new()
                    .description("Any 2xx: delivered; else retried")
                    .build(),
            )
            .build();
        paths
            .paths
            .insert(name.to_string(), PathItem::new(HttpMethod::Post, operation));
    }
    doc.webhooks = Some(paths);
}

/// The document of every implemented endpoint and every webhook, as JSON
/// (the field rules are applied to it as JSON).
pub fn document(urls: &PublicUrls) -> serde_json::Value {
    let mut doc = ApiDoc::openapi();
    document_common_answers(&mut doc);
    mirror_into_sandbox(&mut doc);
    name_the_servers(&mut doc, urls);
    webhooks(&mut doc);
    let mut json = serde_json::to_value(&doc).expect("the document is JSON");
    take_idempotency_keys(&mut json);
    request_rules::apply(&mut json);
    links::add(&mut json);
    catalogue_error_codes(&mut json);
    drop_unreferenced_schemas(&mut json);
    json
}

/// Every keyed write takes an `Idempotency-Key` (the relay's reads sent
/// by POST do not), with its three answers.
fn take_idempotency_keys(doc: &mut serde_json::Value) {
    use domain::idempotency::HEADER;
    let parameter = serde_json::json!({
        "name": HEADER,
        "in": "header",
        "required": false,
        "description": "Runs the write once: a retry with the same key and request gets the first answer again \
                        (with `Idempotent-Replayed: true`) for 24 hours",
        "schema": {"type": "string"},
    });
    let answers = [
        (
            "400",
            "A field breaks its rule, or the Idempotency-Key is not 1 to 255 visible ASCII characters",
        ),
        ("409", "A request with this Idempotency-Key is still running"),
        ("422", "This Idempotency-Key was used for another request"),
    ];
    let paths = doc["paths"].as_object_mut().expect("the document has paths");
    for (_, item) in paths.iter_mut().filter(|(path, _)| path.starts_with(PRODUCTION)) {
        for method in ["post", "put", "patch", "delete"] {
            let Some(op) = item.get_mut(method) else { continue };
            let relay = op["tags"]
                .as_array()
                .is_some_and(|t| t.contains(&serde_json::json!("relay")));
            if relay || op["security"].as_array().is_none_or(Vec::is_empty) {
                continue;
            }
            let parameters = op["parameters"].as_array_mut();
            match parameters {
                Some(parameters) => parameters.push(parameter.clone()),
                None => op["parameters"] = serde_json::json!([parameter]),
            }
            for (status, description) in answers {
                let responses = &mut op["responses"];
                if responses.get(status).is_none() {
                    responses[status] = serde_json::json!({
                        "description": description,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
                    });
                }
            }
        }
    }
}

/// An error's `code` is one of the catalogue's, each explained.
fn catalogue_error_codes(doc: &mut serde_json::Value) {
    let code = &mut doc["components"]["schemas"]["ErrorBody"]["properties"]["code"];
    let rows: String = CATALOGUE
        .iter()
        .map(|c| format!("\n| `{}` | {} | {} |", c.code, c.status, c.meaning))
        .collect();
    code["description"] =
        format!("A stable machine-readable code:\n\n| Code | Status | Meaning |\n|---|---|---|{rows}").into();
    code["enum"] = CATALOGUE.iter().map(|c| c.code).collect();
}

/// Drops the component schemas nothing refers to: the request bodies,
/// which their operations now carry inline with their rules.
fn drop_unreferenced_schemas(doc: &mut serde_json::Value) {
    fn refs(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(r) = map.get("$ref").and_then(|r| r.as_str()) {
                    found.push(r.trim_start_matches("#/components/schemas/").to_string());
                }
                map.values().for_each(|v| refs(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
            _ => {}
        }
    }
    let mut schemas = doc["components"]["schemas"].take();
    let mut pending = Vec::new();
    refs(doc, &mut pending);
    let mut wanted = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if wanted.insert(name.clone()) {
            refs(&schemas[&name], &mut pending);
        }
    }
    if let Some(all) = schemas.as_object_mut() {
        all.retain(|name, _| wanted.contains(name));
    }
    doc["components"]["schemas"] = schemas;
}

/// The document, serialized once per process and shared by every worker
/// of both listeners (each held its own copy, parsed, before).
#[derive(Clone)]
pub struct Served(web::Bytes);

impl Served {
    pub fn new(urls: &PublicUrls) -> Self {
        Self(
            serde_json::to_vec(&document(urls))
                .expect("the document is JSON")
                .into(),
        )
    }
}

/// The document at `/v1/openapi.json`, rendered at `/v1/docs`.
pub(crate) fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(crate::routes::endpoint("/v1/openapi.json", Method::GET, serve))
        .service(docs())
        .service(web::redirect("/v1/docs", "/v1/docs/"));
}

/// `GET /v1/openapi.json`.
pub(crate) async fn serve(document: web::Data<Served>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(document.0.clone())
}

/// The Swagger UI, reading the served document.
pub fn docs() -> SwaggerUi {
    SwaggerUi::new("/v1/docs/{_:.*}").config(Config::new(["/v1/openapi.json"]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn every_event_the_service_sends_is_a_webhook_with_a_known_payload() {
        let doc = document(&PublicUrls::default());
        assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
        for name in domain::events::ALL {
            let hook = &doc["webhooks"][name]["post"];
            let data = &hook["requestBody"]["content"]["application/json"]["schema"]["properties"]["data"]["$ref"];
            let schema = data.as_str().unwrap_or_else(|| panic!("{name} has no payload"));
            let schema = schema.trim_start_matches("#/components/schemas/");
            assert!(doc["components"]["schemas"][schema].is_object(), "{name}: {schema}");
        }
        assert_eq!(doc["webhooks"].as_object().unwrap().len(), domain::events::ALL.len());
    }

    #[test]
    fn every_operation_documents_414_and_431_every_keyed_one_401_and_503_and_every_body_413() {
        let doc = document(&PublicUrls::default());
        let mut keyed = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, op)| op.get("responses").is_some())
            {
                let responses = &op["responses"];
                let says = |status: &str| responses[status]["content"]["application/json"].is_object();
                assert!(says("414") && says("431"), "{method} {path}");
                if op["security"].as_array().is_some_and(|s| !s.is_empty()) {
                    keyed += 1;
                    assert!(says("401") && says("503"), "{method} {path}");
                }
                if op["requestBody"].is_object() {
                    assert!(says("413"), "{method} {path}");
                }
            }
        }
        assert!(keyed > 80, "{keyed} keyed operations");
    }

    #[test]
    fn the_test_clocks_range_is_the_one_the_app_enforces() {
        let doc = document(&PublicUrls::default());
        let body = &doc["paths"]["/v1/issuing/sandbox/test_clock/advance"]["post"]["requestBody"];
        let seconds = &body["content"]["application/json"]["schema"]["properties"]["seconds"];
        assert_eq!(seconds["minimum"], 1);
        assert_eq!(seconds["maximum"], app::test_clock::MAX_ADVANCE_SECS);
    }

    #[test]
    fn a_created_card_feeds_every_card_operation_of_its_mode() {
        let doc = document(&PublicUrls::default());
        let links = doc["paths"]["/v1/issuing/sandbox/cards/create_card"]["post"]["responses"]["200"]["links"]
            .as_object()
            .unwrap();
        let fund = &links["fund_card_asynchronously_sandbox_with_card_id"];
        assert_eq!(fund["requestBody"]["card_id"], "$response.body#/data/card_id");
        let balance = &links["get_card_balance_sandbox_with_card_id"];
        assert_eq!(balance["parameters"]["card_id"], "$response.body#/data/card_id");
        let production: Vec<&Value> = doc["paths"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(path, _)| !path.starts_with(SANDBOX))
            .flat_map(|(_, item)| item.as_object().unwrap().values())
            .map(|op| &op["operationId"])
            .collect();
        assert!(
            links.values().all(|l| !production.contains(&&l["operationId"])),
            "sandbox only"
        );
        assert!(links.len() > 15, "{} links", links.len());
    }

    #[test]
    fn every_request_field_has_a_rule() {
        let doc = document(&PublicUrls::default());
        assert_eq!(request_rules::unruled(&doc), Vec::<String>::new());
    }

    #[test]
    fn the_document_matches_its_snapshot() {
        insta::assert_json_snapshot!(document(&PublicUrls::default()));
    }

    #[test]
    fn both_mode_endpoints_appear_under_both_prefixes_with_unique_ids() {
        let doc = document(&PublicUrls::default());
        let paths = doc["paths"].as_object().unwrap();
        for p in [
            "/v1/issuing/cards/get_issuing_wallet_balance",
            "/v1/issuing/sandbox/cards/get_issuing_wallet_balance",
            "/v1/issuing/cards/fx-rate",
            "/v1/issuing/sandbox/cards/fx-rate",
            "/v1/issuing/sandbox/cards/fund_issuing_wallet",
        ] {
            assert!(paths.contains_key(p), "{p} missing");
        }
        assert!(!paths.contains_key("/v1/issuing/cards/fund_issuing_wallet"));
        let mut ids: Vec<&str> = paths
            .values()
            .flat_map(|item| item.as_object().unwrap().values())
            .filter_map(|op| op["operationId"].as_str())
            .collect();
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count);
    }
}

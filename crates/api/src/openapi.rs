//! The OpenAPI document, generated from the handlers' annotations, served
//! at `/v1/openapi.json` and rendered offline by the vendored Swagger UI
//! at `/v1/docs/`.

use crate::routes;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::server::Server;
use utoipa::openapi::{OpenApi as Document, PathItem};
use utoipa::{Modify, OpenApi};
use utoipa_swagger_ui::SwaggerUi;

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
        routes::relay::get_card_details_from_token,
        routes::processor::authorize,
        routes::events::list_events,
        routes::events::get_event,
        routes::events::redeliver_event,
        routes::events::send_test_event,
        routes::test_clock::advance_test_clock,
        routes::test_clock::get_test_clock,
    ),
    modifiers(&TokenHeader),
    tags(
        (name = "utility", description = "Health and documentation"),
        (name = "wallets", description = "Issuing wallets and exchange rates"),
        (name = "cardholders", description = "Registration with identity verification, and the cardholder record"),
        (name = "cards", description = "USD cards: issue, read, fund and unload, freeze, PINs, delete"),
        (name = "relay", description = "The card-details relay address (`--relay-listen`): card data in clear. \
            It also serves `GET /v1/issuing[/sandbox]/cards/get_card_details` with the number, CVV and expiry in clear"),
        (name = "processor", description = "For the card processor: real-time authorization, signed with the processor secret"),
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
            "`Bearer sk_test_...` on sandbox paths, `Bearer sk_live_...` on production paths",
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

/// Relay endpoints name the relay's address as their server.
fn point_relay_paths_at_the_relay(doc: &mut Document) {
    for item in doc.paths.paths.values_mut() {
        let on_relay = operations(item).any(|op| op.tags.as_ref().is_some_and(|t| t.iter().any(|t| t == "relay")));
        if on_relay {
            let mut relay = Server::new("http://127.0.0.1:8081");
            relay.description = Some("the card-details relay (`issuing serve --relay-listen`)".to_string());
            item.servers = Some(vec![relay]);
        }
    }
}

/// The document of every implemented endpoint.
pub fn document() -> Document {
    let mut doc = ApiDoc::openapi();
    mirror_into_sandbox(&mut doc);
    point_relay_paths_at_the_relay(&mut doc);
    doc
}

pub fn docs() -> SwaggerUi {
    SwaggerUi::new("/v1/docs/{_:.*}").url("/v1/openapi.json", document())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_matches_its_snapshot() {
        insta::assert_json_snapshot!(document());
    }

    #[test]
    fn both_mode_endpoints_appear_under_both_prefixes_with_unique_ids() {
        let doc = document();
        let paths: Vec<&String> = doc.paths.paths.keys().collect();
        for p in [
            "/v1/issuing/cards/get_issuing_wallet_balance",
            "/v1/issuing/sandbox/cards/get_issuing_wallet_balance",
            "/v1/issuing/cards/fx-rate",
            "/v1/issuing/sandbox/cards/fx-rate",
            "/v1/issuing/sandbox/cards/fund_issuing_wallet",
        ] {
            assert!(paths.iter().any(|k| k.as_str() == p), "{p} missing");
        }
        assert!(
            !paths
                .iter()
                .any(|k| k.as_str() == "/v1/issuing/cards/fund_issuing_wallet")
        );
        let mut ids: Vec<String> = doc
            .paths
            .paths
            .values()
            .cloned()
            .flat_map(|mut item| {
                operations(&mut item)
                    .filter_map(|op| op.operation_id.clone())
                    .collect::<Vec<_>>()
            })
            .collect();
        let count = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), count);
    }
}

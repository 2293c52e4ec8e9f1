//! The route table, one for both listeners. Endpoints served in both modes
//! are registered once per mode scope; sandbox-only helpers exist only
//! under `/sandbox` (404 on production paths). The relay listener also
//! redeems card-details tokens.

pub mod card_money;
pub mod card_transactions;
pub mod card_view;
pub mod cardholders;
pub mod cards;
pub mod events;
pub mod fx;
pub mod health;
pub mod naira_cards;
pub mod processor;
pub mod relay;
pub mod rewards;
pub mod test_clock;
pub mod wallets;
pub mod webhook;

use crate::Surface;
use crate::error::ApiError;
use crate::extract::PathMode;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, Resource, ResponseError, Route, middleware, web};
use domain::Mode;

pub fn configure(cfg: &mut web::ServiceConfig, surface: Surface) {
    let both_modes = |cfg: &mut web::ServiceConfig| {
        both_modes(cfg);
        if surface == Surface::Relay {
            cfg.service(endpoint(
                "/cards/get_card_details_from_token",
                web::get().to(relay::get_card_details_from_token),
            ))
            .service(endpoint(
                "/naira_cards/get_otp_message",
                web::get().to(relay::get_otp_message),
            ));
        }
    };
    cfg.service(endpoint("/health", web::get().to(health::health)))
        .service(endpoint("/health/live", web::get().to(health::live)))
        .service(crate::openapi::docs())
        .service(web::redirect("/v1/docs", "/v1/docs/"))
        .service(endpoint(
            "/v1/processor/authorizations",
            web::post().to(processor::authorize),
        ))
        .service(endpoint(
            "/v1/processor/authorizations/complete_3ds",
            web::post().to(processor::complete_3ds),
        ))
        // The sandbox scope first: `/v1/issuing` would otherwise claim its paths.
        .service(
            web::scope("/v1/issuing/sandbox")
                .app_data(PathMode(Mode::Test))
                .configure(both_modes)
                .service(endpoint(
                    "/cards/fund_issuing_wallet",
                    web::patch().to(wallets::fund_issuing_wallet),
                ))
                .service(endpoint("/webhook/test", web::post().to(events::send_test_event)))
                .service(endpoint(
                    "/cards/mock_debit_transaction",
                    web::patch().to(card_transactions::mock_debit_transaction),
                ))
                .service(endpoint(
                    "/naira_cards/mock_debit_naira_card",
                    web::patch().to(card_transactions::mock_debit_naira_card),
                ))
                .service(endpoint(
                    "/naira_cards/complete_3ds",
                    web::post().to(card_transactions::complete_3ds),
                ))
                .service(endpoint(
                    "/reward/assign_reward",
                    web::post().to(rewards::assign_reward),
                ))
                .service(endpoint("/test_clock", web::get().to(test_clock::get_test_clock)))
                .service(endpoint(
                    "/test_clock/advance",
                    web::post().to(test_clock::advance_test_clock),
                )),
        )
        .service(
            web::scope("/v1/issuing")
                .app_data(PathMode(Mode::Live))
                .configure(both_modes),
        );
}

fn both_modes(cfg: &mut web::ServiceConfig) {
    cfg.service(endpoint(
        "/cards/get_issuing_wallet_balance",
        web::get().to(wallets::get_issuing_wallet_balance),
    ))
    .service(endpoint("/cards/fx-rate", web::get().to(fx::get_fx_rate)))
    .service(endpoint("/webhook", web::patch().to(webhook::set_webhook_url)))
    .service(endpoint(
        "/cardholder/register_cardholder_synchronously",
        web::post().to(cardholders::register_cardholder_synchronously),
    ))
    .service(endpoint(
        "/cardholder/register_cardholder",
        web::post().to(cardholders::register_cardholder),
    ))
    .service(endpoint(
        "/cardholder/update_cardholder",
        web::patch().to(cardholders::update_cardholder),
    ))
    .service(endpoint(
        "/cardholder/get_cardholder",
        web::get().to(cardholders::get_cardholder),
    ))
    .service(endpoint(
        "/cardholder/delete_cardholder/{cardholder_id}",
        web::delete().to(cardholders::delete_cardholder),
    ))
    .service(endpoint(
        "/cardholder/get_all_states",
        web::get().to(cardholders::get_all_states),
    ))
    .service(endpoint(
        "/cardholder/get_all_lga",
        web::get().to(cardholders::get_all_lga),
    ))
    .service(endpoint(
        "/cards/get_all_cardholder",
        web::get().to(cardholders::get_all_cardholder),
    ))
    .configure(card_endpoints)
    .service(endpoint(
        "/reward/get_cardholder_rewards",
        web::get().to(rewards::get_cardholder_rewards),
    ))
    .service(
        web::resource("/reward/rules")
            .route(web::get().to(rewards::get_rules))
            .route(web::patch().to(rewards::update_rules))
            .default_service(web::to(method_not_allowed)),
    )
    .service(endpoint("/events", web::get().to(events::list_events)))
    .service(endpoint("/events/{event_id}", web::get().to(events::get_event)))
    .service(endpoint(
        "/events/{event_id}/redeliver",
        web::post().to(events::redeliver_event),
    ));
}

fn card_endpoints(cfg: &mut web::ServiceConfig) {
    cfg.service(endpoint("/cards/create_card", web::post().to(cards::create_card)))
        .service(endpoint(
            "/cards/activate_physical_card",
            web::post().to(cards::activate_physical_card),
        ))
        .service(endpoint(
            "/cards/get_card_details",
            web::get().to(cards::get_card_details),
        ))
        .service(endpoint(
            "/cards/get_card_balance",
            web::get().to(cards::get_card_balance),
        ))
        .service(endpoint(
            "/cards/fund_card_asynchronously",
            web::patch().to(card_money::fund_card_asynchronously),
        ))
        .service(endpoint(
            "/cards/unload_card_asynchronously",
            web::patch().to(card_money::unload_card_asynchronously),
        ))
        .service(endpoint("/cards/freeze_card", web::patch().to(cards::freeze_card)))
        .service(endpoint("/cards/unfreeze_card", web::patch().to(cards::unfreeze_card)))
        .service(endpoint(
            "/cards/get_all_cardholder_cards",
            web::get().to(cards::get_all_cardholder_cards),
        ))
        .service(endpoint("/cards/get_all_cards", web::get().to(cards::get_all_cards)))
        .service(endpoint(
            "/cards/delete_card/{card_id}",
            web::delete().to(cards::delete_card),
        ))
        .service(endpoint(
            "/cards/update_card_pin",
            web::post().to(cards::update_card_pin),
        ))
        .service(endpoint(
            "/cards/set_3d_secure_pin",
            web::post().to(cards::set_3d_secure_pin),
        ))
        .service(endpoint(
            "/cards/get_card_transactions",
            web::get().to(card_transactions::get_card_transactions),
        ))
        .service(endpoint(
            "/cards/get_card_transaction_by_id",
            web::get().to(card_transactions::get_card_transaction_by_id),
        ))
        .service(endpoint(
            "/cards/generate_token_for_card_details",
            web::get().to(cards::generate_token_for_card_details),
        ))
        .service(endpoint(
            "/cards/get_naira_card_transactions",
            web::get().to(card_transactions::get_naira_card_transactions),
        ))
        .service(endpoint(
            "/naira_cards/get_card_balance",
            web::get().to(naira_cards::get_card_balance),
        ))
        .service(endpoint(
            "/naira_cards/fund_naira_card",
            web::post().to(card_money::fund_naira_card),
        ))
        .service(endpoint(
            "/naira_cards/unload_naira_card",
            web::patch().to(card_money::unload_naira_card),
        ))
        .service(endpoint(
            "/naira_cards/freeze_card",
            web::patch().to(naira_cards::freeze_card),
        ))
        .service(endpoint(
            "/naira_cards/unfreeze_card",
            web::patch().to(naira_cards::unfreeze_card),
        ));
    // Every answer says the endpoint is deprecated (RFC 9745), since this
    // service's first release.
    #[allow(deprecated)]
    let migrate_card = web::post().to(cards::migrate_card);
    cfg.service(
        endpoint("/cards/migrate_card", migrate_card)
            .wrap(middleware::DefaultHeaders::new().add(("Deprecation", "@1795305600"))),
    );
}

/// One path with one method; any other method on it is a JSON 405.
fn endpoint(path: &str, route: Route) -> Resource {
    web::resource(path)
        .route(route)
        .default_service(web::to(method_not_allowed))
}

/// Reads (and drops) the body, so the connection stays usable for the
/// client's next request.
pub async fn not_found(req: HttpRequest, _body: web::Bytes) -> HttpResponse {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no endpoint at {} {}", req.method(), req.path()),
    )
    .error_response()
}

async fn method_not_allowed(req: HttpRequest, _body: web::Bytes) -> HttpResponse {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}", req.method(), req.path()),
    )
    .error_response()
}

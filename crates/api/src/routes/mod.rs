//! The route table. Endpoints served in both modes are registered once per
//! mode scope; sandbox-only helpers exist only under `/sandbox` (404 on
//! production paths).

pub mod cardholders;
pub mod events;
pub mod fx;
pub mod health;
pub mod test_clock;
pub mod wallets;
pub mod webhook;

use crate::error::ApiError;
use crate::extract::PathMode;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, Resource, ResponseError, Route, web};
use domain::Mode;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(endpoint("/health", web::get().to(health::health)))
        .service(crate::openapi::docs())
        .service(web::redirect("/v1/docs", "/v1/docs/"))
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
    .service(endpoint("/events", web::get().to(events::list_events)))
    .service(endpoint("/events/{event_id}", web::get().to(events::get_event)))
    .service(endpoint(
        "/events/{event_id}/redeliver",
        web::post().to(events::redeliver_event),
    ));
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

//! The route table, one for both listeners. Endpoints served in both modes
//! are registered once per mode scope; sandbox-only helpers exist only
//! under `/sandbox` (404 on production paths). The relay listener also
//! redeems card-details tokens.

mod answers;
pub mod authorizations;
pub mod card_money;
pub mod card_transactions;
pub mod card_view;
pub mod cardholders;
pub mod cards;
pub mod connectors;
pub mod events;
pub mod fx;
pub mod health;
pub mod naira_cards;
pub mod processor;
pub mod relay;
pub mod rewards;
pub mod spending_controls;
pub mod test_clock;
pub mod wallets;
pub mod webhook;

use crate::Surface;
use crate::error::ApiError;
use crate::extract::PathMode;
use actix_web::body::{BoxBody, EitherBody};
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::StatusCode;
use actix_web::{
    FromRequest, Handler, HttpRequest, HttpResponse, Resource, Responder, ResponseError, Route, middleware, web,
};
use domain::Mode;

pub fn configure(cfg: &mut web::ServiceConfig, surface: Surface) {
    let both_modes = |cfg: &mut web::ServiceConfig| {
        both_modes(cfg);
        if surface == Surface::Relay {
            cfg.service(endpoint(
                "/cards/get_card_details_from_token",
                Method::GET,
                relay::get_card_details_from_token,
            ))
            // GET as the contract has it, POST as some integrations send
            // it: a read either way, whose answer (an OTP) is never kept.
            .service(unkeyed(
                "/naira_cards/get_otp_message",
                vec![
                    (Method::GET, web::get().to(relay::get_otp_message)),
                    (Method::POST, web::post().to(relay::post_otp_message)),
                ],
            ));
        }
    };
    // Health checks answer HEAD too, as load balancers and monitors send it.
    let checked = |path, get: Route, head: Route| resource(path, vec![(Method::GET, get), (Method::HEAD, head)]);
    cfg.service(checked(
        "/health",
        web::get().to(health::health),
        web::head().to(health::health),
    ))
    .service(checked(
        "/health/live",
        web::get().to(health::live),
        web::head().to(health::live),
    ))
    .service(endpoint(
        "/v1/processor/authorizations",
        Method::POST,
        processor::authorize,
    ))
    .service(endpoint(
        "/v1/processor/authorizations/complete_3ds",
        Method::POST,
        processor::complete_3ds,
    ))
    .service(endpoint("/v1/processor/reversals", Method::POST, processor::reverse))
    .service(endpoint("/v1/processor/captures", Method::POST, processor::capture))
    .service(endpoint(
        "/v1/connectors/sudo/gateway",
        Method::POST,
        connectors::sudo_gateway,
    ))
    .service(endpoint(
        "/v1/connectors/smileid/callback",
        Method::POST,
        connectors::smileid_callback,
    ))
    // The sandbox scope first: `/v1/issuing` would otherwise claim its paths.
    .service(
        web::scope("/v1/issuing/sandbox")
            .app_data(PathMode(Mode::Test))
            .configure(both_modes)
            .service(endpoint(
                "/cards/fund_issuing_wallet",
                Method::PATCH,
                wallets::fund_issuing_wallet,
            ))
            .service(endpoint("/webhook/test", Method::POST, events::send_test_event))
            .service(endpoint(
                "/cards/mock_debit_transaction",
                Method::PATCH,
                card_transactions::mock_debit_transaction,
            ))
            .service(endpoint(
                "/naira_cards/mock_debit_naira_card",
                Method::PATCH,
                card_transactions::mock_debit_naira_card,
            ))
            .service(endpoint(
                "/naira_cards/complete_3ds",
                Method::POST,
                card_transactions::complete_3ds,
            ))
            .service(endpoint(
                "/authorizations",
                Method::POST,
                authorizations::create_authorization,
            ))
            .service(endpoint(
                "/authorizations/{authorization_id}/capture",
                Method::POST,
                authorizations::capture,
            ))
            .service(endpoint(
                "/authorizations/{authorization_id}/reverse",
                Method::POST,
                authorizations::reverse,
            ))
            .service(endpoint(
                "/authorizations/{authorization_id}/increment",
                Method::POST,
                authorizations::increment,
            ))
            .service(endpoint(
                "/authorizations/{authorization_id}/expire",
                Method::POST,
                authorizations::expire,
            ))
            .service(endpoint("/refunds", Method::POST, authorizations::refund))
            .service(endpoint("/reward/assign_reward", Method::POST, rewards::assign_reward))
            .service(endpoint("/test_clock", Method::GET, test_clock::get_test_clock))
            .service(endpoint(
                "/test_clock/advance",
                Method::POST,
                test_clock::advance_test_clock,
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
        Method::GET,
        wallets::get_issuing_wallet_balance,
    ))
    .service(endpoint("/cards/fx-rate", Method::GET, fx::get_fx_rate))
    .service(endpoint("/webhook", Method::PATCH, webhook::set_webhook_url))
    .service(endpoint(
        "/cardholder/register_cardholder_synchronously",
        Method::POST,
        cardholders::register_cardholder_synchronously,
    ))
    .service(endpoint(
        "/cardholder/register_cardholder",
        Method::POST,
        cardholders::register_cardholder,
    ))
    .service(endpoint(
        "/cardholder/update_cardholder",
        Method::PATCH,
        cardholders::update_cardholder,
    ))
    .service(endpoint(
        "/cardholder/get_cardholder",
        Method::GET,
        cardholders::get_cardholder,
    ))
    .service(endpoint(
        "/cardholder/delete_cardholder/{cardholder_id}",
        Method::DELETE,
        cardholders::delete_cardholder,
    ))
    .service(endpoint(
        "/cardholder/get_all_states",
        Method::GET,
        cardholders::get_all_states,
    ))
    .service(endpoint(
        "/cardholder/get_all_lga",
        Method::GET,
        cardholders::get_all_lga,
    ))
    .service(endpoint(
        "/cards/get_all_cardholder",
        Method::GET,
        cardholders::get_all_cardholder,
    ))
    .configure(card_endpoints)
    .service(endpoint(
        "/reward/get_cardholder_rewards",
        Method::GET,
        rewards::get_cardholder_rewards,
    ))
    .service(resource(
        "/reward/rules",
        vec![
            (Method::GET, web::get().to(rewards::get_rules)),
            (Method::PATCH, web::patch().to(rewards::update_rules)),
        ],
    ))
    .service(resource(
        "/spending_controls",
        vec![
            (Method::GET, web::get().to(spending_controls::get_account_controls)),
            (Method::PUT, web::put().to(spending_controls::set_account_controls)),
        ],
    ))
    .service(endpoint(
        "/transactions",
        Method::GET,
        card_transactions::list_transactions,
    ))
    .service(endpoint("/events", Method::GET, events::list_events))
    .service(endpoint("/events/{event_id}", Method::GET, events::get_event))
    .service(endpoint(
        "/events/{event_id}/redeliver",
        Method::POST,
        events::redeliver_event,
    ));
}

fn card_endpoints(cfg: &mut web::ServiceConfig) {
    cfg.service(endpoint("/cards/create_card", Method::POST, cards::create_card))
        .service(endpoint(
            "/cards/activate_physical_card",
            Method::POST,
            cards::activate_physical_card,
        ))
        .service(endpoint(
            "/cards/get_card_details",
            Method::GET,
            cards::get_card_details,
        ))
        .service(endpoint(
            "/cards/get_card_balance",
            Method::GET,
            cards::get_card_balance,
        ))
        .service(endpoint("/cards/fund_card", Method::POST, card_money::fund_card))
        .service(endpoint("/cards/unload_card", Method::POST, card_money::unload_card))
        .service(endpoint(
            "/cards/fund_card_asynchronously",
            Method::PATCH,
            card_money::fund_card_asynchronously,
        ))
        .service(endpoint(
            "/cards/unload_card_asynchronously",
            Method::PATCH,
            card_money::unload_card_asynchronously,
        ))
        .service(endpoint("/cards/freeze_card", Method::PATCH, cards::freeze_card))
        .service(endpoint("/cards/unfreeze_card", Method::PATCH, cards::unfreeze_card))
        .service(endpoint(
            "/cards/get_all_cardholder_cards",
            Method::GET,
            cards::get_all_cardholder_cards,
        ))
        .service(endpoint("/cards/get_all_cards", Method::GET, cards::get_all_cards))
        .service(endpoint(
            "/cards/delete_card/{card_id}",
            Method::DELETE,
            cards::delete_card,
        ))
        .service(endpoint("/cards/update_card_pin", Method::POST, cards::update_card_pin))
        .service(endpoint(
            "/cards/set_3d_secure_pin",
            Method::POST,
            cards::set_3d_secure_pin,
        ))
        .service(resource(
            "/cards/spending_controls",
            vec![
                (Method::GET, web::get().to(spending_controls::get_card_controls)),
                (Method::PUT, web::put().to(spending_controls::set_card_controls)),
            ],
        ))
        .service(endpoint(
            "/cards/get_card_transactions",
            Method::GET,
            card_transactions::get_card_transactions,
        ))
        .service(endpoint(
            "/cards/get_card_transaction_by_id",
            Method::GET,
            card_transactions::get_card_transaction_by_id,
        ))
        .service(endpoint(
            "/cards/generate_token_for_card_details",
            Method::GET,
            cards::generate_token_for_card_details,
        ))
        .service(endpoint(
            "/cards/get_naira_card_transactions",
            Method::GET,
            card_transactions::get_naira_card_transactions,
        ))
        .service(endpoint(
            "/naira_cards/get_card_balance",
            Method::GET,
            naira_cards::get_card_balance,
        ))
        .service(endpoint(
            "/naira_cards/fund_naira_card",
            Method::POST,
            card_money::fund_naira_card,
        ))
        // PATCH as the contract has it, POST as some integrations send it.
        .service(resource(
            "/naira_cards/unload_naira_card",
            vec![
                (Method::PATCH, web::patch().to(card_money::unload_naira_card)),
                (Method::POST, web::post().to(card_money::unload_naira_card_by_post)),
            ],
        ))
        .service(endpoint(
            "/naira_cards/freeze_card",
            Method::PATCH,
            naira_cards::freeze_card,
        ))
        .service(endpoint(
            "/naira_cards/unfreeze_card",
            Method::PATCH,
            naira_cards::unfreeze_card,
        ));
    // Every answer says the endpoint is deprecated (RFC 9745), since this
    // service's first release.
    #[allow(deprecated)]
    let migrate_card = cards::migrate_card;
    cfg.service(
        endpoint("/cards/migrate_card", Method::POST, migrate_card)
            .wrap(middleware::DefaultHeaders::new().add(("Deprecation", "@1795305600"))),
    );
}

/// One path with one method; any other method on it is a JSON 405.
pub(crate) fn endpoint<F, Args>(path: &str, method: Method, handler: F) -> Resource<impl ResourceFactory>
where
    F: Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: Responder + 'static,
{
    let route = web::method(method.clone()).to(handler);
    resource(path, vec![(method, route)])
}

/// A resource, wrapped in the `Idempotency-Key` middleware.
pub(crate) trait ResourceFactory:
    ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<EitherBody<BoxBody>>,
        Error = actix_web::Error,
        InitError = (),
    >
{
}

impl<T> ResourceFactory for T where
    T: ServiceFactory<
            ServiceRequest,
            Config = (),
            Response = ServiceResponse<EitherBody<BoxBody>>,
            Error = actix_web::Error,
            InitError = (),
        >
{
}

/// `routes` on one path, whose writes take an `Idempotency-Key`.
fn resource(path: &str, routes: Vec<(Method, Route)>) -> Resource<impl ResourceFactory> {
    let methods: std::sync::Arc<[Method]> = routes.iter().map(|(method, _)| method.clone()).collect();
    let keyed = move |req, next| crate::idempotency::keyed(methods.clone(), req, next);
    unkeyed(path, routes).wrap(middleware::from_fn(keyed))
}

/// `routes` on one path; any other method on it is a JSON 405 whose
/// `Allow` names theirs.
fn unkeyed(path: &str, routes: Vec<(Method, Route)>) -> Resource {
    let allow: Vec<&str> = routes.iter().map(|(method, _)| method.as_str()).collect();
    let allow = allow.join(", ");
    let refuse = move |req: HttpRequest, body: web::Bytes| method_not_allowed(req, body, allow.clone());
    routes
        .into_iter()
        .fold(web::resource(path), |resource, (_, route)| resource.route(route))
        .default_service(web::to(refuse))
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

async fn method_not_allowed(req: HttpRequest, _body: web::Bytes, allow: String) -> HttpResponse {
    let mut response = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}; use {allow}", req.method(), req.path()),
    )
    .error_response();
    if let Ok(allow) = actix_web::http::header::HeaderValue::from_str(&allow) {
        response.headers_mut().insert(actix_web::http::header::ALLOW, allow);
    }
    response
}

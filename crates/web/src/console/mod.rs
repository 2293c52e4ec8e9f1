//! The dashboard: a console for account holders (an account's admins and
//! viewers) and for the operator, served on its own listener
//! (`--dashboard-listen`). Server-rendered HTML over the same use cases as
//! the API and the CLI, no script, one stylesheet, the hosted pages'
//! strict Content-Security-Policy. Every form posts a CSRF token
//! ([`session::Posted`]); every page needs a live session but the
//! sign-in ones.

mod cardholders;
mod cards;
mod events;
mod home;
mod operator;
mod problem;
mod rewards;
mod security;
mod session;
mod sign_in;
mod users;
mod view;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;
use domain::Amount;
use ports::ledger::LedgerAudit;
use std::sync::Arc;

/// What the console needs beside the use cases.
#[derive(Clone)]
pub struct ConsoleSettings {
    /// The ledger check the operator runs on demand (`issuing ledger check`'s).
    pub ledger: Arc<dyn LedgerAudit>,
    pub max_wallet: Amount,
    /// Where people reach the console: the base of the one-time links it
    /// shows (never the request's Host, which a client names).
    pub public_url: String,
}

/// The console's stylesheet.
pub const STYLESHEET: &str = "/console.css";

/// Each request runs as a task of its own, to its end: a client that goes
/// away cancels nothing half-way (an action done and not yet audited, a
/// SQLite call dropped mid-flight). The API's requests run so too.
pub async fn whole(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    actix_web::rt::spawn(next.call(req))
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("the request's task failed"))?
}

/// The console's routes, at the root of its listener (wrapped in [`whole`]).
pub fn configure(cfg: &mut web::ServiceConfig, settings: ConsoleSettings) {
    cfg.app_data(web::Data::new(settings))
        .app_data(web::PayloadConfig::new(session::MAX_FORM_BYTES))
        .app_data(web::QueryConfig::default().error_handler(|e, _| problem::Problem::bad_query(e).into()))
        .app_data(
            web::FormConfig::default()
                .limit(session::MAX_FORM_BYTES)
                .error_handler(|_, _| problem::Problem::BadForm.into()),
        )
        .route(STYLESHEET, web::get().to(view::stylesheet))
        .route("/login", web::get().to(sign_in::form))
        .route("/login", web::post().to(sign_in::sign_in))
        .route("/logout", web::post().to(sign_in::sign_out))
        .route("/set-password", web::get().to(sign_in::password_form))
        .route("/set-password", web::post().to(sign_in::set_password))
        .route("/", web::get().to(home::show))
        .route("/keys/roll", web::post().to(home::roll_key))
        .route("/webhook/roll", web::post().to(home::roll_webhook_secret))
        .route("/wallet/fund", web::post().to(home::fund))
        .route("/cardholders", web::get().to(cardholders::list))
        .route("/cardholders/{id}", web::get().to(cardholders::show))
        .route("/cards/{id}", web::get().to(cards::show))
        .route("/cards/{id}/freeze", web::post().to(cards::freeze))
        .route("/cards/{id}/unfreeze", web::post().to(cards::unfreeze))
        .route("/events", web::get().to(events::list))
        .route("/events/test", web::post().to(events::send_test))
        .route("/events/{id}", web::get().to(events::show))
        .route("/events/{id}/redeliver", web::post().to(events::redeliver))
        .route("/rewards", web::get().to(rewards::show))
        .route("/rewards/rules", web::post().to(rewards::set_rules))
        .route("/users", web::get().to(users::list))
        .route("/users/invite", web::post().to(users::invite))
        .route("/audit", web::get().to(users::audit))
        .route("/security", web::get().to(security::show))
        .route("/security", web::post().to(security::set_up))
        .route("/operator", web::get().to(operator::accounts))
        .route("/operator/accounts", web::post().to(operator::create_account))
        .route("/operator/accounts/{id}", web::get().to(operator::account))
        .route("/operator/accounts/{id}/credit", web::post().to(operator::credit))
        .route(
            "/operator/accounts/{id}/rewards",
            web::post().to(operator::rewards_switch),
        )
        .route("/operator/reviews", web::get().to(operator::reviews))
        .route("/operator/reviews/{id}", web::post().to(operator::review))
        .route("/operator/reviews/{id}/{image}", web::get().to(operator::review_image))
        .route("/operator/jobs", web::get().to(operator::jobs))
        .route("/operator/jobs/{id}/retry", web::post().to(operator::retry_job))
        .route("/operator/ledger", web::get().to(operator::ledger))
        .route("/operator/ledger", web::post().to(operator::check_ledger))
        .default_service(web::to(view::not_found));
}

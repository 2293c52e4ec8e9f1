//! The HTTP surface, thin: parse the request at the edge, call the use
//! case, render the envelope. Sandbox paths (`/v1/issuing/sandbox/...`)
//! need a test key, production paths (`/v1/issuing/...`) a live key.

mod envelope;
mod error;
mod extract;
pub mod openapi;
mod routes;
mod trace;

pub use error::ApiError;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{middleware, web};

/// Request bodies larger than this are refused with 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The whole HTTP application over the use cases (the base address).
pub fn build(
    app: web::Data<app::App>,
) -> actix_web::App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    with_middleware(app).configure(routes::configure)
}

/// The card-details relay application (the relay address): card details
/// in clear, and nothing else.
pub fn build_relay(
    app: web::Data<app::App>,
) -> actix_web::App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    with_middleware(app).configure(routes::configure_relay)
}

fn with_middleware(
    app: web::Data<app::App>,
) -> actix_web::App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    actix_web::App::new()
        .app_data(app)
        .wrap(middleware::from_fn(trace::trace_requests))
        .default_service(web::to(routes::not_found))
}

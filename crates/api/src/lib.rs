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

/// Which of the two listeners an application serves.
#[derive(Debug, Clone, Copy)]
pub enum Surface {
    /// The base address: the whole API, card data sealed.
    Base,
    /// The card-details relay: card details in clear, and nothing else.
    Relay,
}

/// The HTTP application of `surface` over the use cases.
pub fn build(
    app: web::Data<app::App>,
    surface: Surface,
) -> actix_web::App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let routes = match surface {
        Surface::Base => routes::configure,
        Surface::Relay => routes::configure_relay,
    };
    actix_web::App::new()
        .app_data(app)
        .wrap(middleware::from_fn(trace::trace_requests))
        .configure(routes)
        .default_service(web::to(routes::not_found))
}

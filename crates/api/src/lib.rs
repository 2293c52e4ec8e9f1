//! The HTTP surface, thin: parse the request at the edge, call the use
//! case, render the envelope. Sandbox paths (`/v1/issuing/sandbox/...`)
//! need a test key, production paths (`/v1/issuing/...`) a live key.

mod amount_text;
mod envelope;
mod error;
pub mod error_codes;
mod extract;
mod head_limits;
mod idempotency;
pub mod openapi;
mod paging;
mod routes;
mod trace;
mod whole_number;

pub use error::ApiError;
pub use trace::record_metrics;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{middleware, web};

/// Request bodies larger than this are refused with 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Which of the two listeners an application serves. Both serve the
/// whole API from one route table; they differ only in how card numbers,
/// CVVs and expiry dates leave (and the relay alone redeems details
/// tokens, which need no key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The base address: card data sealed under the transport key.
    Base,
    /// The decrypting relay: card data in clear.
    Relay,
}

impl Surface {
    pub(crate) fn details_view(self) -> app::cards::DetailsView {
        match self {
            Surface::Base => app::cards::DetailsView::Sealed,
            Surface::Relay => app::cards::DetailsView::Clear,
        }
    }
}

/// Where clients reach the two listeners (behind a proxy, not where they
/// listen): the OpenAPI document names them as its servers
/// (`openapi::Served::new`).
#[derive(Debug, Clone)]
pub struct PublicUrls {
    pub api: String,
    pub relay: String,
}

impl Default for PublicUrls {
    /// The default listen addresses.
    fn default() -> Self {
        Self {
            api: "http://127.0.0.1:8080".into(),
            relay: "http://127.0.0.1:8081".into(),
        }
    }
}

/// The HTTP application of `surface` over the use cases.
pub fn build(
    app: web::Data<app::App>,
    surface: Surface,
    document: openapi::Served,
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
        .app_data(surface)
        .app_data(web::Data::new(document))
        .wrap(middleware::from_fn(head_limits::refuse_oversized_heads))
        .wrap(middleware::from_fn(trace::trace_requests))
        // Answers are per caller and may carry card data: never cached.
        .wrap(middleware::DefaultHeaders::new().add(("Cache-Control", "no-store")))
        .configure(openapi::configure)
        .configure(|cfg| routes::configure(cfg, surface))
        .default_service(web::to(routes::not_found))
}

//! The hosted pages, made for a phone-sized webview: the deal claim page
//! and the spending charts. Server-rendered HTML (maud escapes every
//! value), one stylesheet served here, no script, and a Content-Security-
//! Policy that allows nothing else. Neither page shows a card number.

mod charts;
pub mod console;
mod deal;
mod layout;

use actix_web::web;

/// Where the pages are served: the paths of their public URLs.
#[derive(Debug, Clone)]
pub struct PagePaths {
    pub rewards: String,
    pub graphs: String,
    /// Whether the public URLs are https: the session cookie is `Secure`.
    pub secure: bool,
}

impl Default for PagePaths {
    fn default() -> Self {
        Self {
            rewards: "/web/rewards".into(),
            graphs: "/web/graphs".into(),
            secure: false,
        }
    }
}

/// The path of the pages' stylesheet.
pub const STYLESHEET: &str = "/web/page.css";

/// Adds the pages to an application.
pub fn configure(cfg: &mut web::ServiceConfig, paths: &PagePaths) {
    cfg.service(
        web::resource(STYLESHEET)
            .route(web::get().to(layout::stylesheet))
            .route(web::head().to(layout::stylesheet)),
    )
    .service(
        web::resource(paths.rewards.as_str())
            .app_data(web::Data::new(paths.clone()))
            .app_data(bad_input::<web::QueryConfig>("the link's query"))
            .app_data(bad_input::<web::FormConfig>("the form"))
            .route(web::get().to(deal::open))
            .route(web::head().to(layout::head))
            .route(web::post().to(deal::claim))
            .default_service(web::to(|| layout::not_allowed("GET, HEAD, POST"))),
    )
    .service(
        web::resource(paths.graphs.as_str())
            .app_data(bad_input::<web::QueryConfig>("the link's query"))
            .route(web::get().to(charts::show))
            .route(web::head().to(layout::head))
            .default_service(web::to(|| layout::not_allowed("GET, HEAD"))),
    );
}

/// A query or form the extractor cannot read: the error page, not text.
fn bad_input<C: ErrorPage>(what: &'static str) -> C {
    C::answering(move || {
        layout::error_page(app::rewards::PageError::BadLink {
            field: what,
            rule: "could not be read",
        })
    })
}

trait ErrorPage {
    fn answering(page: impl Fn() -> actix_web::HttpResponse + Send + Sync + 'static) -> Self;
}

impl ErrorPage for web::QueryConfig {
    fn answering(page: impl Fn() -> actix_web::HttpResponse + Send + Sync + 'static) -> Self {
        web::QueryConfig::default()
            .error_handler(move |e, _| actix_web::error::InternalError::from_response(e, page()).into())
    }
}

impl ErrorPage for web::FormConfig {
    fn answering(page: impl Fn() -> actix_web::HttpResponse + Send + Sync + 'static) -> Self {
        web::FormConfig::default()
            .limit(4096)
            .error_handler(move |e, _| actix_web::error::InternalError::from_response(e, page()).into())
    }
}

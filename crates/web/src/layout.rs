//! The page shell, the headers every page carries, and error pages.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, HttpResponseBuilder};
use app::rewards::PageError;
use domain::rewards::PromoCode;
use maud::{DOCTYPE, Markup, html};

/// Nothing but this service's stylesheet, inline SVG and a form posting
/// back here: no script, frame, font or image from anywhere.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'";

/// A page with the service's headers: the URL holds single-use tokens,
/// so no referrer leaves it.
pub fn page(status: StatusCode, title: &str, body: Markup) -> HttpResponse {
    respond(HttpResponse::build(status), title, body)
}

pub fn respond(mut response: HttpResponseBuilder, title: &str, body: Markup) -> HttpResponse {
    let markup = document(title, crate::STYLESHEET, html! {}, body);
    headed(&mut response).body(markup.into_string())
}

/// An HTML page: `stylesheet`, then `header` and `body` (in `main`); the
/// hosted pages' and the console's.
pub fn document(title: &str, stylesheet: &str, header: Markup, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                // No icon: the browser asks for none (no 404 in its console).
                link rel="icon" href="data:,";
                title { (title) }
                link rel="stylesheet" href=(stylesheet);
            }
            body {
                (header)
                main { (body) }
            }
        }
    }
}

/// The headers every page carries.
fn headed(response: &mut HttpResponseBuilder) -> &mut HttpResponseBuilder {
    response
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", CSP))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
}

/// The page an error shows: what went wrong and what to do, never more.
pub fn error_page(error: PageError) -> HttpResponse {
    let (status, title) = match &error {
        PageError::BadLink { .. } => (StatusCode::BAD_REQUEST, "This link is not right"),
        PageError::Expired => (StatusCode::UNAUTHORIZED, "This link has expired"),
        PageError::Claimed(_) => (StatusCode::CONFLICT, "Already claimed"),
        PageError::Store(e) => {
            tracing::error!(error = %e, "a hosted page failed");
            (StatusCode::SERVICE_UNAVAILABLE, "Please try again")
        }
    };
    let message = match &error {
        PageError::Store(_) => "Something went wrong on our side. Please try again in a moment.".to_string(),
        e => e.to_string(),
    };
    page(
        status,
        title,
        html! {
            h1 { (title) }
            p.error role="alert" { (message) }
            // Shown to its own cardholder: the code they claimed.
            @if let PageError::Claimed(Some(code)) = &error {
                (promo_code(code))
            }
        },
    )
}

/// `HEAD` of a page: its headers, and no work (a link previewer asking
/// must not use up the link's single-use tokens).
pub async fn head() -> HttpResponse {
    headed(&mut HttpResponse::Ok()).finish()
}

/// Another method than the page's: 405, naming the allowed ones.
pub async fn not_allowed(allow: &'static str) -> HttpResponse {
    let mut response = HttpResponse::build(StatusCode::METHOD_NOT_ALLOWED);
    response.insert_header(("Allow", allow));
    let body = html! {
        h1 { "Not available" }
        p.error role="alert" { "This page is opened from the app's link." }
    };
    respond(response, "Not available", body)
}

pub async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .body(include_str!("../static/page.css"))
}

/// The promo code a cardholder claimed: shown on its deal's page, and
/// again on the page a second claim gets.
pub(crate) fn promo_code(code: &PromoCode) -> maud::Markup {
    html! {
        h1 { "Your promo code" }
        p.muted { (code.merchant) ": " (code.description) }
        p.code data-coupon { (code.coupon_code) }
        p { "Valid until " (code.valid_till_date()) "." }
        p { a href=(code.product_link) rel="noopener noreferrer" target="_blank" { "Shop at " (code.merchant) } }
    }
}

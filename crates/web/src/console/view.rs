//! The console's page shell, its navigation, the pieces every screen
//! uses, and its error pages.

use super::problem::Problem;
use super::session::Signed;
pub(crate) use crate::charts::money;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use domain::paging::Paging;
use domain::{Currency, Mode, Timestamp};
use maud::{Markup, html};
use ports::wallets::WalletBalances;

/// The hosted pages' policy: this listener's stylesheet and forms only.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// A console page: the shell around `body`, never cached (it shows an
/// account's data, and once a new key).
pub fn respond(status: StatusCode, title: &str, nav: Option<(&Signed, Mode)>, body: Markup) -> HttpResponse {
    let header = html! { @if let Some((signed, mode)) = nav { (navigation(signed, mode)) } };
    let markup = crate::layout::document(&format!("{title} · Issuing console"), super::STYLESHEET, header, body);
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", CSP))
        // Same-origin: a form posted from here names its origin (which the
        // sign-in forms check); no other site learns a console URL.
        .insert_header(("Referrer-Policy", "same-origin"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .insert_header(("Cache-Control", "no-store"))
        .body(markup.into_string())
}

/// A signed-in user's page in `mode`.
pub fn page(signed: &Signed, mode: Mode, title: &str, body: Markup) -> HttpResponse {
    respond(StatusCode::OK, title, Some((signed, mode)), body)
}

fn navigation(signed: &Signed, mode: Mode) -> Markup {
    let user = &signed.actor.user;
    let q = mode_query(mode);
    html! {
        header.bar {
            nav aria-label="Console" {
                @if user.seat.account().is_some() {
                    a href={"/" (q)} { "Home" }
                    a href={"/cardholders" (q)} { "Cardholders" }
                    a href={"/events" (q)} { "Events" }
                    a href={"/rewards" (q)} { "Rewards" }
                    a href="/users" { "Team" }
                } @else {
                    a href="/operator" { "Accounts" }
                    a href="/operator/reviews" { "KYC reviews" }
                    a href="/operator/jobs" { "Jobs" }
                    a href="/operator/ledger" { "Ledger" }
                }
                a href="/audit" { "Audit log" }
                a href="/security" { "Security" }
            }
            div.who {
                @if user.seat.account().is_some() {
                    span.mode { (mode_switch(mode)) }
                }
                span { (user.email) }
                (post_button(signed, "/logout", "Sign out", &[]))
            }
        }
    }
}

/// Links to the same screen in either mode.
fn mode_switch(mode: Mode) -> Markup {
    html! {
        @for (m, label) in [(Mode::Test, "Sandbox"), (Mode::Live, "Live")] {
            @if m == mode { strong aria-current="page" { (label) } } @else { a href=(mode_query(m)) { (label) } }
        }
    }
}

/// Links to the page before and the page after, `link` making a page's URL.
pub fn pages(paging: &Paging, link: impl Fn(u64) -> String) -> Markup {
    html! {
        nav.pages aria-label="Pages" {
            @if let Some(previous) = paging.previous { a href=(link(previous)) { "Previous" } }
            @if let Some(next) = paging.next { a href=(link(next)) { "Next" } }
        }
    }
}

/// An account's issuing wallets of one mode.
pub fn wallets(balances: &WalletBalances) -> Markup {
    html! {
        dl.figures {
            @for currency in [Currency::Usd, Currency::Ngn] {
                div { dt { (currency.code()) } dd data-wallet=(currency.code()) { (money(currency, balances.of(currency))) } }
            }
        }
    }
}

/// A form's currency and amount fields (minor units), their ids led by
/// `id`.
pub fn money_fields(id: &str) -> Markup {
    html! {
        label for={(id) "-currency"} { "Currency" }
        select id={(id) "-currency"} name="currency" { option value="USD" { "USD" } option value="NGN" { "NGN" } }
        label for={(id) "-amount"} { "Amount, in minor units (cents, kobo)" }
        input id={(id) "-amount"} name="amount" inputmode="numeric" pattern="[0-9]+" required;
    }
}

/// `?mode=live` or `?mode=test`.
pub fn mode_query(mode: Mode) -> &'static str {
    match mode {
        Mode::Test => "?mode=test",
        Mode::Live => "?mode=live",
    }
}

pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Test => "test",
        Mode::Live => "live",
    }
}

/// The CSRF field every form carries.
pub fn csrf(signed: &Signed) -> Markup {
    html! { input type="hidden" name="csrf" value=(signed.csrf); }
}

/// A form of one button (and hidden fields) posting to `action`.
pub fn post_button(signed: &Signed, action: &str, label: &str, hidden: &[(&str, &str)]) -> Markup {
    html! {
        form.inline method="post" action=(action) {
            (csrf(signed))
            @for (name, value) in hidden { input type="hidden" name=(name) value=(value); }
            button type="submit" { (label) }
        }
    }
}

pub fn when(at: Timestamp) -> String {
    at.gmt()
}

/// Redirects to `to` after a form (303: the browser GETs it).
pub fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther().insert_header(("Location", to)).finish()
}

pub async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .body(include_str!("../../static/console.css"))
}

pub async fn not_found() -> HttpResponse {
    Problem::NotFound.error_response()
}

impl ResponseError for Problem {
    fn status_code(&self) -> StatusCode {
        match self {
            Problem::SignIn => StatusCode::SEE_OTHER,
            Problem::Forbidden | Problem::SecondFactor | Problem::Csrf => StatusCode::FORBIDDEN,
            Problem::NotFound => StatusCode::NOT_FOUND,
            Problem::BadForm => StatusCode::BAD_REQUEST,
            Problem::Refused { status, .. } => *status,
            Problem::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Problem::SignIn = self {
            return see_other("/login");
        }
        let title = match self.status_code() {
            StatusCode::NOT_FOUND => "Not found",
            StatusCode::FORBIDDEN => "Not allowed",
            StatusCode::SERVICE_UNAVAILABLE => "Please try again",
            _ => "That did not work",
        };
        let body = html! {
            h1 { (title) }
            p.error role="alert" { (self) }
            p { a href="/" { "Back to the console" } }
        };
        respond(self.status_code(), title, None, body)
    }
}

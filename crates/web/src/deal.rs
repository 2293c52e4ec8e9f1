//! The deal claim page: `GET` opens it from the app's link (its tokens
//! are used up here and a page session cookie takes over); `POST` claims
//! the chosen product and shows its promo code.

use crate::PagePaths;
use crate::layout::{error_page, page, promo_code, respond};
use actix_web::cookie::{Cookie, SameSite, time::Duration};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::rewards::{DealPage, DealQuery, PAGE_SESSION_SECS};
use maud::html;
use serde::Deserialize;

const COOKIE: &str = "issuing_deal";

#[derive(Deserialize)]
pub struct Query {
    reward_token: Option<String>,
    card_token: Option<String>,
    merchant: Option<String>,
    environment: Option<String>,
}

pub async fn open(app: web::Data<app::App>, paths: web::Data<PagePaths>, query: web::Query<Query>) -> HttpResponse {
    let query = query.into_inner();
    let asked = DealQuery {
        reward_token: query.reward_token,
        card_token: query.card_token,
        merchant: query.merchant,
        environment: query.environment,
    };
    let (deal, session) = match app.open_deal_page(asked).await {
        Ok(opened) => opened,
        Err(e) => return error_page(e),
    };
    let cookie = Cookie::build(COOKIE, session.0.expose().clone())
        .path(paths.rewards.clone())
        .http_only(true)
        .secure(paths.secure)
        .same_site(SameSite::Strict)
        .max_age(Duration::seconds(PAGE_SESSION_SECS))
        .finish();
    let mut response = HttpResponse::Ok();
    response.cookie(cookie);
    respond(response, &deal.merchant, deal_form(&deal, &paths.rewards))
}

/// The products to choose from; the form posts to the page's own path,
/// without the link's (used) tokens.
fn deal_form(deal: &DealPage, path: &str) -> maud::Markup {
    html! {
        h1 { (deal.merchant) }
        p.muted { (deal.description) }
        form method="post" action=(path) {
            input type="hidden" name="csrf" value=(deal.csrf);
            fieldset {
                legend { "Choose one product" }
                ul.products {
                    @for (n, (name, offer)) in deal.products.iter().enumerate() {
                        li {
                            label {
                                input type="radio" name="product" value=(name) required checked[n == 0];
                                div { strong { (name) } span { (offer) } }
                            }
                        }
                    }
                }
            }
            button type="submit" { "Claim this deal" }
        }
    }
}

#[derive(Deserialize)]
pub struct ClaimForm {
    csrf: Option<String>,
    product: Option<String>,
}

pub async fn claim(app: web::Data<app::App>, req: HttpRequest, form: web::Form<ClaimForm>) -> HttpResponse {
    let Some(session) = req.cookie(COOKIE) else {
        return error_page(app::rewards::PageError::Expired);
    };
    let form = form.into_inner();
    let csrf = form.csrf.unwrap_or_default();
    let product = form.product.unwrap_or_default();
    match app.claim_deal(session.value(), &csrf, &product).await {
        Ok(code) => page(StatusCode::OK, "Your promo code", promo_code(&code)),
        Err(e) => error_page(e),
    }
}

//! An account's cardholders: a search by name, phone or id with paging,
//! and one cardholder's details, KYC state and cards.

use super::problem::Problem;
use super::session::{Id, ModeQuery, Signed};
use super::view::{mode_query, money, page, pages, when};
use actix_web::{HttpResponse, web};
use app::{App, Caller};
use domain::ids::CardholderId;
use domain::paging::Page;
use domain::rewards::Reward;
use maud::html;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct ListQuery {
    #[serde(flatten)]
    mode: ModeQuery,
    q: Option<String>,
    page: Option<String>,
}

pub async fn list(app: web::Data<App>, signed: Signed, query: web::Query<ListQuery>) -> Result<HttpResponse, Problem> {
    let mode = query.mode.mode()?;
    let caller = Caller::console(signed.account()?, mode);
    let page_asked = Page::parse(query.page.as_deref(), Some("20"))?;
    let search = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    let (cardholders, paging) = match search {
        Some(q) => app.search_cardholders(&caller, q, page_asked).await?,
        None => app.list_cardholders(&caller, page_asked).await?,
    };
    let link = |number: u64| {
        let q = search.map(|q| format!("&q={}", urlencoded(q))).unwrap_or_default();
        format!("/cardholders{}{q}&page={number}", mode_query(mode))
    };
    let body = html! {
        h1 { "Cardholders" }
        form.search method="get" action="/cardholders" role="search" {
            input type="hidden" name="mode" value=(super::view::mode_name(mode));
            label for="q" { "Find by name, phone or id" }
            input id="q" name="q" type="search" value=(search.unwrap_or_default());
            button type="submit" { "Search" }
        }
        @if cardholders.is_empty() {
            p.empty { "No cardholder found." }
        } @else {
            table tabindex="0" {
                caption { (paging.total) " cardholders" }
                thead { tr { th { "Name" } th { "Phone" } th { "KYC" } th { "Registered" } } }
                tbody {
                    @for c in &cardholders {
                        tr {
                            td { a href={"/cardholders/" (c.id.as_str()) (mode_query(mode))} { (c.registration.first_name) " " (c.registration.last_name) } }
                            td { (c.registration.phone) }
                            td { (c.status.as_str()) }
                            td { (when(c.created_at)) }
                        }
                    }
                }
            }
            (pages(&paging, link))
        }
    };
    Ok(page(&signed, mode, "Cardholders", body))
}

/// A query value, percent-encoded.
pub fn urlencoded(value: &str) -> String {
    serde_urlencoded::to_string([("", value)]).unwrap_or_default()[1..].to_string()
}

pub async fn show(
    app: web::Data<App>,
    signed: Signed,
    Id(id): Id,
    query: web::Query<ModeQuery>,
) -> Result<HttpResponse, Problem> {
    let mode = query.mode()?;
    let caller = Caller::console(signed.account()?, mode);
    let id = CardholderId::new(id);
    let c = app.get_cardholder(&caller, &id).await?;
    let cards = app.cards_of_cardholder(&caller, &id).await?;
    let rewards = app.get_cardholder_rewards(&caller, id.as_str()).await?;
    let r = &c.registration;
    let body = html! {
        h1 { (r.first_name) " " (r.last_name) }
        dl.facts {
            div { dt { "Id" } dd { code { (c.id.as_str()) } } }
            div { dt { "Phone" } dd { (r.phone) } }
            div { dt { "Email" } dd { (r.email_address.as_deref().unwrap_or("—")) } }
            div { dt { "KYC" } dd { (c.status.as_str()) @if let Some(why) = &c.error_description { " (" (why) ")" } } }
            div { dt { "Registered" } dd { (when(c.created_at)) } }
        }
        h2 { "Cards" }
        @if cards.is_empty() {
            p.empty { "No card yet." }
        } @else {
            table tabindex="0" {
                thead { tr { th { "Card" } th { "Type" } th { "State" } th.amount { "Balance" } } }
                tbody {
                    @for card in &cards {
                        tr {
                            td { a href={"/cards/" (card.id.as_str()) (mode_query(mode))} { "•••• " (card.last_4) } }
                            td { (card.card_type.as_str()) " " (card.currency.code()) }
                            td { (super::cards::state(card.state)) }
                            td.amount { (money(card.currency, super::cards::balance(card))) }
                        }
                    }
                }
            }
        }
    };
    let body = html! {
        (body)
        h2 { "Rewards earned" }
        @if rewards.is_empty() {
            p.empty { "No reward yet." }
        } @else {
            table tabindex="0" {
                thead { tr { th { "Earned" } th { "Merchant" } th { "Reward" } th { "Claimed" } } }
                tbody {
                    @for r in &rewards {
                        @let (merchant, kind) = match &r.record.reward {
                            Reward::Deal(deal) => (&deal.merchant, "deal"),
                            Reward::PromoCode(code) => (&code.merchant, "promo code"),
                        };
                        tr {
                            td { (when(r.record.earned_at)) }
                            td { (merchant) }
                            td { (kind) }
                            td { @match r.record.claimed_at { Some(at) => (when(at)), None => "—" } }
                        }
                    }
                }
            }
        }
    };
    Ok(page(&signed, mode, "Cardholder", body))
}

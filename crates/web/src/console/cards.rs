//! A card: last 4, state, balance, limit, this month's spending and its
//! transactions with their merchants; frozen and unfrozen by an admin.
//! Never its number or CVV.

use super::problem::Problem;
use super::session::{Id, ModeQuery, Posted, Signed, parse_mode};
use super::view::{csrf, mode_name, mode_query, money, page, see_other, when};
use actix_web::{HttpResponse, web};
use app::cards::TransactionsQuery;
use app::rewards::ChartKind;
use app::{App, Caller};
use domain::cards::state::CardState;
use domain::ids::CardId;
use domain::{Amount, Mode};
use maud::html;
use ports::cards::CardRecord;
use serde::Deserialize;

/// How many of a card's transactions its page shows.
const SHOWN: &str = "25";

pub fn state(state: CardState) -> &'static str {
    match state {
        CardState::Active => "active",
        CardState::Frozen => "frozen",
        CardState::Deleted(_) => "deleted",
    }
}

/// What is on the card, held money included.
pub fn balance(card: &CardRecord) -> Amount {
    let balance = domain::cards::CardBalance::new(card.balance, card.held, card.fee_hold).balance;
    Amount::from_minor(balance).unwrap_or(Amount::ZERO)
}

/// The merchant an enriched transaction names.
fn merchant(enriched: &str) -> String {
    let data: serde_json::Value = serde_json::from_str(enriched).unwrap_or_default();
    data.get("merchant_name")
        .and_then(|v| v.as_str())
        .unwrap_or("—")
        .to_string()
}

pub async fn show(
    app: web::Data<App>,
    signed: Signed,
    Id(id): Id,
    query: web::Query<ModeQuery>,
) -> Result<HttpResponse, Problem> {
    let mode = query.mode()?;
    let caller = Caller::console(signed.account()?, mode);
    let id = CardId::new(id);
    let card = app.card(&caller, &id).await?;
    let spent = app.card_spending_controls(&caller, &id).await?.spent;
    let asked = TransactionsQuery {
        card_id: Some(id.as_str().to_string()),
        limit: Some(SHOWN.into()),
        ..Default::default()
    };
    let (transactions, _) = app.list_transactions(&caller, asked).await?;
    let chart = app.card_spending_chart(&caller, &id, ChartKind::Bar).await?;
    let limit = card.limit.monthly();
    let month = Amount::from_minor(spent.month).unwrap_or(Amount::ZERO);
    let action = match card.state {
        CardState::Active => Some(("freeze", "Freeze the card")),
        CardState::Frozen => Some(("unfreeze", "Unfreeze the card")),
        CardState::Deleted(_) => None,
    };
    let body = html! {
        h1 { (card.name) " •••• " (card.last_4) }
        dl.figures {
            div { dt { "State" } dd data-state { (state(card.state)) } }
            div { dt { "Balance" } dd { (money(card.currency, balance(&card))) } }
            div { dt { "Limit" } dd { (money(card.currency, limit)) } }
            div { dt { "Spent this month" } dd { (money(card.currency, month)) } }
        }
        p.muted { (card.card_type.as_str()) " " (card.currency.code()) " card of "
            a href={"/cardholders/" (card.cardholder_id.as_str()) (mode_query(mode))} { "its cardholder" } ", made " (when(card.created_at)) }
        @if let (Some((verb, label)), true) = (action, signed.acting().is_ok()) {
            form.inline method="post" action={"/cards/" (id.as_str()) "/" (verb)} {
                (csrf(&signed))
                input type="hidden" name="mode" value=(mode_name(mode));
                button type="submit" { (label) }
            }
        }
        h2 { "Spending by month" }
        (crate::charts::figure(&chart, "Spending by month"))
        h2 { "Transactions" }
        @if transactions.is_empty() {
            p.empty { "No transaction yet." }
        } @else {
            table tabindex="0" {
                thead { tr { th { "When" } th { "Merchant" } th { "What" } th { "Status" } th.amount { "Amount" } } }
                tbody {
                    @for t in &transactions {
                        tr {
                            td { (when(t.created_at)) }
                            td { (merchant(&t.enriched_data)) }
                            td { (t.description) }
                            td { (t.status.as_str()) }
                            td.amount { (money(t.currency, t.amount)) }
                        }
                    }
                }
            }
        }
    };
    Ok(page(&signed, mode, "Card", body))
}

#[derive(Deserialize)]
pub struct CardForm {
    mode: Option<String>,
}

async fn set_active(
    app: web::Data<App>,
    posted: Posted<CardForm>,
    id: String,
    active: bool,
) -> Result<HttpResponse, Problem> {
    let account = posted.signed.acting()?;
    let mode: Mode = parse_mode(posted.form.mode.as_deref())?;
    let id = CardId::new(id);
    app.set_card_active(&Caller::console(account.clone(), mode), &id, active, None)
        .await?;
    let action = if active { "unfroze a card" } else { "froze a card" };
    app.audit(
        &posted.signed.actor,
        Some(&account),
        action,
        format!("{} {}", mode_name(mode), id.as_str()),
    )
    .await?;
    Ok(see_other(&format!("/cards/{}{}", id.as_str(), mode_query(mode))))
}

pub async fn freeze(app: web::Data<App>, posted: Posted<CardForm>, Id(id): Id) -> Result<HttpResponse, Problem> {
    set_active(app, posted, id, false).await
}

pub async fn unfreeze(app: web::Data<App>, posted: Posted<CardForm>, Id(id): Id) -> Result<HttpResponse, Problem> {
    set_active(app, posted, id, true).await
}

//! Spending controls (an extension of the contract): a card's own, and the
//! account's for every card of the key's mode. A PUT replaces them whole.

use super::answers::NoSuchCard;
use super::cards::CardQuery;
use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed, Query};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use app::cards::{CardControlsView, ControlsInput};
use domain::cards::spending_controls::{Category, Channel, SpendingControls, Spent};
use domain::ids::CardId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every control is optional: one left out (or null) does not restrict.
/// Limits are in USD cents (a Naira card's debits count at the rate in
/// force), like the card's monthly limit.
/// A field of no control is refused: a PUT replaces every control, so a
/// misspelt one would lift them all.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ControlsBody {
    /// Only these merchant categories: 4-digit codes (ISO 18245) or the
    /// catalogue's groups (`Lodging`, `Transportation`, ...); 1 to 100.
    #[schema(example = json!(["5411", "Transportation"]))]
    allowed_categories: Option<Vec<String>>,
    /// Any but these (not with `allowed_categories`); up to 100.
    #[schema(example = json!(["7995"]))]
    blocked_categories: Option<Vec<String>>,
    /// Of `online`, `pos`, `atm`, `contactless`.
    #[schema(example = json!(["online", "pos"]))]
    allowed_channels: Option<Vec<String>>,
    /// ISO 3166-1 alpha-2 codes of the merchants' countries; 1 to 100.
    #[schema(example = json!(["NG", "GH"]))]
    allowed_countries: Option<Vec<String>>,
    #[schema(example = "50000")]
    per_authorization_limit: Option<AmountText>,
    /// Per GMT day of the mode's clock.
    daily_limit: Option<AmountText>,
    /// Per week from Monday.
    weekly_limit: Option<AmountText>,
    /// Per calendar month, beside the card's own monthly limit.
    monthly_limit: Option<AmountText>,
    /// Over the card's life.
    lifetime_limit: Option<AmountText>,
}

impl From<ControlsBody> for ControlsInput {
    fn from(b: ControlsBody) -> Self {
        ControlsInput {
            allowed_categories: b.allowed_categories,
            blocked_categories: b.blocked_categories,
            allowed_channels: b.allowed_channels,
            allowed_countries: b.allowed_countries,
            per_authorization_limit: AmountText::into_text(b.per_authorization_limit),
            daily_limit: AmountText::into_text(b.daily_limit),
            weekly_limit: AmountText::into_text(b.weekly_limit),
            monthly_limit: AmountText::into_text(b.monthly_limit),
            lifetime_limit: AmountText::into_text(b.lifetime_limit),
        }
    }
}

/// The controls in force; null: no such restriction.
#[derive(Serialize, ToSchema)]
pub struct ControlsView {
    allowed_categories: Option<Vec<String>>,
    blocked_categories: Vec<String>,
    allowed_channels: Option<Vec<&'static str>>,
    allowed_countries: Option<Vec<String>>,
    per_authorization_limit: Option<String>,
    daily_limit: Option<String>,
    weekly_limit: Option<String>,
    monthly_limit: Option<String>,
    lifetime_limit: Option<String>,
}

impl From<SpendingControls> for ControlsView {
    fn from(c: SpendingControls) -> Self {
        let names = |l: Vec<Category>| l.into_iter().map(String::from).collect::<Vec<_>>();
        let amount = |a: Option<domain::Amount>| a.map(|a| a.to_string());
        ControlsView {
            allowed_categories: c.allowed_categories.map(names),
            blocked_categories: names(c.blocked_categories),
            allowed_channels: c.allowed_channels.map(|l| l.into_iter().map(Channel::as_str).collect()),
            allowed_countries: c.allowed_countries.map(|l| l.into_iter().map(String::from).collect()),
            per_authorization_limit: amount(c.limits.per_authorization),
            daily_limit: amount(c.limits.daily),
            weekly_limit: amount(c.limits.weekly),
            monthly_limit: amount(c.limits.monthly),
            lifetime_limit: amount(c.limits.lifetime),
        }
    }
}

/// What the card's approved debits count in each window now, in USD cents.
#[derive(Serialize, ToSchema)]
pub struct SpentView {
    daily: String,
    weekly: String,
    monthly: String,
    lifetime: String,
}

impl From<Spent> for SpentView {
    fn from(s: Spent) -> Self {
        SpentView {
            daily: s.day.to_string(),
            weekly: s.week.to_string(),
            monthly: s.month.to_string(),
            lifetime: s.lifetime.to_string(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct CardControls {
    card_id: String,
    /// The card's own controls; the account's apply too.
    spending_controls: ControlsView,
    spent: SpentView,
}

fn card_view(card: CardId, view: CardControlsView) -> CardControls {
    CardControls {
        card_id: card.to_string(),
        spending_controls: view.controls.into(),
        spent: view.spent.into(),
    }
}

/// A card's own spending controls, and what its debits count in each
/// window now.
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/spending_controls",
    operation_id = "get_card_spending_controls",
    tag = "spending controls",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "The card's controls", body = Envelope<CardControls>),
        NoSuchCard,
    )
)]
pub async fn get_card_controls(
    Keyed(app, caller): Keyed,
    Query(query): Query<CardQuery>,
) -> Result<HttpResponse, ApiError> {
    let card = CardId::new(query.card_id);
    let view = app.card_spending_controls(&caller.0, &card).await?;
    let message = "Spending controls fetched successfully";
    Ok(success(StatusCode::OK, message, card_view(card, view)))
}

/// Replaces a card's own spending controls (`{}` removes them). Every
/// debit of the card must pass them and the account's.
#[utoipa::path(
    put,
    path = "/v1/issuing/cards/spending_controls",
    operation_id = "set_card_spending_controls",
    tag = "spending controls",
    security(("token" = [])),
    params(CardQuery),
    request_body = ControlsBody,
    responses(
        (status = 200, description = "The card's controls now", body = Envelope<CardControls>),
        (status = 400, description = "No such card, or a control breaks its rule", body = ErrorBody),
    )
)]
pub async fn set_card_controls(
    Keyed(app, caller): Keyed,
    Query(query): Query<CardQuery>,
    Json(body): Json<ControlsBody>,
) -> Result<HttpResponse, ApiError> {
    let card = CardId::new(query.card_id);
    let view = app.set_card_spending_controls(&caller.0, &card, body.into()).await?;
    let message = "Spending controls updated successfully";
    Ok(success(StatusCode::OK, message, card_view(card, view)))
}

/// The account's spending controls, for every card of the key's mode.
#[utoipa::path(
    get,
    path = "/v1/issuing/spending_controls",
    operation_id = "get_account_spending_controls",
    tag = "spending controls",
    security(("token" = [])),
    responses(
        (status = 200, description = "The account's controls", body = Envelope<ControlsView>),
    )
)]
pub async fn get_account_controls(Keyed(app, caller): Keyed) -> Result<HttpResponse, ApiError> {
    let controls = app
        .account_spending_controls(&caller.0)
        .await
        .map_err(app::RequestError::from)?;
    let message = "Spending controls fetched successfully";
    Ok(success(StatusCode::OK, message, ControlsView::from(controls)))
}

/// Replaces the account's spending controls (`{}` removes them): every
/// debit of every card of the key's mode must pass them, and the card's own.
#[utoipa::path(
    put,
    path = "/v1/issuing/spending_controls",
    operation_id = "set_account_spending_controls",
    tag = "spending controls",
    security(("token" = [])),
    request_body = ControlsBody,
    responses(
        (status = 200, description = "The account's controls now", body = Envelope<ControlsView>),
        (status = 400, description = "A control breaks its rule", body = ErrorBody),
    )
)]
pub async fn set_account_controls(
    Keyed(app, caller): Keyed,
    Json(body): Json<ControlsBody>,
) -> Result<HttpResponse, ApiError> {
    let controls = app.set_account_spending_controls(&caller.0, body.into()).await?;
    let message = "Spending controls updated successfully";
    Ok(success(StatusCode::OK, message, ControlsView::from(controls)))
}

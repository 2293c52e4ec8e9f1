//! What only Naira cards have: their balance (by card or cardholder id)
//! and their own freeze and unfreeze paths.

use super::answers::ReadTooSoon;
use super::cards::{CardIdData, CardQuery, set_active};
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Keyed, Query};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use domain::Currency;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NairaBalanceQuery {
    /// The cardholder's id (when they have one Naira card) or the card's.
    cardholder_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct NairaBalance {
    /// What can be spent or unloaded, in kobo.
    #[schema(example = "250000")]
    available_balance: String,
}

/// A Naira card's balance; at most once every 3 seconds per card.
#[utoipa::path(
    get,
    path = "/v1/issuing/naira_cards/get_card_balance",
    operation_id = "get_naira_card_balance",
    tag = "naira cards",
    security(("token" = [])),
    params(NairaBalanceQuery),
    responses(
        (status = 200, description = "The balance", body = Envelope<NairaBalance>),
        (status = 400, description = "No such cardholder or Naira card, or several cards and no card id", body = ErrorBody),
        ReadTooSoon,
    )
)]
pub async fn get_card_balance(
    Keyed(app, caller): Keyed,
    Query(query): Query<NairaBalanceQuery>,
) -> Result<HttpResponse, ApiError> {
    let (_, balance) = app.get_naira_card_balance(&caller.0, &query.cardholder_id).await?;
    Ok(success(
        StatusCode::OK,
        "Card balance was fetched successfully",
        NairaBalance {
            available_balance: balance.available.to_string(),
        },
    ))
}

/// Freeze a Naira card: `is_active` is false at once.
#[utoipa::path(
    patch,
    path = "/v1/issuing/naira_cards/freeze_card",
    operation_id = "freeze_naira_card",
    tag = "naira cards",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "Frozen", body = Envelope<CardIdData>),
        (status = 400, description = "No such Naira card", body = ErrorBody),
    )
)]
pub async fn freeze_card(keyed: Keyed, Query(query): Query<CardQuery>) -> Result<HttpResponse, ApiError> {
    let freeze = (false, Some(Currency::Ngn));
    set_active(keyed, query, freeze, "This card has been frozen successfully").await
}

/// Unfreeze a Naira card: `is_active` is true at once.
#[utoipa::path(
    patch,
    path = "/v1/issuing/naira_cards/unfreeze_card",
    operation_id = "unfreeze_naira_card",
    tag = "naira cards",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "Unfrozen", body = Envelope<CardIdData>),
        (status = 400, description = "No such Naira card", body = ErrorBody),
    )
)]
pub async fn unfreeze_card(keyed: Keyed, Query(query): Query<CardQuery>) -> Result<HttpResponse, ApiError> {
    let unfreeze = (true, Some(Currency::Ngn));
    set_active(keyed, query, unfreeze, "This card has been unfrozen successfully").await
}

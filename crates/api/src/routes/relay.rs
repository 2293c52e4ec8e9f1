//! The card-details relay: a second listener that shows card numbers,
//! CVVs and expiry dates in clear, to the screens that must show them.
//! Nothing else is served there.

use super::card_view::CardView;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authenticated, PathMode, Query};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use domain::Secret;
use domain::ids::CardId;
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Deserialize)]
pub struct RelayCardQuery {
    card_id: String,
}

/// On the relay address only: one card with its details in clear (the
/// same path as the base address's sealed `get_card_details`).
pub async fn get_card_details(
    app: web::Data<app::App>,
    caller: Authenticated,
    Query(query): Query<RelayCardQuery>,
) -> Result<HttpResponse, ApiError> {
    let (card, details) = app.reveal_card_details(&caller.0, &CardId::new(query.card_id)).await?;
    Ok(success(
        StatusCode::OK,
        "Card details were fetched successfully",
        CardView::revealed(card, details),
    ))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TokenQuery {
    /// From generate_token_for_card_details; single use, 5 minutes.
    token: String,
}

/// On the relay address only, no key needed: redeem a card-details token
/// for the card in clear. A used or expired token is 400.
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_card_details_from_token",
    tag = "relay",
    params(TokenQuery),
    responses(
        (status = 200, description = "The card, in clear", body = Envelope<CardView>),
        (status = 400, description = "Unknown, expired or used token", body = ErrorBody),
    )
)]
pub async fn get_card_details_from_token(
    app: web::Data<app::App>,
    PathMode(mode): PathMode,
    Query(query): Query<TokenQuery>,
) -> Result<HttpResponse, ApiError> {
    let (card, details) = app.redeem_card_details_token(mode, &Secret::new(query.token)).await?;
    Ok(success(
        StatusCode::OK,
        "Card details were fetched successfully",
        CardView::revealed(card, details),
    ))
}

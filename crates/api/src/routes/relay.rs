//! The one route only the relay address serves: redeeming a card-details
//! token, which needs no key and shows the card in clear.

use super::card_view::CardView;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{PathMode, Query};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use app::cards::ShownDetails;
use domain::Secret;
use serde::Deserialize;
use utoipa::IntoParams;

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
        CardView::single((card, ShownDetails::Clear(details))),
    ))
}

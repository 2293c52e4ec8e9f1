//! The routes only the relay address serves: redeeming a card-details
//! token (no key needed), and reading a Naira debit's 3-D Secure OTP.

use super::card_view::CardView;
use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Body, Keyed, PathMode, Query, parse_json};
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, HttpResponse, web};
use domain::Secret;
use domain::ids::CardId;
use serde::Deserialize;
use serde::Serialize;
use utoipa::IntoParams;
use utoipa::ToSchema;

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
        (status = 420, description = "The card's details were read less than 3 seconds ago; the token stays redeemable", body = ErrorBody),
    )
)]
pub async fn get_card_details_from_token(
    app: web::Data<app::App>,
    PathMode(mode): PathMode,
    Query(query): Query<TokenQuery>,
) -> Result<HttpResponse, ApiError> {
    let card = app.redeem_card_details_token(mode, &Secret::new(query.token)).await?;
    Ok(success(
        StatusCode::OK,
        "Card details were fetched successfully",
        CardView::single(card),
    ))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OtpQuery {
    card_id: String,
    /// The challenged debit's amount, in kobo.
    amount: String,
}

#[derive(Serialize, ToSchema)]
pub struct OtpData {
    /// Six digits, for `complete_3ds`; reading again gives a new one.
    #[schema(example = "123456")]
    otp: String,
}

/// On the relay address only: the OTP of the Naira card's 3-D Secure
/// challenge for exactly `amount`. None pending (or amount 0) is 400 with
/// `status: false`.
#[utoipa::path(
    get,
    path = "/v1/issuing/naira_cards/get_otp_message",
    tag = "relay",
    security(("token" = [])),
    params(OtpQuery),
    responses(
        (status = 200, description = "The OTP", body = Envelope<OtpData>),
        (status = 400, description = "No pending OTP for the card and amount", body = ErrorBody),
    )
)]
pub async fn get_otp_message(keyed: Keyed, Query(query): Query<OtpQuery>) -> Result<HttpResponse, ApiError> {
    otp_message(keyed, query.card_id, query.amount).await
}

/// `get_otp_message`'s body, as integrations that POST it send it.
#[derive(Deserialize, ToSchema)]
pub struct OtpBody {
    card_id: String,
    /// The challenged debit's amount, in kobo.
    amount: AmountText,
}

/// On the relay address only: `get_otp_message` as some integrations
/// send it, `POST` with the parameters in a JSON body (or, with no body,
/// in the query as for `GET`).
#[utoipa::path(
    post,
    path = "/v1/issuing/naira_cards/get_otp_message",
    tag = "relay",
    operation_id = "get_otp_message_by_post",
    security(("token" = [])),
    request_body = OtpBody,
    responses(
        (status = 200, description = "The OTP", body = Envelope<OtpData>),
        (status = 400, description = "No pending OTP for the card and amount, or the parameters are missing", body = ErrorBody),
    )
)]
pub async fn post_otp_message(keyed: Keyed, req: HttpRequest, Body(body): Body) -> Result<HttpResponse, ApiError> {
    let (card_id, amount) = match body.iter().all(u8::is_ascii_whitespace) {
        true => {
            let Query(query) = Query::<OtpQuery>::extract(&req).await?;
            (query.card_id, query.amount)
        }
        false => {
            let body: OtpBody = parse_json(&body)?;
            (body.card_id, body.amount.0)
        }
    };
    otp_message(keyed, card_id, amount).await
}

async fn otp_message(Keyed(app, caller): Keyed, card_id: String, amount: String) -> Result<HttpResponse, ApiError> {
    let otp = app.get_otp_message(&caller.0, &CardId::new(card_id), &amount).await?;
    Ok(success(
        StatusCode::OK,
        "The OTP was fetched successfully",
        OtpData {
            otp: otp.expose().clone(),
        },
    ))
}

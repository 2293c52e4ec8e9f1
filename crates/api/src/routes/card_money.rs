//! `fund_card_asynchronously`, `unload_card_asynchronously` and the Naira
//! `fund_naira_card` and `unload_naira_card`: 202 once the money is
//! reserved; the outcome follows by webhook. `fund_card` and
//! `unload_card` answer once it settled.

use super::answers::{FundedTooSoon, NotSettledInTime, UnloadedTooSoon};
use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use app::cards::TransferRequest;
use domain::Currency;
use domain::cards::transfer::TransferKind;
use domain::ids::CardId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
pub struct TransferBody {
    #[schema(required = true, nullable = false)]
    card_id: Option<String>,
    /// Cents (kobo on a Naira card).
    #[schema(example = "1000")]
    #[schema(required = true, nullable = false)]
    amount: Option<AmountText>,
    /// Yours; unique per account and mode across fundings, unloadings and debits.
    #[schema(required = true, nullable = false)]
    transaction_reference: Option<String>,
    #[schema(example = "USD")]
    currency: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct TransferAccepted {
    card_id: String,
    transaction_reference: String,
}

impl TransferBody {
    fn request(self) -> TransferRequest {
        TransferRequest {
            card_id: self.card_id,
            amount: AmountText::into_text(self.amount),
            transaction_reference: self.transaction_reference,
            currency: self.currency,
        }
    }
}

fn answered(status: StatusCode, message: &'static str, (card_id, reference): (CardId, String)) -> HttpResponse {
    let data = TransferAccepted {
        card_id: card_id.to_string(),
        transaction_reference: reference,
    };
    success(status, message, data)
}

async fn transfer(
    Keyed(app, caller): Keyed,
    body: TransferBody,
    (kind, currency): (TransferKind, Currency),
    message: &'static str,
) -> Result<HttpResponse, ApiError> {
    let reserved = app
        .request_card_transfer(&caller.0, kind, currency, body.request())
        .await?;
    Ok(answered(StatusCode::ACCEPTED, message, reserved))
}

/// Fund a card from the USD issuing wallet: the money is reserved at once
/// and `card_credit_event.successful` or `.failed` follows.
#[utoipa::path(
    patch,
    path = "/v1/issuing/cards/fund_card_asynchronously",
    tag = "cards",
    security(("token" = [])),
    request_body = TransferBody,
    responses(
        (status = 202, description = "Reserved; the outcome follows by webhook", body = Envelope<TransferAccepted>),
        (status = 400, description = "A field breaks a rule, no such card, the reference was used, or the card would hold over 5000 USD", body = ErrorBody),
        (status = 401, description = "Bad key, or the issuing wallet is too low", body = ErrorBody),
        FundedTooSoon,
    )
)]
pub async fn fund_card_asynchronously(keyed: Keyed, Json(body): Json<TransferBody>) -> Result<HttpResponse, ApiError> {
    let fund = (TransferKind::Fund, Currency::Usd);
    transfer(keyed, body, fund, "The card funding is processing").await
}

/// Unload a card back to the USD issuing wallet: the money is reserved at
/// once and `card_unload_event.successful` or `.failed` follows. The held
/// maintenance fee cannot be unloaded.
#[utoipa::path(
    patch,
    path = "/v1/issuing/cards/unload_card_asynchronously",
    tag = "cards",
    security(("token" = [])),
    request_body = TransferBody,
    responses(
        (status = 202, description = "Reserved; the outcome follows by webhook", body = Envelope<TransferAccepted>),
        (status = 400, description = "A field breaks a rule, no such card, or the reference was used", body = ErrorBody),
        (status = 401, description = "Bad key, or the card's available balance is too low", body = ErrorBody),
        UnloadedTooSoon,
    )
)]
pub async fn unload_card_asynchronously(
    keyed: Keyed,
    Json(body): Json<TransferBody>,
) -> Result<HttpResponse, ApiError> {
    let unload = (TransferKind::Unload, Currency::Usd);
    transfer(keyed, body, unload, "The card unloading is processing").await
}

/// The synchronous twins older integrations call: the same request,
/// answered once its movement settled (200) or failed (400
/// `transfer_failed`).
async fn settled_transfer(
    Keyed(app, caller): Keyed,
    body: TransferBody,
    kind: TransferKind,
    message: &'static str,
) -> Result<HttpResponse, ApiError> {
    // Older integrations leave `currency` out here: the path is USD's.
    let mut request = body.request();
    request.currency.get_or_insert_with(|| Currency::Usd.code().to_string());
    let settled = app
        .settled_card_transfer(&caller.0, kind, Currency::Usd, request)
        .await?;
    Ok(answered(StatusCode::OK, message, settled))
}

/// Fund a card from the USD issuing wallet and answer once the funding
/// settled, as older integrations expect: the body, references, limits
/// and events of `fund_card_asynchronously`. Not settled within 10
/// seconds: 504 `settlement_pending`, the funding still completing once;
/// the same request sent again waits for it.
#[utoipa::path(
    post,
    path = "/v1/issuing/cards/fund_card",
    tag = "cards",
    security(("token" = [])),
    request_body = TransferBody,
    responses(
        (status = 200, description = "The card was funded", body = Envelope<TransferAccepted>),
        (status = 400, description = "A field breaks a rule, no such card, the reference was used, or the funding failed (`transfer_failed`: the money is back in the wallet)", body = ErrorBody),
        (status = 401, description = "Bad key, or the issuing wallet is too low", body = ErrorBody),
        FundedTooSoon,
        NotSettledInTime,
    )
)]
pub async fn fund_card(keyed: Keyed, Json(body): Json<TransferBody>) -> Result<HttpResponse, ApiError> {
    settled_transfer(keyed, body, TransferKind::Fund, "The card was funded successfully").await
}

/// Unload a card to the USD issuing wallet and answer once the unloading
/// settled, as `fund_card` does for fundings.
#[utoipa::path(
    post,
    path = "/v1/issuing/cards/unload_card",
    tag = "cards",
    security(("token" = [])),
    request_body = TransferBody,
    responses(
        (status = 200, description = "The card was unloaded", body = Envelope<TransferAccepted>),
        (status = 400, description = "A field breaks a rule, no such card, the reference was used, or the unloading failed (`transfer_failed`: the money is back on the card)", body = ErrorBody),
        (status = 401, description = "Bad key, or the card's available balance is too low", body = ErrorBody),
        UnloadedTooSoon,
        NotSettledInTime,
    )
)]
pub async fn unload_card(keyed: Keyed, Json(body): Json<TransferBody>) -> Result<HttpResponse, ApiError> {
    settled_transfer(keyed, body, TransferKind::Unload, "The card was unloaded successfully").await
}

/// Fund a Naira card from the NGN issuing wallet (amount in kobo;
/// `currency` may be left out): the money is reserved at once and
/// `naira_card_credit_event.successful` or `.failed` follows.
#[utoipa::path(
    post,
    path = "/v1/issuing/naira_cards/fund_naira_card",
    tag = "naira cards",
    security(("token" = [])),
    request_body = TransferBody,
    responses(
        (status = 202, description = "Reserved; the outcome follows by webhook", body = Envelope<TransferAccepted>),
        (status = 400, description = "A field breaks a rule, no such Naira card, or the reference was used", body = ErrorBody),
        (status = 401, description = "Bad key, or the NGN issuing wallet is too low", body = ErrorBody),
        FundedTooSoon,
    )
)]
pub async fn fund_naira_card(keyed: Keyed, Json(body): Json<TransferBody>) -> Result<HttpResponse, ApiError> {
    let fund = (TransferKind::Fund, Currency::Ngn);
    transfer(keyed, body, fund, "The Naira card funding is processing").await
}

/// Unload a Naira card back to the NGN issuing wallet: the money is
/// reserved at once and `naira_card_unload_event.successful` follows, or
/// `naira_card_credit_event.failed` (the contract's name for a failed
/// Naira unloading too).
#[utoipa::path(
    patch,
    path = "/v1/issuing/naira_cards/unload_naira_card",
    tag = "naira cards",
    security(("token" = [])),
    request_body = TransferBody,
    responses(
        (status = 202, description = "Reserved; the outcome follows by webhook", body = Envelope<TransferAccepted>),
        (status = 400, description = "A field breaks a rule, no such Naira card, or the reference was used", body = ErrorBody),
        (status = 401, description = "Bad key, or the card balance is too low", body = ErrorBody),
        UnloadedTooSoon,
    )
)]
pub async fn unload_naira_card(keyed: Keyed, Json(body): Json<TransferBody>) -> Result<HttpResponse, ApiError> {
    let unload = (TransferKind::Unload, Currency::Ngn);
    transfer(keyed, body, unload, "The Naira card unloading is processing").await
}

/// `unload_naira_card` as some integrations send it: `POST`, the same body
/// and answer.
#[utoipa::path(
    post,
    path = "/v1/issuing/naira_cards/unload_naira_card",
    tag = "naira cards",
    operation_id = "unload_naira_card_by_post",
    security(("token" = [])),
    request_body = TransferBody,
    responses(
        (status = 202, description = "Reserved; the outcome follows by webhook", body = Envelope<TransferAccepted>),
        (status = 400, description = "A field breaks a rule, no such Naira card, or the reference was used", body = ErrorBody),
        (status = 401, description = "Bad key, or the card balance is too low", body = ErrorBody),
        UnloadedTooSoon,
    )
)]
pub async fn unload_naira_card_by_post(keyed: Keyed, body: Json<TransferBody>) -> Result<HttpResponse, ApiError> {
    unload_naira_card(keyed, body).await
}

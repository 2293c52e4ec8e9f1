//! Extensions: the sandbox's authorization lifecycle, as Stripe's test
//! helpers simulate it: a hold, its increments, its capture, reversal or
//! expiry, and refunds.

use super::answers::BadTestKey;
use super::card_transactions::AccountTransactionView;
use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, JsonOrEmpty, Keyed, path_id};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use app::cards::{HoldStepRequest, MockDebit, SandboxRefund, StepKind};
use domain::Amount;
use ports::card_transactions::HoldSettled;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of a sandbox authorization: a mock debit's, less `force`
/// and `three_ds` (a forced or challenged post is a debit).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HoldBody {
    #[schema(required = true, nullable = false)]
    card_id: Option<String>,
    /// The card's minor units; 100 when absent.
    #[schema(example = "1500")]
    amount: Option<AmountText>,
    /// The card's currency when absent; if sent, it must be it.
    #[schema(example = "USD")]
    currency: Option<String>,
    /// The raw merchant descriptor; a Netflix charge when absent.
    #[schema(example = "SHELL LEKKI")]
    merchant: Option<String>,
    /// 4 digits (ISO 18245).
    #[schema(example = "5541")]
    merchant_category_code: Option<String>,
    /// `online` (when absent), `pos`, `atm` or `contactless`.
    #[schema(example = "pos")]
    channel: Option<String>,
    /// ISO 3166-1 alpha-2: the default merchant's `US` when both are
    /// absent, else unknown.
    #[schema(example = "NG")]
    merchant_country: Option<String>,
    /// The network's reference; unique per account and mode across
    /// fundings, unloadings, debits and holds; generated when absent.
    transaction_reference: Option<String>,
}

impl From<HoldBody> for MockDebit {
    fn from(body: HoldBody) -> Self {
        MockDebit {
            card_id: body.card_id,
            amount: AmountText::into_text(body.amount),
            currency: body.currency,
            merchant: body.merchant,
            merchant_category_code: body.merchant_category_code,
            channel: body.channel,
            merchant_country: body.merchant_country,
            transaction_reference: body.transaction_reference,
            force: None,
            three_ds: None,
        }
    }
}

/// Sandbox only: place a hold on a card as the network's authorization
/// would, decided as a debit is (state, spending controls, limits,
/// balance). Approved, the card's `available_balance` drops by the amount
/// and its `book_balance` does not; `card_authorization_event.created`
/// tells it. A decline is answered 200 with `status: declined` and its
/// `decline_code`, and told by `card_debit_event.declined`. Uncaptured, the hold expires after 7 days
/// of the mode's clock (`--authorization-hold-secs`).
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/authorizations",
    operation_id = "create_authorization",
    tag = "sandbox",
    security(("token" = [])),
    request_body = HoldBody,
    responses(
        (status = 200, description = "The authorization, pending or declined", body = Envelope<AccountTransactionView>),
        (status = 400, description = "A field breaks a rule, no such card, or the reference was used", body = ErrorBody),
        BadTestKey,
    )
)]
pub async fn create_authorization(
    Keyed(app, caller): Keyed,
    Json(body): Json<HoldBody>,
) -> Result<HttpResponse, ApiError> {
    let authorization = app.create_authorization(&caller.0, body.into()).await?;
    let message = match authorization.decline_code {
        None => "The authorization's hold was placed",
        Some(_) => "The authorization was declined",
    };
    Ok(success(
        StatusCode::OK,
        message,
        AccountTransactionView::from(authorization),
    ))
}

#[derive(Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StepBody {
    /// In the card's minor units. A capture's: what is held when absent,
    /// at most 15% above it. A reversal's: all that is held when absent.
    #[schema(example = "1200")]
    amount: Option<AmountText>,
    /// The network's reference of a reversal: applied once by it; made up
    /// when absent.
    reference: Option<String>,
}

/// An increment's body: its amount is required.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IncrementBody {
    /// How much more to hold, in the card's minor units.
    #[schema(example = "300")]
    #[schema(required = true, nullable = false)]
    amount: Option<AmountText>,
    /// The network's reference of the increment: applied once by it; made
    /// up when absent.
    reference: Option<String>,
}

impl From<StepBody> for HoldStepRequest {
    fn from(StepBody { amount, reference }: StepBody) -> Self {
        let amount = AmountText::into_text(amount);
        HoldStepRequest { amount, reference }
    }
}

impl From<IncrementBody> for HoldStepRequest {
    fn from(IncrementBody { amount, reference }: IncrementBody) -> Self {
        StepBody { amount, reference }.into()
    }
}

/// What a step of an authorization did.
#[derive(Serialize, ToSchema)]
pub struct StepView {
    /// The authorization, in its state after the step.
    authorization: AccountTransactionView,
    /// What it holds now, in minor units.
    held_amount: String,
    /// What the capture cleared (captures only).
    captured_amount: Option<String>,
    /// What went back from the hold, and where: `card`, or
    /// `issuing_wallet` when the card is deleted or full.
    released_amount: String,
    released_to: Option<&'static str>,
    /// The capture's transaction (captures only): refund it by its
    /// `issuer_transaction_reference`.
    capture: Option<AccountTransactionView>,
}

impl From<HoldSettled> for StepView {
    fn from(s: HoldSettled) -> Self {
        let m = s.movement;
        StepView {
            authorization: s.authorization.into(),
            held_amount: s.held.to_string(),
            captured_amount: s.capture.is_some().then(|| m.captured().to_string()),
            released_amount: m.released.to_string(),
            released_to: (m.released > Amount::ZERO).then(|| m.released_to.as_str()),
            capture: s.capture.map(AccountTransactionView::from),
        }
    }
}

/// One step, for the four step endpoints.
async fn step(
    Keyed(app, caller): Keyed,
    id: web::Path<String>,
    kind: StepKind,
    body: StepBody,
) -> Result<HttpResponse, ApiError> {
    let id = path_id("authorization_id", id.into_inner())?;
    let settled = app.step_authorization(&caller.0, &id, kind, body.into()).await?;
    let message = match kind {
        StepKind::Capture => "The authorization was captured",
        StepKind::Reverse => "The authorization was reversed",
        StepKind::Expire => "The authorization expired",
    };
    Ok(success(StatusCode::OK, message, StepView::from(settled)))
}

/// Sandbox only: capture (clear) a pending authorization, in full (no
/// amount), in part, or above its hold by at most 15% (the excess from
/// the card's spendable balance). What is not captured goes back to the
/// card. Closes the authorization; `card_authorization_event.captured`.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/authorizations/{authorization_id}/capture",
    operation_id = "capture_authorization",
    tag = "sandbox",
    security(("token" = [])),
    params(("authorization_id" = String, Path, description = "The authorization's issuer_transaction_reference")),
    request_body(content = Option<StepBody>),
    responses(
        (status = 200, description = "Captured", body = Envelope<StepView>),
        (status = 400, description = "No such authorization, not pending, above the tolerance, or an excess the card cannot spend", body = ErrorBody),
        BadTestKey,
    )
)]
pub async fn capture(
    keyed: Keyed,
    id: web::Path<String>,
    JsonOrEmpty(body): JsonOrEmpty<StepBody>,
) -> Result<HttpResponse, ApiError> {
    step(keyed, id, StepKind::Capture, body).await
}

/// Sandbox only: release (part of) a pending authorization's hold to the
/// card. In part, it stays pending; in full (no amount), it is reversed.
/// `card_authorization_event.reversed`.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/authorizations/{authorization_id}/reverse",
    operation_id = "reverse_authorization",
    tag = "sandbox",
    security(("token" = [])),
    params(("authorization_id" = String, Path, description = "The authorization's issuer_transaction_reference")),
    request_body(content = Option<StepBody>),
    responses(
        (status = 200, description = "Reversed", body = Envelope<StepView>),
        (status = 400, description = "No such authorization, not pending, or the reference was applied", body = ErrorBody),
        BadTestKey,
    )
)]
pub async fn reverse(
    keyed: Keyed,
    id: web::Path<String>,
    JsonOrEmpty(body): JsonOrEmpty<StepBody>,
) -> Result<HttpResponse, ApiError> {
    step(keyed, id, StepKind::Reverse, body).await
}

/// Sandbox only: expire a pending authorization now, releasing its hold,
/// as its expiry job does after 7 days. `card_authorization_event.expired`.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/authorizations/{authorization_id}/expire",
    operation_id = "expire_authorization",
    tag = "sandbox",
    security(("token" = [])),
    params(("authorization_id" = String, Path, description = "The authorization's issuer_transaction_reference")),
    responses(
        (status = 200, description = "Expired", body = Envelope<StepView>),
        (status = 400, description = "No such authorization, or not pending", body = ErrorBody),
        BadTestKey,
    )
)]
pub async fn expire(keyed: Keyed, id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    step(keyed, id, StepKind::Expire, StepBody::default()).await
}

/// Sandbox only: raise a pending authorization's hold by `amount`,
/// decided as a debit of it is (balance, limits; the per-authorization
/// limit counts the whole authorization). Answers with the increment's
/// own transaction, pending or declined; `card_authorization_event.created`
/// tells an approved one.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/authorizations/{authorization_id}/increment",
    operation_id = "increment_authorization",
    tag = "sandbox",
    security(("token" = [])),
    params(("authorization_id" = String, Path, description = "The authorization's issuer_transaction_reference")),
    request_body = IncrementBody,
    responses(
        (status = 200, description = "The increment, pending or declined", body = Envelope<AccountTransactionView>),
        (status = 400, description = "No amount, no such authorization, not pending, or the reference was used", body = ErrorBody),
        BadTestKey,
    )
)]
pub async fn increment(
    Keyed(app, caller): Keyed,
    id: web::Path<String>,
    Json(body): Json<IncrementBody>,
) -> Result<HttpResponse, ApiError> {
    let id = path_id("authorization_id", id.into_inner())?;
    let increment = app.increment_authorization(&caller.0, &id, body.into()).await?;
    let message = match increment.decline_code {
        None => "The authorization's hold was raised",
        Some(_) => "The increment was declined",
    };
    Ok(success(
        StatusCode::OK,
        message,
        AccountTransactionView::from(increment),
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundBody {
    /// The capture's (or the debit's) issuer_transaction_reference.
    #[schema(required = true, nullable = false)]
    transaction_id: Option<String>,
    /// In the card's minor units; all that is left to give back when absent.
    #[schema(example = "500")]
    amount: Option<AmountText>,
    /// The network's reference of the refund: applied once by it; made up
    /// when absent.
    refund_reference: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct RefundView {
    transaction_id: String,
    refunded_amount: String,
    /// `card`, or `issuing_wallet` when the card is deleted or full.
    credited_to: &'static str,
}

/// Sandbox only: refund (part of) a captured transaction or a debit, at
/// most what it has left, possibly long after: the card is credited (the
/// issuing wallet when the card is deleted or full).
/// `card_refund_event.successful` and `card_reversal_event.successful`.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/refunds",
    operation_id = "create_refund",
    tag = "sandbox",
    security(("token" = [])),
    request_body = RefundBody,
    responses(
        (status = 200, description = "Refunded", body = Envelope<RefundView>),
        (status = 400, description = "No such capture or debit, given back in full already, or the reference was applied", body = ErrorBody),
        BadTestKey,
    )
)]
pub async fn refund(Keyed(app, caller): Keyed, Json(body): Json<RefundBody>) -> Result<HttpResponse, ApiError> {
    let request = SandboxRefund {
        transaction_id: body.transaction_id,
        amount: AmountText::into_text(body.amount),
        refund_reference: body.refund_reference,
    };
    let refunded = app.sandbox_refund(&caller.0, request).await?;
    let view = RefundView {
        transaction_id: refunded.debit.id,
        refunded_amount: refunded.amount.to_string(),
        credited_to: refunded.to.as_str(),
    };
    Ok(success(StatusCode::OK, "The transaction was refunded", view))
}

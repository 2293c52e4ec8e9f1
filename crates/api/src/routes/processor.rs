//! `POST /v1/processor/authorizations`: the card processor's real-time
//! authorization call, and `.../authorizations/complete_3ds` for the
//! challenges it opens, signed with the processor secret
//! (`x-processor-signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`).

use super::answers::{BadSignature, NoProcessorSecret};
use crate::MAX_BODY_BYTES;
use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{parse_json, payload_too_large};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::cards::{AuthorizationAnswer, AuthorizationRequest, ReversalRequest, Verdict};
use domain::Mode;
use domain::cards::hold::HoldRefusal;
use ports::card_transactions::HoldOutcome;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
pub struct AuthorizationBody {
    card_id: String,
    /// Cents.
    #[schema(example = "1500")]
    amount: AmountText,
    /// The raw merchant descriptor.
    #[schema(example = "UBER *TRIP HELP.UBER.COM")]
    merchant: String,
    #[schema(example = "4121")]
    merchant_category_code: Option<String>,
    /// How the card was used (`online`, `pos`, `atm`, `contactless`), for
    /// the spending controls; unknown when absent.
    #[schema(example = "pos")]
    channel: Option<String>,
    /// The merchant's country (ISO 3166-1 alpha-2), for the spending
    /// controls; unknown when absent.
    #[schema(example = "NG")]
    merchant_country: Option<String>,
    /// The network's reference; unique per account and mode.
    transaction_reference: String,
    /// A forced post (an offline capture): approved even past the balance.
    #[serde(default)]
    force: bool,
    /// Naira cards: ask the cardholder for a 3-D Secure OTP first. The
    /// answer is `challenge`; the debit posts when
    /// `/v1/processor/authorizations/complete_3ds` brings the OTP.
    #[serde(default)]
    three_ds: bool,
    /// Extension: place a hold (the card's available balance drops, its
    /// book balance does not) for `/v1/processor/captures` to clear later,
    /// instead of a debit; it expires after `--authorization-hold-secs`.
    #[serde(default)]
    hold: bool,
}

#[derive(Deserialize, ToSchema)]
pub struct CompletionBody {
    card_id: String,
    /// The challenged authorization's reference.
    transaction_reference: String,
    /// The 6 digits the cardholder read.
    #[schema(example = "123456")]
    otp: String,
}

#[derive(Deserialize, ToSchema)]
pub struct ReversalBody {
    card_id: String,
    /// The authorization's `transaction_reference`.
    transaction_reference: String,
    /// The processor's reference of this reversal or refund; applied once
    /// by it, per mode.
    reversal_reference: String,
    /// `reversal` (the default) or `refund`.
    #[schema(example = "refund")]
    kind: Option<String>,
    /// Cents (kobo on Naira cards). Absent: all the authorization took,
    /// which also voids it if its debit is not recorded yet.
    #[schema(example = "1500")]
    amount: Option<AmountText>,
}

#[derive(Serialize, ToSchema)]
pub struct ReversalData {
    /// `credited`, `released` (of a pending hold: it goes back to the
    /// card, the hold stays open until all is released), `already_applied` (this reversal_reference was
    /// applied before: nothing again), `nothing_left` (the authorization
    /// was given back in full), `voided` (its debit is refused if it
    /// comes), `no_such_debit`, or `card_not_found`.
    outcome: &'static str,
    /// What was credited, in minor units.
    #[serde(skip_serializing_if = "Option::is_none")]
    amount: Option<String>,
    /// `card`, or `issuing_wallet` when the card is deleted or would pass
    /// its limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    credited_to: Option<&'static str>,
}

#[derive(Deserialize, ToSchema)]
pub struct CaptureBody {
    card_id: String,
    /// The hold's `transaction_reference`.
    transaction_reference: String,
    /// Cents (kobo on Naira cards): at most 15% above what is held. What
    /// is held when absent.
    #[schema(example = "1500")]
    amount: Option<AmountText>,
}

#[derive(Serialize, ToSchema)]
pub struct CaptureData {
    /// `captured`, `not_pending` (captured, reversed or expired before:
    /// nothing again), `above_tolerance`, `insufficient_balance` (the card
    /// cannot spend the excess over the hold), or `no_such_authorization`.
    outcome: &'static str,
    /// What was cleared, and what went back from the hold, in minor units.
    #[serde(skip_serializing_if = "Option::is_none")]
    captured_amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    released_amount: Option<String>,
    /// The capture's issuer reference: a refund names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    issuer_transaction_reference: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct AuthorizationData {
    /// `approve`, `decline`, or `challenge` (ask the cardholder for the
    /// OTP, then complete the authorization).
    decision: &'static str,
    /// `approved`; the decline's code (`insufficient_balance`,
    /// `card_frozen`, `monthly_limit_exceeded`, `negative_balance`,
    /// `card_deleted`, `card_not_found`, `three_ds_failed`, a
    /// `spending_control_*` code); or with
    /// `challenge`, `three_ds_required` or `wrong_otp`.
    reason_code: &'static str,
    reason: &'static str,
    transaction_reference: String,
    issuer_transaction_reference: Option<String>,
    /// After a wrong OTP: how many more the challenge takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    otp_attempts_left: Option<u32>,
}

impl AuthorizationData {
    fn answer(answer: AuthorizationAnswer, transaction_reference: String) -> HttpResponse {
        let message = match answer.verdict {
            Verdict::Approve => "Approved",
            Verdict::Decline => "Declined",
            Verdict::Challenge => "Awaiting the cardholder's 3-D Secure OTP",
        };
        let data = AuthorizationData {
            decision: answer.verdict.as_str(),
            reason_code: answer.reason_code,
            reason: answer.reason,
            transaction_reference,
            issuer_transaction_reference: answer.issuer_transaction_reference,
            otp_attempts_left: answer.otp_attempts_left,
        };
        success(StatusCode::OK, message, data)
    }
}

/// The mode the processor signed `body` for, and the body parsed.
fn signed<T: DeserializeOwned>(app: &app::App, req: &HttpRequest, body: &[u8]) -> Result<(Mode, T), ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(payload_too_large(MAX_BODY_BYTES));
    }
    let signature = req
        .headers()
        .get("x-processor-signature")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mode = app.verify_processor(signature, body)?;
    Ok((mode, parse_json(body)?))
}

/// The processor's real-time authorization: approve or decline, with a
/// reason code. Declines are recorded and reported like sandbox debits.
#[utoipa::path(
    post,
    path = "/v1/processor/authorizations",
    tag = "processor",
    request_body = AuthorizationBody,
    params(("x-processor-signature" = String, Header, description = "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"t.body\"> under the processor secret; within 300 s")),
    responses(
        (status = 200, description = "The decision", body = Envelope<AuthorizationData>),
        (status = 400, description = "A field breaks a rule, or the reference was used", body = ErrorBody),
        BadSignature,
        NoProcessorSecret,
    )
)]
pub async fn authorize(app: web::Data<app::App>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, ApiError> {
    let (mode, parsed): (_, AuthorizationBody) = signed(&app, &req, &body)?;
    let reference = parsed.transaction_reference.clone();
    let request = AuthorizationRequest {
        card_id: parsed.card_id,
        amount: parsed.amount.0,
        merchant: parsed.merchant,
        merchant_category_code: parsed.merchant_category_code,
        channel: parsed.channel,
        merchant_country: parsed.merchant_country,
        transaction_reference: parsed.transaction_reference,
        force: parsed.force,
        three_ds: parsed.three_ds,
        hold: parsed.hold,
        deadline: None,
    };
    let answer = app.authorize(mode, request).await?;
    Ok(AuthorizationData::answer(answer, reference))
}

/// Completes an authorization answered `challenge` with the OTP the
/// cardholder gave: `approve` or `decline` as the engine decides (a
/// `decline` with `three_ds_failed` after the third wrong OTP or past the
/// challenge's five minutes), or `challenge` again (`wrong_otp`, with the
/// attempts left).
#[utoipa::path(
    post,
    path = "/v1/processor/authorizations/complete_3ds",
    operation_id = "complete_authorization_3ds",
    tag = "processor",
    request_body = CompletionBody,
    params(("x-processor-signature" = String, Header, description = "As for authorizations")),
    responses(
        (status = 200, description = "The decision", body = Envelope<AuthorizationData>),
        (status = 400, description = "No challenge awaits an OTP under this card and reference", body = ErrorBody),
        BadSignature,
        NoProcessorSecret,
    )
)]
pub async fn complete_3ds(
    app: web::Data<app::App>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (mode, parsed): (_, CompletionBody) = signed(&app, &req, &body)?;
    let answer = (
        parsed.card_id.as_str(),
        parsed.transaction_reference.as_str(),
        parsed.otp.as_str(),
    );
    let answer = app.complete_authorization(mode, answer).await?;
    Ok(AuthorizationData::answer(answer, parsed.transaction_reference))
}

/// Gives back (part of) an approved authorization: a reversal, or a
/// refund of a settled purchase. The card (or, the card deleted or full,
/// the issuing wallet) is credited at most what the authorization took
/// in all, once per `reversal_reference`, and
/// `card_reversal_event.successful` tells the account.
#[utoipa::path(
    post,
    path = "/v1/processor/reversals",
    tag = "processor",
    request_body = ReversalBody,
    params(("x-processor-signature" = String, Header, description = "As for authorizations")),
    responses(
        (status = 200, description = "What came of it", body = Envelope<ReversalData>),
        (status = 400, description = "A field breaks a rule", body = ErrorBody),
        BadSignature,
        NoProcessorSecret,
    )
)]
pub async fn reverse(app: web::Data<app::App>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, ApiError> {
    let (mode, parsed): (_, ReversalBody) = signed(&app, &req, &body)?;
    let request = ReversalRequest {
        card_id: parsed.card_id,
        transaction_reference: parsed.transaction_reference,
        reversal_reference: parsed.reversal_reference,
        kind: parsed.kind,
        amount: parsed.amount.map(|a| a.0),
    };
    let answer = app.reverse_authorization(mode, request).await?;
    let data = ReversalData {
        outcome: answer.outcome,
        amount: answer.credited.map(|(amount, _)| amount.minor().to_string()),
        credited_to: answer.credited.map(|(_, to)| to),
    };
    Ok(success(StatusCode::OK, "The processor's reversal was taken", data))
}

/// Extension: clears a hold placed with `hold: true`, in full, in part
/// (the rest goes back to the card) or above it by at most 15%; once.
/// `card_authorization_event.captured` tells the account.
#[utoipa::path(
    post,
    path = "/v1/processor/captures",
    operation_id = "processor_capture",
    tag = "processor",
    request_body = CaptureBody,
    params(("x-processor-signature" = String, Header, description = "As for authorizations")),
    responses(
        (status = 200, description = "What came of it", body = Envelope<CaptureData>),
        (status = 400, description = "A field breaks a rule", body = ErrorBody),
        BadSignature,
        NoProcessorSecret,
    )
)]
pub async fn capture(app: web::Data<app::App>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, ApiError> {
    let (mode, parsed): (_, CaptureBody) = signed(&app, &req, &body)?;
    let hold = (parsed.card_id.as_str(), parsed.transaction_reference.as_str());
    let outcome = app.processor_capture(mode, hold, parsed.amount.map(|a| a.0)).await?;
    let none = |outcome| CaptureData {
        outcome,
        captured_amount: None,
        released_amount: None,
        issuer_transaction_reference: None,
    };
    let data = match outcome {
        HoldOutcome::Settled(s) => CaptureData {
            outcome: "captured",
            captured_amount: Some(s.movement.captured().to_string()),
            released_amount: Some(s.movement.released.to_string()),
            issuer_transaction_reference: s.capture.map(|c| c.id),
        },
        HoldOutcome::Refused(HoldRefusal::NotPending(_)) | HoldOutcome::AlreadyApplied => none("not_pending"),
        HoldOutcome::Refused(HoldRefusal::AboveTolerance(_)) => none("above_tolerance"),
        HoldOutcome::Refused(HoldRefusal::InsufficientBalance) => none("insufficient_balance"),
        HoldOutcome::NoSuchAuthorization => none("no_such_authorization"),
    };
    Ok(success(StatusCode::OK, "The processor's capture was taken", data))
}

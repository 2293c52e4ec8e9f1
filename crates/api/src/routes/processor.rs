//! `POST /v1/processor/authorizations`: the card processor's real-time
//! authorization call, signed with the processor secret
//! (`x-processor-signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`).

use crate::MAX_BODY_BYTES;
use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{parse_json, payload_too_large};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::cards::AuthorizationRequest;
use domain::InvalidInput;
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
    /// The network's reference; unique per account and mode.
    transaction_reference: String,
    /// A forced post (an offline capture): approved even past the balance.
    #[serde(default)]
    force: bool,
}

#[derive(Serialize, ToSchema)]
pub struct AuthorizationData {
    /// `approve` or `decline`.
    decision: &'static str,
    /// `approved`, or the decline's code (`insufficient_balance`,
    /// `card_frozen`, `monthly_limit_exceeded`, `negative_balance`,
    /// `card_deleted`, `card_not_found`).
    reason_code: &'static str,
    reason: &'static str,
    transaction_reference: String,
    issuer_transaction_reference: Option<String>,
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
        (status = 401, description = "A missing, stale or wrong signature", body = ErrorBody),
        (status = 403, description = "No processor secret is configured", body = ErrorBody),
        (status = 413, description = "Body over 64 KiB", body = ErrorBody),
    )
)]
pub async fn authorize(app: web::Data<app::App>, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(payload_too_large());
    }
    let signature = req
        .headers()
        .get("x-processor-signature")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mode = app.verify_processor(signature, &body)?;
    let parsed: AuthorizationBody = parse_json(&body)?;
    if parsed.merchant.trim().is_empty() || parsed.transaction_reference.trim().is_empty() {
        return Err(InvalidInput::new("merchant", "merchant and transaction_reference must not be empty").into());
    }
    let reference = parsed.transaction_reference.clone();
    let request = AuthorizationRequest {
        card_id: parsed.card_id,
        amount: parsed.amount.0,
        merchant: parsed.merchant,
        merchant_category_code: parsed.merchant_category_code,
        transaction_reference: parsed.transaction_reference,
        force: parsed.force,
    };
    let answer = app.authorize(mode, request).await?;
    Ok(success(
        StatusCode::OK,
        if answer.approved { "Approved" } else { "Declined" },
        AuthorizationData {
            decision: if answer.approved { "approve" } else { "decline" },
            reason_code: answer.reason_code,
            reason: answer.reason,
            transaction_reference: reference,
            issuer_transaction_reference: answer.issuer_transaction_reference,
        },
    ))
}

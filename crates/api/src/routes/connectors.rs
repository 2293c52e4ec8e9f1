//! What the live connectors' providers call: `POST
//! /v1/connectors/smileid/callback` (Smile ID's outcome of an asynchronous
//! verification). Authenticated by the provider's own signature; the
//! body's claims are checked with the provider before anything changes.

use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use app::cardholders::CallbackApplied;
use serde::Serialize;
use utoipa::ToSchema;

/// Smile ID's callbacks carry the ID authority's photo: up to 1.5 MB, its
/// docs say.
pub const CALLBACK_MAX_BYTES: usize = 2 * 1024 * 1024;

#[derive(Serialize, ToSchema)]
pub struct CallbackData {
    /// `applied`; `already_decided` (an earlier callback or a review
    /// decided); `not_decided_yet` (the provider's job is not done);
    /// `unknown_job` (no pending cardholder of the signing mode has it).
    #[schema(example = "applied")]
    outcome: &'static str,
}

/// Smile ID's callback for an asynchronous verification. Its signature
/// (`timestamp`, `signature` in the body) is checked with the partner's
/// API key; only `PartnerParams.job_id` is read from it, and the outcome
/// is read from Smile ID's job status. A repeated or late callback changes
/// nothing.
#[utoipa::path(
    post,
    path = "/v1/connectors/smileid/callback",
    tag = "connectors",
    request_body(content = Object, description = "Smile ID's Enhanced KYC result, as its docs define it"),
    responses(
        (status = 200, description = "Taken", body = Envelope<CallbackData>),
        (status = 401, description = "Not signed by the Smile ID partner of either mode", body = ErrorBody),
        (status = 413, description = "Body over 2 MiB", body = ErrorBody),
        (status = 504, description = "Smile ID's job status could not be read; send again", body = ErrorBody),
    )
)]
pub async fn smileid_callback(app: web::Data<app::App>, body: web::Bytes) -> Result<HttpResponse, ApiError> {
    let outcome = match app.kyc_callback(&body).await? {
        CallbackApplied::Applied => "applied",
        CallbackApplied::AlreadyDecided => "already_decided",
        CallbackApplied::NotDecidedYet => "not_decided_yet",
        CallbackApplied::UnknownJob => "unknown_job",
    };
    Ok(success(StatusCode::OK, "Callback received", CallbackData { outcome }))
}

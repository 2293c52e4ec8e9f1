//! What the live connectors' providers call: `POST
//! /v1/connectors/sudo/gateway` (Sudo's real-time authorizations and
//! balance enquiries) and `POST /v1/connectors/smileid/callback` (Smile
//! ID's outcome of an asynchronous verification). Each is authenticated
//! as its provider documents, before its body is read.

use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::Body;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::cardholders::CallbackApplied;
use serde::Serialize;
use utoipa::ToSchema;

/// Sudo's authorization payloads carry the whole card, customer and
/// account objects.
pub const GATEWAY_MAX_BYTES: usize = 256 * 1024;

/// Sudo's gateway funding source: `authorization.request` is decided by
/// the authorization engine of `/v1/processor/authorizations` (same
/// rules, fee and records) and answered `{"statusCode": 200,
/// "responseCode": "00", ...}` to approve, or with the ISO 8583 code of
/// the decline (`51` insufficient funds, `62` frozen, `61` monthly limit,
/// `14` unknown or deleted card, `05` otherwise) and status 400;
/// `card.balance` is answered with the card's spendable balance in major
/// units (`data.balance`). The caller must present the funding source's
/// `authorizationHeader` (`ISSUING_SUDO_GATEWAY_SECRET`, as `Bearer
/// <secret>` or bare); the secret that matches says which mode's cards the
/// call may touch.
#[utoipa::path(
    post,
    path = "/v1/connectors/sudo/gateway",
    tag = "connectors",
    request_body(content = Object, description = "Sudo's event: {type: authorization.request | card.balance, data: {object}}"),
    params(("authorization" = String, Header, description = "The gateway funding source's authorizationHeader")),
    responses(
        (status = 200, description = "Approved, or the balance: Sudo's body"),
        (status = 400, description = "Declined (Sudo's body, with the ISO 8583 responseCode), or a body that is not Sudo's event", body = ErrorBody),
        (status = 401, description = "No credential, or not the gateway credential of either mode", body = ErrorBody),
        (status = 403, description = "A credential, but no mode runs on Sudo", body = ErrorBody),
    )
)]
pub async fn sudo_gateway(
    app: web::Data<app::App>,
    req: HttpRequest,
    Body(body): Body<GATEWAY_MAX_BYTES>,
) -> Result<HttpResponse, ApiError> {
    let authorization = req.headers().get("authorization").and_then(|v| v.to_str().ok());
    let (status, reply) = app.gateway_call(authorization, &body).await?;
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    Ok(HttpResponse::build(status).content_type("application/json").body(reply))
}

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
pub async fn smileid_callback(
    app: web::Data<app::App>,
    Body(body): Body<CALLBACK_MAX_BYTES>,
) -> Result<HttpResponse, ApiError> {
    let outcome = match app.kyc_callback(&body).await? {
        CallbackApplied::Applied => "applied",
        CallbackApplied::AlreadyDecided => "already_decided",
        CallbackApplied::NotDecidedYet => "not_decided_yet",
        CallbackApplied::UnknownJob => "unknown_job",
    };
    Ok(success(StatusCode::OK, "Callback received", CallbackData { outcome }))
}

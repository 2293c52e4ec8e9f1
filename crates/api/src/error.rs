//! Every error answer: `{message, code}` with the status its kind maps to.
//! Internal details are logged, never sent.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use domain::{DomainError, ErrorKind};
use serde::Serialize;
use std::fmt;
use utoipa::ToSchema;

/// The contract's status for rate-limited calls.
pub const RATE_LIMITED: u16 = 420;

/// The one error the contract marks `status: false`.
const NO_PENDING_OTP: &str = "no_pending_otp";

#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// What went wrong, naming the field and the rule where there is one.
    pub message: String,
    /// A stable machine-readable code, e.g. `invalid_request`, `rate_limited`.
    pub code: &'static str,
    /// `false` on the OTP error, as the contract has it; absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<bool>,
}

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: ErrorBody,
    retry_after_secs: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            body: ErrorBody {
                message: message.into(),
                status: (code == NO_PENDING_OTP).then_some(false),
                code,
            },
            retry_after_secs: None,
        }
    }
}

/// The `Retry-After` of a 503: a database failing over or a full queue
/// clears in about a second.
const RETRY_UNAVAILABLE_SECS: u64 = 1;

fn status_of(kind: ErrorKind) -> StatusCode {
    let code = match kind {
        ErrorKind::InvalidRequest => 400,
        // The contract reports a balance too low as 401.
        ErrorKind::Unauthorized | ErrorKind::InsufficientFunds => 401,
        ErrorKind::Forbidden => 403,
        ErrorKind::NotFound => 404,
        ErrorKind::Conflict => 409,
        ErrorKind::Unprocessable => 422,
        ErrorKind::RateLimited { .. } => RATE_LIMITED,
        ErrorKind::Blacklisted => 451,
        ErrorKind::Internal => 500,
        ErrorKind::Unavailable | ErrorKind::Overloaded => 503,
        ErrorKind::RetryLater => 504,
    };
    StatusCode::from_u16(code).expect("a valid status code")
}

impl<E: DomainError> From<E> for ApiError {
    fn from(e: E) -> Self {
        let kind = e.kind();
        let status = status_of(kind);
        let message = match kind {
            // Shed before any work: counted in the metrics
            // (`issuing_load_shed_total`), not logged one by one.
            ErrorKind::Overloaded => {
                "the service is over capacity and did nothing; retry after Retry-After".to_string()
            }
            _ if status.is_server_error() => {
                match kind {
                    // Asked to retry: a provider slow or a settlement still
                    // completing, not a fault of the service.
                    ErrorKind::RetryLater => tracing::warn!(code = e.code(), error = %e, "request not completed yet"),
                    _ => tracing::error!(code = e.code(), error = %e, "request failed"),
                }
                "the service could not complete the request; retry later".to_string()
            }
            _ => e.to_string(),
        };
        let mut error = ApiError::new(status, e.code(), message);
        match kind {
            ErrorKind::RateLimited { retry_after_secs } => {
                error.retry_after_secs = Some(retry_after_secs);
                metrics::counter!("issuing_rate_limit_refusals_total", "code" => e.code()).increment(1);
            }
            ErrorKind::Unavailable | ErrorKind::Overloaded => error.retry_after_secs = Some(RETRY_UNAVAILABLE_SECS),
            _ => {}
        }
        error
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.body.code, self.body.message)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if self.status.as_u16() == RATE_LIMITED {
            response.reason("Rate Limited");
        }
        if let Some(secs) = self.retry_after_secs {
            response.insert_header((header::RETRY_AFTER, HeaderValue::from(secs)));
        }
        response.json(&self.body)
    }
}

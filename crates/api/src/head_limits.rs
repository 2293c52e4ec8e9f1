//! Oversized request heads answered like every other refusal, as JSON
//! `{message, code}`. actix-http refuses a head past its own limits (128
//! KiB, 96 headers) itself, with a bodyless 431 and no hook; these limits
//! sit below its, so a head over them gets this JSON answer instead, and
//! only a head past actix's limits still gets the bare one.

use crate::error::ApiError;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;

/// The longest path and query taken (414 past it).
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The most headers taken, and their names and values in all (431 past
/// either).
pub const MAX_HEADERS: usize = 64;
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

fn oversized(req: &ServiceRequest) -> Option<ApiError> {
    let uri = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if uri > MAX_URI_BYTES {
        let message = format!("url: the path and query must be at most {MAX_URI_BYTES} bytes");
        return Some(ApiError::new(StatusCode::URI_TOO_LONG, "uri_too_long", message));
    }
    let headers = req.headers();
    let bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        let message = format!("headers: at most {MAX_HEADERS} headers of {MAX_HEADER_BYTES} bytes in all");
        let status = StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE;
        return Some(ApiError::new(status, "headers_too_large", message));
    }
    None
}

pub async fn refuse_oversized_heads(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    match oversized(&req) {
        Some(error) => Ok(req.error_response(error).map_into_right_body()),
        None => next.call(req).await.map(ServiceResponse::map_into_left_body),
    }
}

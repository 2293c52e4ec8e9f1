//! Every response carries `x-request-id` (the caller's, when it sent a
//! sane one), and every request is logged once in a span with that id
//! (and the account, once authenticated).
//!
//! Each request also runs as a task of its own, so a client that hangs up
//! never cancels storage work half-way: the work finishes, and its result
//! is dropped. (Cancelling SQLite work from actix's single-threaded
//! workers would also panic inside diesel-async's blocking wrapper.)
//!
//! When the binary serves metrics ([`record_metrics`]), each request is
//! counted and timed by its route's pattern (never its path, whose ids
//! would make a series each), method and status.
//!
//! Only the method and the path are logged: query strings can carry
//! single-use tokens, and headers carry keys. (tracing-actix-web's root
//! span records the full target, query included, hence this small
//! middleware.)

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tracing::Instrument;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Whether requests are counted: matching a request's route pattern walks
/// the routes again, a cost paid only when metrics are served.
static RECORDING: AtomicBool = AtomicBool::new(false);

/// Counts and times every request from now on (the metrics recorder is
/// installed).
pub fn record_metrics() {
    RECORDING.store(true, Ordering::Relaxed);
}

/// A request's method as a label: a client may send any token as a
/// method, and each would otherwise be a series of its own.
fn method_label(method: &Method) -> String {
    const KNOWN: [Method; 7] = [
        Method::GET,
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
        Method::HEAD,
        Method::OPTIONS,
    ];
    match KNOWN.contains(method) {
        true => method.to_string(),
        false => "other".into(),
    }
}

fn request_id(req: &ServiceRequest) -> String {
    req.headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty() && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_string)
}

pub async fn trace_requests(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = request_id(&req);
    // The root of its trace, whatever span the server's task is in.
    let span = tracing::info_span!(
        parent: None,
        "request",
        request_id = %id,
        method = %req.method(),
        path = %req.path(),
        account_id = tracing::field::Empty,
    );
    let started = Instant::now();
    let route = RECORDING.load(Ordering::Relaxed).then(|| {
        let pattern = req.match_pattern().unwrap_or_else(|| "unmatched".into());
        (pattern, method_label(req.method()))
    });
    let handled = actix_web::rt::spawn(next.call(req).instrument(span.clone()));
    let mut response = handled
        .await
        .map_err(|_| actix_web::error::ErrorInternalServerError("the request's task failed"))??;
    let value = HeaderValue::from_str(&id).expect("request ids are visible ASCII");
    response.headers_mut().insert(REQUEST_ID, value);
    if let Some((route, method)) = route {
        let status = response.status().as_u16().to_string();
        let labels = [("route", route), ("method", method), ("status", status)];
        metrics::counter!("issuing_http_requests_total", &labels).increment(1);
        metrics::histogram!("issuing_http_request_duration_seconds", &labels).record(started.elapsed().as_secs_f64());
    }
    span.in_scope(|| {
        tracing::info!(
            status = response.status().as_u16(),
            elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
            "handled"
        );
    });
    Ok(response)
}

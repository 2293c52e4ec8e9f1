//! `Idempotency-Key` on every write of the two mode scopes: the middleware
//! reads the key and the request, and the use cases (`App::begin_idempotent`
//! and `App::end_idempotent`) decide whether it runs. Without the header a
//! request passes straight through.

use crate::Surface;
use crate::error::ApiError;
use crate::extract::{Body, PathMode, token_header};
use actix_web::body::{BoxBody, EitherBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse, ResponseError, web};
use app::idempotency::Begun;
use domain::idempotency::{Fingerprint, HEADER, IdempotencyKey};
use domain::{InvalidInput, Mode};
use ports::idempotency::KeptAnswer;
use sha2::{Digest, Sha256};

/// Marks an answer given again from the key's first request.
const REPLAYED: &str = "Idempotent-Replayed";

/// The middleware of a resource serving `methods`: a method it does not
/// serve gets its 405 whatever the headers.
pub async fn keyed(
    methods: std::sync::Arc<[Method]>,
    req: ServiceRequest,
    next: Next<BoxBody>,
) -> Result<ServiceResponse<EitherBody<BoxBody>>, actix_web::Error> {
    let method = req.method();
    let writes =
        matches!(*method, Method::POST | Method::PUT | Method::PATCH | Method::DELETE) && methods.contains(method);
    let mode = req.app_data::<PathMode>().map(|PathMode(mode)| *mode);
    let mut keys = req.headers().get_all(HEADER);
    // Reads, and paths of no mode, never look at the header.
    let sent = match (writes && mode.is_some(), keys.next(), keys.next()) {
        (false, ..) | (true, None, _) => None,
        (true, Some(key), None) => Some(IdempotencyKey::parse(key.as_bytes())),
        (true, Some(_), Some(_)) => Some(Err(InvalidInput::new(HEADER, "must be given once"))),
    };
    let (Some(sent), Some(mode)) = (sent, mode) else {
        return next.call(req).await.map(ServiceResponse::map_into_left_body);
    };
    let key = match sent {
        Ok(key) => key,
        Err(e) => return Ok(refused(req, ApiError::from(e))),
    };
    let request = req.request().clone();
    // The request runs to its end as a task of its own, so that a client
    // that hangs up cannot leave its key held with the work half known,
    // nor a storage query cancelled half-way.
    let run = actix_web::rt::spawn(run_keyed(mode, key, req, next));
    Ok(run.await.unwrap_or_else(|_| {
        let error = ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the request did not finish",
        );
        ServiceResponse::new(request, error.error_response()).map_into_right_body()
    }))
}

/// Runs a write sent with `key`, or answers as its key's first request
/// was answered.
async fn run_keyed(
    mode: Mode,
    key: IdempotencyKey,
    mut req: ServiceRequest,
    next: Next<BoxBody>,
) -> ServiceResponse<EitherBody<BoxBody>> {
    let app = req
        .app_data::<web::Data<app::App>>()
        .cloned()
        .expect("the app is wired");
    // A caller the key does not authenticate gets its 401 from the
    // endpoint, as without the header: nothing is kept for it.
    let Ok(caller) = app.authenticate(token_header(req.headers()).as_deref(), mode).await else {
        return answered(req, next).await.map_into_left_body();
    };
    // The endpoint's extractor takes the caller found here.
    req.extensions_mut().insert(caller.clone());
    let body = match req.extract::<Body>().await {
        Ok(Body(body)) => body,
        Err(e) => return refused(req, e),
    };
    let held = match app.begin_idempotent(&caller, key, fingerprint(&req, &body)).await {
        Ok(Begun::Run(held)) => held,
        Ok(Begun::Replay(answer)) => return replayed(req, answer),
        Err(e) => return refused(req, ApiError::from(e)),
    };
    req.set_payload(actix_web::dev::Payload::from(body));
    let (request, response) = answered(req, next).await.into_parts();
    let (response, body) = response.into_parts();
    let (response, body) = match actix_web::body::to_bytes(body).await {
        Ok(body) => (response, body),
        Err(_) => {
            let error = ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the answer could not be read",
            );
            (error.error_response().drop_body(), web::Bytes::new())
        }
    };
    let answer = KeptAnswer {
        status: response.status().as_u16(),
        content_type: response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        body: body.to_vec(),
    };
    app.end_idempotent(held, &answer).await;
    ServiceResponse::new(request, response.set_body(body).map_into_boxed_body()).map_into_right_body()
}

/// The endpoint's answer, an error of the chain rendered as one.
async fn answered(req: ServiceRequest, next: Next<BoxBody>) -> ServiceResponse<BoxBody> {
    let request = req.request().clone();
    next.call(req)
        .await
        .unwrap_or_else(|e| ServiceResponse::from_err(e, request))
}

/// What the key was first used for: the method and path on this listener,
/// and a hash of the query and the body as sent.
fn fingerprint(req: &ServiceRequest, body: &[u8]) -> Fingerprint {
    let relay = match req.app_data::<Surface>() {
        Some(Surface::Relay) => " (relay)",
        _ => "",
    };
    let query = req.query_string().as_bytes();
    let mut hash = Sha256::new();
    hash.update((query.len() as u64).to_be_bytes());
    hash.update(query);
    hash.update(body);
    Fingerprint {
        request: format!("{} {}{relay}", req.method(), req.path()),
        params_hash: hex::encode(hash.finalize()),
    }
}

fn replayed(req: ServiceRequest, answer: KeptAnswer) -> ServiceResponse<EitherBody<BoxBody>> {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = HttpResponse::build(status);
    if let Some(content_type) = answer.content_type.and_then(|v| HeaderValue::from_str(&v).ok()) {
        response.insert_header((header::CONTENT_TYPE, content_type));
    }
    let response = response.insert_header((REPLAYED, "true")).body(answer.body);
    req.into_response(response).map_into_right_body()
}

fn refused(req: ServiceRequest, error: ApiError) -> ServiceResponse<EitherBody<BoxBody>> {
    req.into_response(error.error_response()).map_into_right_body()
}

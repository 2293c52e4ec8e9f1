use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct HealthData {
    /// `reachable` when a database round trip succeeded.
    #[schema(example = "reachable")]
    database: &'static str,
    /// What live mode runs on: `simulated` (the card-network and KYC
    /// simulators: for trials only), `mixed`, or `real` (the providers'
    /// connectors).
    #[schema(example = "real")]
    live_connectors: &'static str,
}

/// Readiness: a database round trip; 503 when the database is unreachable.
#[utoipa::path(
    get,
    path = "/health",
    tag = "utility",
    responses(
        (status = 200, description = "The service and its database answer", body = Envelope<HealthData>),
        (status = 503, description = "The database is unreachable", body = ErrorBody),
    )
)]
pub async fn health(app: web::Data<app::App>) -> Result<HttpResponse, ApiError> {
    app.health().await?;
    Ok(success(
        StatusCode::OK,
        "The service is healthy",
        HealthData {
            database: "reachable",
            live_connectors: app.live_connectors().as_str(),
        },
    ))
}

#[derive(Serialize, ToSchema)]
pub struct LiveData {
    /// Always `live`: the process accepts and answers requests.
    #[schema(example = "live")]
    process: &'static str,
}

/// Liveness: the process answers, with no database work (for a supervisor
/// that should restart a stuck process, not one waiting on its database).
#[utoipa::path(
    get,
    path = "/health/live",
    tag = "utility",
    responses((status = 200, description = "The process answers", body = Envelope<LiveData>))
)]
pub async fn live() -> HttpResponse {
    success(StatusCode::OK, "The service is live", LiveData { process: "live" })
}

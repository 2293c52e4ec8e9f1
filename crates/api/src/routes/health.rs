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
}

/// Liveness with a database round trip; 503 when the database is unreachable.
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
        HealthData { database: "reachable" },
    ))
}

//! The success envelope: `{status: "success", message, data}`.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct Envelope<T> {
    /// Always `success`.
    #[schema(example = "success")]
    pub status: &'static str,
    pub message: &'static str,
    pub data: T,
}

pub fn success<T: Serialize>(status: StatusCode, message: &'static str, data: T) -> HttpResponse {
    HttpResponse::build(status).json(Envelope {
        status: "success",
        message,
        data,
    })
}

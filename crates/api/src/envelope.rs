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

/// The `data` of answers that carry nothing: `{}`.
#[derive(Serialize, ToSchema)]
pub struct Empty {}

/// The paging object of list responses (`data.meta`).
#[derive(Serialize, ToSchema)]
pub struct Meta {
    pub total: u64,
    pub pages: u64,
    pub previous: Option<u64>,
    pub next: Option<u64>,
}

impl From<domain::paging::Paging> for Meta {
    fn from(p: domain::paging::Paging) -> Self {
        Meta {
            total: p.total,
            pages: p.pages,
            previous: p.previous,
            next: p.next,
        }
    }
}

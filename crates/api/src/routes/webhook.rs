use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
pub struct WebhookBody {
    /// An absolute http:// or https:// URL.
    #[schema(example = "https://example.com/issuing/webhooks")]
    url: String,
}

#[derive(Serialize, ToSchema)]
pub struct WebhookData {
    url: String,
}

/// Where the account's events of the key's mode are delivered.
#[utoipa::path(
    patch,
    path = "/v1/issuing/webhook",
    tag = "events",
    security(("token" = [])),
    request_body = WebhookBody,
    responses(
        (status = 200, description = "The URL is set", body = Envelope<WebhookData>),
        (status = 400, description = "Not an http(s) URL", body = ErrorBody),
    )
)]
pub async fn set_webhook_url(
    Keyed(app, caller): Keyed,
    Json(body): Json<WebhookBody>,
) -> Result<HttpResponse, ApiError> {
    let url = app.set_webhook_url(&caller.0, &body.url).await?;
    Ok(success(
        StatusCode::OK,
        "Webhook URL was set successfully",
        WebhookData { url },
    ))
}

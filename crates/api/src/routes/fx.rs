use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::Keyed;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct FxRateData {
    /// Kobo paid for 1 USD.
    #[serde(rename = "NGN-USD")]
    #[schema(example = "160000")]
    ngn_usd: String,
    /// Kobo received for 1 USD.
    #[serde(rename = "USD-NGN")]
    #[schema(example = "155000")]
    usd_ngn: String,
}

/// The configured exchange rates, once a minute per account and mode.
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/fx-rate",
    tag = "wallets",
    security(("token" = [])),
    responses(
        (status = 200, description = "The rates, in kobo per 1 USD", body = Envelope<FxRateData>),
        (status = 420, description = "Called less than a minute ago; see Retry-After", body = ErrorBody),
    )
)]
pub async fn get_fx_rate(Keyed(app, caller): Keyed) -> Result<HttpResponse, ApiError> {
    let rates = app.get_fx_rate(&caller.0).await?;
    let data = FxRateData {
        ngn_usd: rates.ngn_usd.to_string(),
        usd_ngn: rates.usd_ngn.to_string(),
    };
    Ok(success(StatusCode::OK, "FX rate was fetched successfully", data))
}

use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed, Query};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use domain::{Amount, Currency};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FundIssuingWalletQuery {
    /// `USD` (the default) or `NGN`.
    currency: Option<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct FundIssuingWalletBody {
    /// Minor units (cents or kobo).
    #[schema(example = "100000")]
    amount: AmountText,
}

#[derive(Serialize, ToSchema)]
pub struct FundIssuingWalletData {
    #[schema(example = "USD")]
    currency: &'static str,
    #[schema(example = "100000")]
    amount: String,
    /// The wallet's balance after the funding, in minor units.
    #[schema(example = "100000")]
    issuing_balance: String,
}

/// Sandbox only: credit the sandbox issuing wallet with test money.
#[utoipa::path(
    patch,
    path = "/v1/issuing/sandbox/cards/fund_issuing_wallet",
    tag = "wallets",
    security(("token" = [])),
    params(FundIssuingWalletQuery),
    request_body = FundIssuingWalletBody,
    responses(
        (status = 200, description = "The wallet was credited", body = Envelope<FundIssuingWalletData>),
        (status = 400, description = "A field breaks a rule; the message names it", body = ErrorBody),
    )
)]
pub async fn fund_issuing_wallet(
    Keyed(app, caller): Keyed,
    Query(query): Query<FundIssuingWalletQuery>,
    Json(body): Json<FundIssuingWalletBody>,
) -> Result<HttpResponse, ApiError> {
    let currency = match query.currency.as_deref() {
        None => Currency::Usd,
        Some(code) => Currency::parse("currency", code)?,
    };
    let amount = Amount::parse_positive("amount", &body.amount.0)?;
    let balance = app.fund_issuing_wallet(&caller.0, currency, amount).await?;
    let data = FundIssuingWalletData {
        currency: currency.code(),
        amount: amount.to_string(),
        issuing_balance: balance.to_string(),
    };
    Ok(success(StatusCode::OK, "Issuing wallet was funded successfully", data))
}

#[derive(Serialize, ToSchema)]
pub struct IssuingWalletBalanceData {
    /// Cents.
    #[serde(rename = "issuing_balance_USD")]
    #[schema(example = "100000")]
    issuing_balance_usd: String,
    /// Kobo.
    #[serde(rename = "issuing_balance_NGN")]
    #[schema(example = "0")]
    issuing_balance_ngn: String,
}

/// The balances of the account's issuing wallets in the mode of the key.
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_issuing_wallet_balance",
    tag = "wallets",
    security(("token" = [])),
    responses(
        (status = 200, description = "Both wallet balances, in minor units", body = Envelope<IssuingWalletBalanceData>),
    )
)]
pub async fn get_issuing_wallet_balance(Keyed(app, caller): Keyed) -> Result<HttpResponse, ApiError> {
    let balances = app.get_issuing_wallet_balance(&caller.0).await?;
    let data = IssuingWalletBalanceData {
        issuing_balance_usd: balances.usd.to_string(),
        issuing_balance_ngn: balances.ngn.to_string(),
    };
    Ok(success(
        StatusCode::OK,
        "Issuing wallet balance was fetched successfully",
        data,
    ))
}

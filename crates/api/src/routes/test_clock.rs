use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use app::ModeClock;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Deserialize, ToSchema)]
pub struct AdvanceBody {
    /// How far to move the sandbox forward, in seconds (1 to about ten years).
    #[schema(example = 301, minimum = 1, maximum = 316_224_000)]
    #[serde(deserialize_with = "crate::whole_number::required")]
    seconds: i64,
}

#[derive(Serialize, ToSchema)]
pub struct TestClockData {
    /// The sandbox's time, unix seconds.
    now: i64,
    /// How far the sandbox is ahead of real time.
    offset_secs: i64,
}

impl From<ModeClock> for TestClockData {
    fn from(c: ModeClock) -> Self {
        TestClockData {
            now: c.now.unix(),
            offset_secs: c.ahead_secs,
        }
    }
}

/// Sandbox only: move the account's sandbox forward in time. Rate limits,
/// scheduled jobs and every other time rule see the new time; live mode
/// never moves.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/test_clock/advance",
    tag = "sandbox",
    security(("token" = [])),
    request_body = AdvanceBody,
    responses(
        (status = 200, description = "The sandbox's new time", body = Envelope<TestClockData>),
        (status = 400, description = "seconds out of range", body = ErrorBody),
        (status = 409, description = "The sandbox clock would run more than a century ahead (`sandbox_clock_limit`)", body = ErrorBody),
    )
)]
pub async fn advance_test_clock(
    Keyed(app, caller): Keyed,
    Json(body): Json<AdvanceBody>,
) -> Result<HttpResponse, ApiError> {
    let clock = app.advance_test_clock(&caller.0, body.seconds).await?;
    Ok(success(
        StatusCode::OK,
        "The test clock was advanced",
        TestClockData::from(clock),
    ))
}

/// Sandbox only: the account's sandbox time.
#[utoipa::path(
    get,
    path = "/v1/issuing/sandbox/test_clock",
    tag = "sandbox",
    security(("token" = [])),
    responses(
        (status = 200, description = "The sandbox's time", body = Envelope<TestClockData>),
    )
)]
pub async fn get_test_clock(Keyed(app, caller): Keyed) -> Result<HttpResponse, ApiError> {
    let clock = app.get_test_clock(&caller.0).await?;
    Ok(success(
        StatusCode::OK,
        "The test clock was fetched",
        TestClockData::from(clock),
    ))
}

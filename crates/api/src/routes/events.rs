use super::answers::BadPage;
use crate::envelope::{Envelope, Meta, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Keyed, Query, path_id};
use crate::paging::PageQuery;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use domain::ids::EventId;
use ports::events::{DeliveryAttempt, EventRecord};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct Delivery {
    /// `pending`, `delivered`, `failed` or `no_endpoint`.
    #[schema(example = "delivered")]
    state: &'static str,
    attempts: u32,
    delivered_at: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct EventView {
    event_id: String,
    #[schema(example = "cardholder_verification.successful")]
    event: String,
    /// Unix seconds (sandbox events: the sandbox's test clock).
    created_at: i64,
    livemode: bool,
    #[schema(value_type = std::collections::HashMap<String, serde_json::Value>)]
    data: serde_json::Value,
    delivery: Delivery,
}

impl From<EventRecord> for EventView {
    fn from(e: EventRecord) -> Self {
        EventView {
            data: serde_json::from_str(&e.data).unwrap_or(serde_json::Value::Null),
            event_id: e.id.to_string(),
            event: e.event,
            created_at: e.created_at.unix(),
            livemode: e.mode.is_live(),
            delivery: Delivery {
                state: e.delivery_state.as_str(),
                attempts: e.attempts,
                delivered_at: e.delivered_at.map(domain::Timestamp::unix),
            },
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AttemptView {
    attempt: u32,
    attempted_at: i64,
    url: String,
    /// The receiver's HTTP status; absent when there was no answer.
    status_code: Option<u16>,
    error: Option<String>,
    duration_ms: i64,
}

impl From<DeliveryAttempt> for AttemptView {
    fn from(a: DeliveryAttempt) -> Self {
        AttemptView {
            attempt: a.attempt,
            attempted_at: a.outcome.attempted_at.unix(),
            url: a.outcome.url,
            status_code: a.outcome.status_code,
            error: a.outcome.error,
            duration_ms: a.outcome.duration_ms,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct EventList {
    events: Vec<EventView>,
    meta: Meta,
}

#[derive(Serialize, ToSchema)]
pub struct EventDetail {
    #[serde(flatten)]
    event: EventView,
    attempts: Vec<AttemptView>,
}

#[derive(Serialize, ToSchema)]
pub struct EventIdData {
    event_id: String,
}

/// The account's webhook events in the key's mode, newest first.
#[utoipa::path(
    get,
    path = "/v1/issuing/events",
    tag = "events",
    security(("token" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of events", body = Envelope<EventList>),
        BadPage,
    )
)]
pub async fn list_events(Keyed(app, caller): Keyed, Query(query): Query<PageQuery>) -> Result<HttpResponse, ApiError> {
    let page = query.page()?;
    let (events, paging) = app.list_events(&caller.0, page).await?;
    let data = EventList {
        events: events.into_iter().map(EventView::from).collect(),
        meta: paging.into(),
    };
    Ok(success(StatusCode::OK, "Events were fetched successfully", data))
}

/// One event with every delivery attempt.
#[utoipa::path(
    get,
    path = "/v1/issuing/events/{event_id}",
    tag = "events",
    security(("token" = [])),
    params(("event_id" = String, Path, description = "The event's id")),
    responses(
        (status = 200, description = "The event and its attempts", body = Envelope<EventDetail>),
        (status = 400, description = "No such event for this account and mode", body = ErrorBody),
    )
)]
pub async fn get_event(Keyed(app, caller): Keyed, event_id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let (event, attempts) = app
        .get_event(&caller.0, &EventId::new(path_id("event_id", event_id.into_inner())?))
        .await?;
    let data = EventDetail {
        event: event.into(),
        attempts: attempts.into_iter().map(AttemptView::from).collect(),
    };
    Ok(success(StatusCode::OK, "Event was fetched successfully", data))
}

/// Queue the event for delivery again (it keeps its `event_id`).
#[utoipa::path(
    post,
    path = "/v1/issuing/events/{event_id}/redeliver",
    tag = "events",
    security(("token" = [])),
    params(("event_id" = String, Path, description = "The event's id")),
    responses(
        (status = 202, description = "A delivery is queued", body = Envelope<EventIdData>),
        (status = 400, description = "No such event for this account and mode", body = ErrorBody),
    )
)]
pub async fn redeliver_event(Keyed(app, caller): Keyed, event_id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let id = EventId::new(path_id("event_id", event_id.into_inner())?);
    app.redeliver_event(&caller.0, &id).await?;
    let data = EventIdData {
        event_id: id.to_string(),
    };
    Ok(success(StatusCode::ACCEPTED, "The event will be delivered again", data))
}

/// Sandbox only: a `webhook.test` event, to try the endpoint and its
/// signature checks.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/webhook/test",
    tag = "events",
    security(("token" = [])),
    responses(
        (status = 202, description = "The event is stored and will be delivered", body = Envelope<EventIdData>),
    )
)]
pub async fn send_test_event(Keyed(app, caller): Keyed) -> Result<HttpResponse, ApiError> {
    let id = app.send_test_event(&caller.0).await?;
    let data = EventIdData {
        event_id: id.to_string(),
    };
    Ok(success(StatusCode::ACCEPTED, "A test event will be delivered", data))
}

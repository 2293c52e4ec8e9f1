use crate::StoreError;
use crate::jobs::NewJob;
use domain::events::DeliveryState;
use domain::ids::{AccountId, EventId};
use domain::paging::Page;
use domain::{Mode, Timestamp};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    pub id: EventId,
    pub account_id: AccountId,
    pub mode: Mode,
    pub event: &'static str,
    /// The event's `data` object, as JSON text.
    pub data: String,
    pub created_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord {
    pub id: EventId,
    pub mode: Mode,
    pub event: String,
    pub data: String,
    pub created_at: Timestamp,
    pub delivery_state: DeliveryState,
    pub attempts: u32,
    pub delivered_at: Option<Timestamp>,
}

/// What one delivery attempt met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptOutcome {
    pub attempted_at: Timestamp,
    pub url: String,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: i64,
}

/// A recorded attempt, numbered from 1 per event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryAttempt {
    pub attempt: u32,
    pub outcome: AttemptOutcome,
}

/// What delivering an event needs: the event, where it goes, and the
/// sealed secrets that sign it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryTarget {
    pub event: EventRecord,
    pub account_id: AccountId,
    pub url: Option<String>,
    /// The lookup hash of the mode's secret key: where it is sealed.
    pub secret_key_hash: String,
    pub sealed_secret_key: Vec<u8>,
    /// The webhook secret of the event's mode; `None` for an account made
    /// before each mode had its own, until the service gives it one.
    pub sealed_webhook_secret: Option<Vec<u8>>,
    /// The mode's previous webhook secret after a roll, and when it stops
    /// signing.
    pub previous_webhook_secret: Option<(Vec<u8>, Timestamp)>,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait EventStore: Send + Sync {
    /// Stores an event and the job that delivers it, in one transaction.
    async fn emit(&self, event: NewEvent, delivery: NewJob) -> Result<(), StoreError> {
        self.emit_with(event, vec![delivery]).await
    }

    /// Stores an event with its delivery job and any jobs the same change
    /// schedules (the next run of a time rule), in one transaction.
    async fn emit_with(&self, event: NewEvent, jobs: Vec<NewJob>) -> Result<(), StoreError>;

    /// The account's events of `mode`, newest first, and their total.
    async fn list_events(
        &self,
        account: &AccountId,
        mode: Mode,
        page: Page,
    ) -> Result<(Vec<EventRecord>, u64), StoreError>;

    async fn get_event(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &EventId,
    ) -> Result<Option<(EventRecord, Vec<DeliveryAttempt>)>, StoreError>;

    /// Queues another delivery; `false` when the account has no such event.
    async fn redeliver(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &EventId,
        delivery: NewJob,
    ) -> Result<bool, StoreError>;

    async fn delivery_target(&self, id: &EventId) -> Result<Option<DeliveryTarget>, StoreError>;

    /// Records the next attempt (numbered by the store, so concurrent
    /// deliveries of one event never collide) and where the delivery now
    /// stands; a delivered event stays delivered.
    async fn record_attempt(
        &self,
        id: &EventId,
        outcome: AttemptOutcome,
        state: DeliveryState,
    ) -> Result<(), StoreError>;

    /// Marks the event as having had nowhere to go.
    async fn mark_no_endpoint(&self, id: &EventId) -> Result<(), StoreError>;
}

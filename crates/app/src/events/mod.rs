//! The webhook event log: emitting, listing, redelivering, delivering.

mod deliver_webhook;
mod delivery_gate;
mod event_log;
mod send_test_event;

pub use deliver_webhook::Undelivered;
pub(crate) use delivery_gate::{DeliveryGate, Slot};
pub use event_log::EventError;

use crate::App;
use domain::events::payloads::Event;
use domain::ids::{AccountId, EventId};
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::events::NewEvent;
use ports::jobs::{JobKind, NewJob};

impl App {
    /// The job that delivers `event`, due now.
    pub(crate) fn delivery_job(&self, event: &EventId) -> NewJob {
        self.job_now(JobKind::DeliverWebhook, event.to_string())
    }

    /// A new event, at the mode's time, for a store step to save with the
    /// change it reports (and its delivery job).
    pub(crate) async fn new_event(
        &self,
        account: &AccountId,
        mode: Mode,
        event: Event,
    ) -> Result<NewEvent, StoreError> {
        let now = self.now_for(account, mode).await?;
        Ok(self.new_event_at(account, mode, event, now))
    }

    /// A new event at `now`, the mode's time as its caller read it.
    pub(crate) fn new_event_at(&self, account: &AccountId, mode: Mode, event: Event, now: Timestamp) -> NewEvent {
        NewEvent {
            id: EventId::with_suffix(&self.ports.ids.unique()),
            account_id: account.clone(),
            mode,
            event: event.name(),
            data: data_of(&event),
            created_at: now,
        }
    }

    /// Stores an event that reports no other change, with its delivery
    /// job; returns its id.
    pub(crate) async fn emit(&self, account: &AccountId, mode: Mode, event: Event) -> Result<EventId, StoreError> {
        let new_event = self.new_event(account, mode, event).await?;
        let id = new_event.id.clone();
        self.ports.events.emit(new_event, self.delivery_job(&id)).await?;
        Ok(id)
    }
}

/// An event's `data` as stored and sent: its payload, as JSON text.
pub(crate) fn data_of(event: &Event) -> String {
    serde_json::to_string(event).expect("event payloads are plain data")
}

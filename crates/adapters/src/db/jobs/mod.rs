//! The durable job queue (`ports::jobs::JobStore`) and the events with
//! their deliveries (`ports::events::EventStore`). A money step writes its
//! events and jobs in its own transaction through `events::store_event`.

pub(in crate::db) mod events;
pub(in crate::db) mod queue;

#[cfg(test)]
mod tests;

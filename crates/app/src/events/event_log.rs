//! `GET /events`, `GET /events/{event_id}`, `POST /events/{event_id}/redeliver`:
//! an account sees only its own events of its own mode.

use crate::{App, Caller};
use domain::ids::EventId;
use domain::paging::{Page, Paging};
use domain::{DomainError, ErrorKind};
use ports::StoreError;
use ports::events::{DeliveryAttempt, EventRecord};

#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("event_id: no event with this id")]
    NotFound,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for EventError {
    fn kind(&self) -> ErrorKind {
        match self {
            EventError::NotFound => ErrorKind::InvalidRequest,
            EventError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            EventError::NotFound => "event_not_found",
            EventError::Store(e) => e.code(),
        }
    }
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn list_events(&self, caller: &Caller, page: Page) -> Result<(Vec<EventRecord>, Paging), StoreError> {
        let (events, total) = self
            .ports
            .events
            .list_events(&caller.account_id, caller.mode, page)
            .await?;
        Ok((events, page.paging(total)))
    }

    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_event(
        &self,
        caller: &Caller,
        id: &EventId,
    ) -> Result<(EventRecord, Vec<DeliveryAttempt>), EventError> {
        self.ports
            .events
            .get_event(&caller.account_id, caller.mode, id)
            .await?
            .ok_or(EventError::NotFound)
    }

    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn redeliver_event(&self, caller: &Caller, id: &EventId) -> Result<(), EventError> {
        let queued = self
            .ports
            .events
            .redeliver(&caller.account_id, caller.mode, id, self.delivery_job(id))
            .await?;
        if queued { Ok(()) } else { Err(EventError::NotFound) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, caller};
    use domain::Mode;

    #[tokio::test]
    async fn redelivering_an_unknown_event_is_not_found() {
        let mut m = Mocks::default();
        m.ids.expect_unique().returning(|| "u".into());
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1));
        m.events
            .expect_redeliver()
            .withf(|acct, mode, id, _| acct.as_str() == "acct_1" && *mode == Mode::Live && id.as_str() == "evt_x")
            .returning(|_, _, _, _| Ok(false));
        let e = m
            .app()
            .redeliver_event(&caller(Mode::Live), &EventId::new("evt_x"))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "event_not_found");
    }

    #[tokio::test]
    async fn lists_with_paging() {
        let mut m = Mocks::default();
        m.events.expect_list_events().returning(|_, _, _| Ok((vec![], 41)));
        let page = Page { number: 2, size: 20 };
        let (_, paging) = m.app().list_events(&caller(Mode::Test), page).await.unwrap();
        assert_eq!((paging.pages, paging.previous, paging.next), (3, Some(1), Some(3)));
    }
}

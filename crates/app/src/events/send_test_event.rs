//! `POST /v1/issuing/sandbox/webhook/test`: a `webhook.test` event, to try
//! an endpoint and its signature checks before real events flow.

use crate::{App, Caller, RequestError};
use domain::Mode;
use domain::events::payloads::{Event, WebhookTest};
use domain::ids::EventId;

impl App {
    pub async fn send_test_event(&self, caller: &Caller) -> Result<EventId, RequestError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly);
        }
        let event = Event::WebhookTest(WebhookTest {
            message: "This is a test event.",
            livemode: false,
            issuing_app_id: caller.account_id.to_string(),
        });
        Ok(self.emit(&caller.account_id, caller.mode, event).await?)
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{Mocks, caller};
    use domain::Mode;
    use ports::jobs::JobKind;

    #[tokio::test]
    async fn stores_the_event_with_its_delivery_job() {
        let mut m = Mocks::default();
        m.ids.expect_unique().returning(|| "u".into());
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.test_clocks.expect_offset().returning(|_| Ok(50));
        m.events.expect_emit().times(1).returning(|event, job| {
            assert_eq!(event.event, "webhook.test");
            assert_eq!(event.created_at.unix(), 1_050, "sandbox time");
            assert!(event.data.contains("\"livemode\":false"));
            assert_eq!(
                (job.kind, job.subject.as_str()),
                (JobKind::DeliverWebhook, event.id.as_str())
            );
            assert_eq!(job.run_at.unix(), 1_000, "jobs run on real time");
            Ok(())
        });
        let id = m.app().send_test_event(&caller(Mode::Test)).await.unwrap();
        assert_eq!(id.as_str(), "evt_u");
    }

    #[tokio::test]
    async fn live_mode_is_refused() {
        assert!(
            Mocks::default()
                .app()
                .send_test_event(&caller(Mode::Live))
                .await
                .is_err()
        );
    }
}

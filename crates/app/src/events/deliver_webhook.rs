//! One delivery attempt of one event: a signed POST of
//! `{event, event_id, created_at, data}`; a 2xx answer delivers it. An
//! endpoint that keeps failing rests (see `delivery_gate`): its deliveries
//! wait, untried, until the rest ends.

use crate::App;
use domain::events::DeliveryState;
use domain::events::breaker::Admission;
use domain::ids::EventId;
use domain::{Secret, Timestamp, http_url};
use ports::events::AttemptOutcome;
use ports::vault::Place;
use ports::webhooks::{WebhookRequest, WebhookResponse};
use serde_json::json;

/// Why an event was not delivered by this attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undelivered {
    /// Tried and failed, for this reason: the job is retried on its schedule.
    Failed(String),
    /// Not tried: the account's endpoint rests until then.
    Resting(Timestamp),
}

impl From<String> for Undelivered {
    fn from(reason: String) -> Self {
        Undelivered::Failed(reason)
    }
}

impl App {
    /// `last_attempt` marks the event failed rather than pending.
    pub(crate) async fn deliver_webhook(&self, id: &EventId, last_attempt: bool) -> Result<(), Undelivered> {
        let store = |e: ports::StoreError| e.to_string();
        let Some(target) = self.ports.events.delivery_target(id).await.map_err(store)? else {
            return Ok(());
        };
        let Some(url) = target.url else {
            return Ok(self.ports.events.mark_no_endpoint(id).await.map_err(store)?);
        };
        // Rests run on the mode's clock, so advancing a sandbox's test
        // clock ends them as it brings retries forward.
        let clock = self
            .clock_for(&target.account_id, target.event.mode)
            .await
            .map_err(store)?;
        let endpoint = (target.account_id.clone(), target.event.mode, url.clone());
        if let Admission::Wait(until) = self.delivery_gate.admit(&endpoint, clock.now) {
            return Err(Undelivered::Resting(clock.real_time_of(until)));
        }
        let (account, mode) = (target.account_id.as_str(), target.event.mode);
        let open = |sealed: &[u8], place: Place| {
            let opened = self.ports.vault.open(sealed, &place).map_err(|e| e.to_string())?;
            String::from_utf8(opened.expose().clone())
                .map(Secret::new)
                .map_err(|_| "a sealed secret is not text".to_string())
        };
        let data: serde_json::Value =
            serde_json::from_str(&target.event.data).map_err(|e| format!("stored event data: {e}"))?;
        let body = json!({
            "event": target.event.event,
            "event_id": id.as_str(),
            "created_at": target.event.created_at.unix(),
            "data": data,
        });
        let now = self.ports.clock.now();
        let request = WebhookRequest {
            id: id.to_string(),
            url: url.clone(),
            body: body.to_string(),
            timestamp: now,
            webhook_secret: open(
                target
                    .sealed_webhook_secret
                    .as_deref()
                    .ok_or_else(|| "the account has no sandbox webhook secret yet".to_string())?,
                Place::webhook_secret(account, mode),
            )?,
            previous_webhook_secret: match &target.previous_webhook_secret {
                Some((sealed, until)) if *until > now => Some(open(sealed, Place::webhook_secret(account, mode))?),
                _ => None,
            },
            secret_key: open(
                &target.sealed_secret_key,
                Place::api_key(&target.secret_key_hash, account, mode),
            )?,
        };
        // URLs set before a rule existed, or by an operator, are held to it
        // here: nothing is sent where the rule would not let it be set.
        let allowed = http_url::webhook_url("url", &url, mode, self.settings.webhook_allow_private);
        let response = match allowed {
            Ok(_) => self.ports.webhooks.send(request).await,
            Err(refused) => WebhookResponse {
                status: None,
                error: Some(format!("blocked: the URL {}", refused.rule)),
                duration_ms: 0,
            },
        };
        let delivered = response.delivered();
        let answered = self.ports.clock.now().plus(clock.ahead_secs);
        self.delivery_gate.record(&endpoint, delivered, answered);
        let state = match (delivered, last_attempt) {
            (true, _) => DeliveryState::Delivered,
            (false, true) => DeliveryState::Failed,
            (false, false) => DeliveryState::Pending,
        };
        let failure = match (response.status, &response.error) {
            (_, Some(error)) => error.clone(),
            (Some(status), None) => format!("the endpoint answered {status}"),
            (None, None) => "no answer".to_string(),
        };
        let outcome = AttemptOutcome {
            attempted_at: now,
            url,
            status_code: response.status,
            error: response.error,
            duration_ms: response.duration_ms,
        };
        self.ports
            .events
            .record_attempt(id, outcome, state)
            .await
            .map_err(store)?;
        if delivered { Ok(()) } else { Err(failure.into()) }
    }
}

#[cfg(test)]
mod tests {
    use super::Undelivered;
    use crate::testing::Mocks;
    use domain::events::DeliveryState;
    use domain::ids::EventId;
    use domain::{Mode, Secret};
    use ports::events::{DeliveryTarget, EventRecord};
    use ports::webhooks::WebhookResponse;

    fn target(url: Option<&str>) -> DeliveryTarget {
        DeliveryTarget {
            event: EventRecord {
                id: EventId::new("evt_1"),
                mode: Mode::Test,
                event: "webhook.test".into(),
                data: r#"{"k":"v"}"#.into(),
                created_at: domain::Timestamp::from_unix(77),
                delivery_state: DeliveryState::Pending,
                attempts: 2,
                delivered_at: None,
            },
            account_id: domain::ids::AccountId::new("acct_1"),
            url: url.map(str::to_string),
            secret_key_hash: "hash".into(),
            sealed_secret_key: b"sealed-key".to_vec(),
            sealed_webhook_secret: Some(b"sealed-whsec".to_vec()),
            previous_webhook_secret: None,
        }
    }

    fn mocks(status: Option<u16>, expected: DeliveryState) -> Mocks {
        let mut m = Mocks::default();
        m.events
            .expect_delivery_target()
            .returning(|_| Ok(Some(target(Some("http://hooks.test/x")))));
        m.vault
            .expect_open()
            .returning(|s, _| Ok(Secret::new(s.strip_prefix(b"sealed-").unwrap().to_vec())));
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(5_000));
        m.test_clocks.expect_offset().returning(|_| Ok(0));
        m.webhooks.expect_send().times(1).returning(move |req| {
            let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
            assert_eq!(body["event"], "webhook.test");
            assert_eq!(body["event_id"], "evt_1");
            assert_eq!(body["created_at"], 77);
            assert_eq!(body["data"]["k"], "v");
            assert_eq!(
                (req.secret_key.expose().as_str(), req.webhook_secret.expose().as_str()),
                ("key", "whsec")
            );
            assert_eq!(req.timestamp, domain::Timestamp::from_unix(5_000));
            WebhookResponse {
                status,
                error: status.is_none().then(|| "connection refused".into()),
                duration_ms: 3,
            }
        });
        m.events
            .expect_record_attempt()
            .times(1)
            .withf(move |_, outcome, state| {
                outcome.attempted_at == domain::Timestamp::from_unix(5_000)
                    && outcome.status_code == status
                    && *state == expected
            })
            .returning(|_, _, _| Ok(()));
        m
    }

    #[tokio::test]
    async fn a_2xx_delivers() {
        let app = mocks(Some(204), DeliveryState::Delivered).app();
        assert_eq!(app.deliver_webhook(&EventId::new("evt_1"), false).await, Ok(()));
    }

    #[tokio::test]
    async fn anything_else_stays_pending_until_the_last_attempt() {
        let app = mocks(Some(302), DeliveryState::Pending).app();
        assert_eq!(
            app.deliver_webhook(&EventId::new("evt_1"), false).await,
            Err(Undelivered::Failed("the endpoint answered 302".into()))
        );
        let app = mocks(None, DeliveryState::Failed).app();
        assert_eq!(
            app.deliver_webhook(&EventId::new("evt_1"), true).await,
            Err(Undelivered::Failed("connection refused".into()))
        );
    }

    #[tokio::test]
    async fn no_webhook_url_marks_the_event_and_sends_nothing() {
        let mut m = Mocks::default();
        m.events.expect_delivery_target().returning(|_| Ok(Some(target(None))));
        m.events.expect_mark_no_endpoint().times(1).returning(|_| Ok(()));
        assert_eq!(m.app().deliver_webhook(&EventId::new("evt_1"), false).await, Ok(()));
    }
}

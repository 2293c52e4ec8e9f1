use domain::{Secret, Timestamp};

/// One signed POST of an event body.
#[derive(Debug, Clone)]
pub struct WebhookRequest {
    /// The event's id: Standard Webhooks' `webhook-id`, the same on every
    /// attempt and redelivery.
    pub id: String,
    pub url: String,
    pub body: String,
    /// Unix seconds (real time) signed into `x-issuing-signature` and
    /// `webhook-signature`.
    pub timestamp: Timestamp,
    pub webhook_secret: Secret<String>,
    /// The mode's previous webhook secret while it still signs (after a
    /// roll, for the overlap): the body is signed with both.
    pub previous_webhook_secret: Option<Secret<String>>,
    pub secret_key: Secret<String>,
}

/// What the receiver answered: a status, or why there was none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookResponse {
    pub status: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: i64,
}

impl WebhookResponse {
    pub fn delivered(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait WebhookSender: Send + Sync {
    async fn send(&self, request: WebhookRequest) -> WebhookResponse;

    /// `Err(why)` when the host of `url` resolves to an address deliveries
    /// may not reach (loopback, private, ...). A name that does not
    /// resolve passes: deliveries check again when they connect.
    async fn check_host(&self, url: &str) -> Result<(), String>;
}

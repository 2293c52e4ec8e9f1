//! Webhook delivery over HTTP(S): one POST per attempt, with connect and
//! total timeouts, no redirects followed (a 3xx is a failed attempt), and
//! two signatures:
//! - `x-webhook-signature`: the account's webhook secret encrypted with AES
//!   Everywhere under the mode's secret key, as existing integrations
//!   verify it (it proves the sender knows the key, not what the body is);
//! - `x-issuing-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
//!   "<t>.<raw body>" keyed by the webhook secret>`, which binds the body
//!   and the time (see docs/webhooks.md for verifying it).

use crate::crypto::{aes_everywhere, signature};
use ports::webhooks::{WebhookRequest, WebhookResponse, WebhookSender};
use std::time::{Duration, Instant};

pub struct HttpWebhookSender {
    client: reqwest::Client,
}

impl HttpWebhookSender {
    pub fn new(connect_timeout: Duration, timeout: Duration) -> Result<Self, String> {
        // rustls with the ring provider: pure Rust and assembly, no cmake.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("issuing-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("webhook HTTP client: {e}"))?;
        Ok(Self { client })
    }
}

#[async_trait::async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(&self, request: WebhookRequest) -> WebhookResponse {
        let secret = request.webhook_secret.expose();
        let legacy = aes_everywhere::encrypt(secret.as_bytes(), &request.secret_key);
        let signature = signature::sign(secret, request.timestamp.unix(), request.body.as_bytes());
        let started = Instant::now();
        let result = self
            .client
            .post(&request.url)
            .header("content-type", "application/json")
            .header("x-webhook-signature", legacy)
            .header("x-issuing-signature", signature)
            .body(request.body)
            .send()
            .await;
        let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        match result {
            Ok(response) => WebhookResponse {
                status: Some(response.status().as_u16()),
                error: None,
                duration_ms,
            },
            Err(e) => {
                let kind = if e.is_timeout() {
                    "timed out"
                } else if e.is_connect() {
                    "could not connect"
                } else {
                    "request failed"
                };
                WebhookResponse {
                    status: None,
                    // Without the URL: a query string may carry the
                    // integrator's own token, and errors are logged.
                    error: Some(format!("{kind}: {}", e.without_url())),
                    duration_ms,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refused_connection_is_reported_without_the_url() {
        // A port nothing listens on: bind one, then free it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let sender = HttpWebhookSender::new(Duration::from_secs(2), Duration::from_secs(2)).unwrap();
        let response = sender
            .send(WebhookRequest {
                url: format!("http://127.0.0.1:{port}/hooks?token=integrator-s3cret"),
                body: "{}".into(),
                timestamp: domain::Timestamp::from_unix(1),
                webhook_secret: domain::Secret::new("whsec_x".into()),
                secret_key: domain::Secret::new("sk_test_x".into()),
            })
            .await;
        assert!(!response.delivered());
        let error = response.error.unwrap();
        assert!(error.starts_with("could not connect"), "{error}");
        assert!(!error.contains("s3cret"), "{error}");
    }

    #[test]
    fn the_signature_is_hmac_sha256_of_time_dot_body() {
        // Expected value from Python's hmac module:
        // hmac.new(b"whsec_x", b"1700000000.{}", hashlib.sha256).hexdigest()
        let sig = signature::sign("whsec_x", 1_700_000_000, b"{}");
        assert_eq!(
            sig,
            "t=1700000000,v1=be8cb8325f2202445260a855532f967e30ad2a9394ce28da66ee02880ddcb661"
        );
        assert_ne!(sig, signature::sign("whsec_x", 1_700_000_001, b"{}"));
        assert_ne!(sig, signature::sign("whsec_y", 1_700_000_000, b"{}"));
    }
}

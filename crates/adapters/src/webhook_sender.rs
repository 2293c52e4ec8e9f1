//! Webhook delivery over HTTP(S): one POST per attempt, with connect and
//! total timeouts, no redirects followed (a 3xx is a failed attempt), and
//! three signatures:
//! - `x-webhook-signature`: the account's webhook secret encrypted with AES
//!   Everywhere under the mode's secret key, as existing integrations
//!   verify it (it proves the sender knows the key, not what the body is);
//! - `x-issuing-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
//!   "<t>.<raw body>" keyed by the webhook secret>`, which binds the body
//!   and the time (see docs/webhooks.md for verifying it);
//! - Standard Webhooks' `webhook-id`, `webhook-timestamp` and
//!   `webhook-signature` (made by the specification's own crate), so the
//!   maintained `standardwebhooks` packages verify a delivery.

use crate::crypto::{aes_everywhere, signature};
use crate::outbound;
use domain::http_url::is_public;
use ports::webhooks::{WebhookRequest, WebhookResponse, WebhookSender};
use std::time::{Duration, Instant};

pub struct HttpWebhookSender {
    client: reqwest::Client,
    allow_private: bool,
}

impl HttpWebhookSender {
    /// `allow_private` lets deliveries reach loopback, private and other
    /// non-public addresses (local development and tests only).
    pub fn new(connect_timeout: Duration, timeout: Duration, allow_private: bool) -> Result<Self, String> {
        let client = outbound::client(connect_timeout, timeout, allow_private, "issuing-webhooks")
            .map_err(|e| format!("webhook HTTP client: {e}"))?;
        Ok(Self { client, allow_private })
    }
}

/// Standard Webhooks' `webhook-signature`: `v1,<base64>` with each secret
/// the specification takes (`whsec_` and base64), the current one's
/// first, space-separated; `None` when neither is one.
fn standard_signature(secrets: &[&str], id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let signed: Vec<String> = secrets
        .iter()
        .filter(|secret| secret.starts_with("whsec_"))
        .filter_map(|secret| standardwebhooks::Webhook::new(secret).ok())
        .filter_map(|webhook| webhook.sign(id, timestamp, body).ok())
        .collect();
    (!signed.is_empty()).then(|| signed.join(" "))
}

#[async_trait::async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(&self, request: WebhookRequest) -> WebhookResponse {
        if outbound::literal_blocked(&request.url, self.allow_private) {
            return WebhookResponse {
                status: None,
                error: Some("blocked: the URL's address is not public".into()),
                duration_ms: 0,
            };
        }
        let secret = request.webhook_secret.expose();
        let legacy = aes_everywhere::encrypt(secret.as_bytes(), &request.secret_key);
        // The current secret's signature first, the previous one's last:
        // a receiver that reads only the last `v1` and still holds the
        // previous secret keeps verifying through the overlap.
        let mut secrets = vec![secret.as_str()];
        secrets.extend(request.previous_webhook_secret.as_ref().map(|s| s.expose().as_str()));
        let (timestamp, body) = (request.timestamp.unix(), request.body.as_bytes());
        let signature = signature::sign_with_each(&secrets, timestamp, body);
        let mut post = self
            .client
            .post(&request.url)
            .header("content-type", "application/json")
            .header("x-webhook-signature", legacy)
            .header("x-issuing-signature", signature)
            .header("webhook-id", &request.id)
            .header("webhook-timestamp", timestamp);
        if let Some(standard) = standard_signature(&secrets, &request.id, timestamp, body) {
            post = post.header("webhook-signature", standard);
        }
        let started = Instant::now();
        let result = post.body(request.body).send().await;
        let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        match result {
            Ok(response) => WebhookResponse {
                status: Some(response.status().as_u16()),
                error: None,
                duration_ms,
            },
            Err(e) => {
                // The detail is for operators; without the URL, whose query
                // string may carry the integrator's own token.
                let error = outbound::category(&e).to_string();
                tracing::debug!(error = %e.without_url(), "webhook delivery failed");
                WebhookResponse {
                    status: None,
                    error: Some(error),
                    duration_ms,
                }
            }
        }
    }

    async fn check_host(&self, url: &str) -> Result<(), String> {
        if self.allow_private {
            return Ok(());
        }
        let host = reqwest::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string));
        match host {
            // A name that does not resolve yet passes: deliveries check
            // again when they connect.
            Some(host) => match tokio::net::lookup_host((host.trim_matches(['[', ']']), 0)).await {
                Ok(addrs) => match addrs.map(|a| a.ip()).find(|ip| !is_public(*ip)) {
                    Some(_) => Err("resolves to a loopback, private, link-local or other non-public address".into()),
                    None => Ok(()),
                },
                Err(_) => Ok(()),
            },
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn request(url: String) -> WebhookRequest {
        WebhookRequest {
            id: "evt_1".into(),
            url,
            body: "{}".into(),
            timestamp: domain::Timestamp::from_unix(1),
            webhook_secret: domain::Secret::new("whsec_x".into()),
            previous_webhook_secret: None,
            secret_key: domain::Secret::new("sk_test_x".into()),
        }
    }

    fn sender(allow_private: bool) -> HttpWebhookSender {
        HttpWebhookSender::new(Duration::from_secs(2), Duration::from_secs(2), allow_private).unwrap()
    }

    #[tokio::test]
    async fn a_refused_connection_is_reported_as_a_category_without_detail() {
        // A port nothing listens on: bind one, then free it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://127.0.0.1:{port}/hooks?token=integrator-s3cret");
        let response = sender(true).send(request(url)).await;
        assert!(!response.delivered());
        assert_eq!(
            response.error.as_deref(),
            Some("refused: the endpoint refused the connection")
        );
    }

    #[tokio::test]
    async fn inside_addresses_are_never_reached_unless_allowed() {
        // A listener that counts connections: none may arrive.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = accepted.clone();
        tokio::spawn(async move {
            while let Ok((_stream, _)) = listener.accept().await {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        });
        let guarded = sender(false);
        for url in [
            format!("http://127.0.0.1:{port}/x"),
            format!("http://[::ffff:127.0.0.1]:{port}/x"),
            format!("http://2130706433:{port}/x"),
        ] {
            let response = guarded.send(request(url.clone())).await;
            assert_eq!(
                response.error.as_deref(),
                Some("blocked: the URL's address is not public"),
                "{url}"
            );
        }
        // A name is checked where it resolves: when the URL is set, and
        // again at every connection.
        let by_name = format!("http://localhost:{port}/x");
        assert!(guarded.check_host(&by_name).await.is_err());
        let response = guarded.send(request(by_name.clone())).await;
        assert_eq!(
            response.error.as_deref(),
            Some("blocked: the host resolves only to non-public addresses")
        );
        assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 0);
        // Allowed (local development and tests), the same URL is reached.
        assert!(sender(true).check_host(&by_name).await.is_ok());
        let reached = sender(true).send(request(by_name)).await;
        assert!(reached.error.is_some(), "the listener never answers HTTP");
        assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);
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

    #[test]
    fn the_standard_signature_is_the_specifications_with_each_secret_it_takes() {
        // The specification's own test vector (standard-webhooks, spec.md).
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let (id, timestamp) = ("msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330);
        let body = br#"{"test": 2432232314}"#;
        let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
        assert_eq!(
            standard_signature(&[secret], id, timestamp, body).as_deref(),
            Some(expected)
        );
        let other = "whsec_dGhlIG90aGVyIHNlY3JldCBvZiB0aGlydHktdHdvIGJ5dGVzIQ==";
        let both = standard_signature(&[other, secret], id, timestamp, body).unwrap();
        assert!(
            both.ends_with(&format!(" {expected}")) && both.starts_with("v1,"),
            "{both}"
        );
        // A secret the specification does not take signs nothing.
        assert_eq!(
            standard_signature(&["not-whsec", "whsec_!!"], id, timestamp, body),
            None
        );
        assert_eq!(
            standard_signature(&["whsec_!!", secret], id, timestamp, body).as_deref(),
            Some(expected)
        );
    }
}

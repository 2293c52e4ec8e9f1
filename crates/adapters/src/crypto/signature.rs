//! Signed bodies: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw
//! body>">`. The service signs its webhooks this way, and the card
//! processor signs its authorization requests the same way.

use domain::Secret;
use hmac::{Hmac, Mac};
use ports::processor_auth::{ProcessorAuth, ProcessorAuthError};
use sha2::Sha256;

/// How far a signature's time may be from now, either way.
pub const TOLERANCE_SECS: i64 = 300;

fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    mac
}

/// The signature of `body` sent at `timestamp`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac(secret, timestamp, body).finalize().into_bytes())
    )
}

/// Whether `header` signs `body` with `secret` within the tolerance of
/// `now` (compared in constant time).
pub fn verify(secret: &str, header: &str, body: &[u8], now: i64) -> bool {
    let mut timestamp = None;
    let mut signature = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", v)) => signature = hex::decode(v).ok(),
            _ => {}
        }
    }
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
        return false;
    };
    (now - timestamp).abs() <= TOLERANCE_SECS && mac(secret, timestamp, body).verify_slice(&signature).is_ok()
}

/// The processor's calls, checked against the configured secret.
pub struct ProcessorSecret(pub Option<Secret<String>>);

impl ProcessorAuth for ProcessorSecret {
    fn verify(&self, signature: Option<String>, body: &[u8], now: i64) -> Result<(), ProcessorAuthError> {
        let secret = self.0.as_ref().ok_or(ProcessorAuthError::Disabled)?;
        match signature {
            Some(header) if verify(secret.expose(), &header, body, now) => Ok(()),
            _ => Err(ProcessorAuthError::BadSignature),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_for_its_body_secret_and_time() {
        let header = sign("s3cret", 1_000, b"{\"a\":1}");
        assert!(verify("s3cret", &header, b"{\"a\":1}", 1_100));
        assert!(!verify("s3cret", &header, b"{\"a\":2}", 1_100), "another body");
        assert!(!verify("other", &header, b"{\"a\":1}", 1_100), "another secret");
        assert!(!verify("s3cret", &header, b"{\"a\":1}", 1_301), "stale");
        assert!(!verify("s3cret", "t=1000,v1=zz", b"{}", 1_000));
        let auth = ProcessorSecret(None);
        assert_eq!(
            auth.verify(Some(header), b"{}", 1_000),
            Err(ProcessorAuthError::Disabled)
        );
    }
}

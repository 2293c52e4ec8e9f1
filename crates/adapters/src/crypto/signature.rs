//! Signed bodies: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw
//! body>">`. The service signs its webhooks this way, and the card
//! processor signs its authorization requests the same way.

use domain::{Mode, Secret, Timestamp};
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
    sign_with_each(&[secret], timestamp, body)
}

/// The signature of `body` with each secret in turn, one `v1` each: while
/// a secret is rolled, the receiver verifies with whichever it holds.
pub fn sign_with_each(secrets: &[&str], timestamp: i64, body: &[u8]) -> String {
    let mut header = format!("t={timestamp}");
    for secret in secrets {
        header.push_str(",v1=");
        header.push_str(&hex::encode(mac(secret, timestamp, body).finalize().into_bytes()));
    }
    header
}

/// Whether one of the `v1` signatures of `header` signs `body` with
/// `secret` within the tolerance of `now` (compared in constant time).
pub fn verify(secret: &str, header: &str, body: &[u8], now: Timestamp) -> bool {
    let now = now.unix();
    let mut timestamp = None;
    let mut signatures = vec![];
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", v)) => signatures.extend(hex::decode(v).ok()),
            _ => {}
        }
    }
    let Some(timestamp) = timestamp else {
        return false;
    };
    now.abs_diff(timestamp) <= TOLERANCE_SECS.unsigned_abs()
        && signatures
            .iter()
            .any(|signature| mac(secret, timestamp, body).verify_slice(signature).is_ok())
}

/// The processor's calls, checked against the configured secret of each
/// mode: the one that verifies says which cards the call may debit.
pub struct ProcessorSecrets {
    pub live: Option<Secret<String>>,
    pub test: Option<Secret<String>>,
}

impl ProcessorAuth for ProcessorSecrets {
    fn verify(&self, signature: Option<String>, body: &[u8], now: Timestamp) -> Result<Mode, ProcessorAuthError> {
        let secrets = [(Mode::Live, &self.live), (Mode::Test, &self.test)];
        let configured: Vec<_> = secrets
            .iter()
            .filter_map(|(mode, secret)| secret.as_ref().map(|s| (*mode, s)))
            .collect();
        if configured.is_empty() {
            return Err(ProcessorAuthError::Disabled);
        }
        let header = signature.ok_or(ProcessorAuthError::BadSignature)?;
        configured
            .into_iter()
            .find(|(_, secret)| verify(secret.expose(), &header, body, now))
            .map(|(mode, _)| mode)
            .ok_or(ProcessorAuthError::BadSignature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any header, however long or malformed, is judged without a
        /// panic, and none verifies unless made with the secret.
        #[test]
        fn arbitrary_headers_never_panic_and_never_verify(header in ".{0,3000}", body in proptest::collection::vec(any::<u8>(), 0..500), t in any::<i64>()) {
            let now = Timestamp::from_unix(t);
            prop_assert!(!verify("s3cret", &header, &body, now));
            let forged = format!("t={t},v1={}", "0".repeat(64));
            prop_assert!(!verify("s3cret", &forged, &body, now));
            let signed = sign("s3cret", t, &body);
            prop_assert!(verify("s3cret", &signed, &body, now));
            prop_assert!(!verify("other", &signed, &body, now));
        }
    }

    #[test]
    fn a_header_signed_with_each_of_two_secrets_verifies_with_either_only() {
        let header = sign_with_each(&["new", "old"], 1_000, b"{}");
        assert!(header.starts_with(&sign("new", 1_000, b"{}")));
        assert!(header.ends_with(&sign("old", 1_000, b"{}")["t=1000".len()..]));
        let now = Timestamp::from_unix(1_000);
        assert!(verify("new", &header, b"{}", now) && verify("old", &header, b"{}", now));
        assert!(!verify("other", &header, b"{}", now));
        assert!(!verify("new", "v1=00,v1=11", b"{}", now), "no time");
    }

    #[test]
    fn a_signature_verifies_only_for_its_body_secret_and_time() {
        let header = sign("s3cret", 1_000, b"{\"a\":1}");
        assert!(verify("s3cret", &header, b"{\"a\":1}", Timestamp::from_unix(1_100)));
        assert!(
            !verify("s3cret", &header, b"{\"a\":2}", Timestamp::from_unix(1_100)),
            "another body"
        );
        assert!(
            !verify("other", &header, b"{\"a\":1}", Timestamp::from_unix(1_100)),
            "another secret"
        );
        assert!(
            !verify("s3cret", &header, b"{\"a\":1}", Timestamp::from_unix(1_301)),
            "stale"
        );
        assert!(!verify("s3cret", "t=1000,v1=zz", b"{}", Timestamp::from_unix(1_000)));
        assert!(
            !verify("s3cret", &header, b"{\"a\":1}", Timestamp::from_unix(i64::MIN)),
            "no overflow"
        );
        assert!(!verify(
            "s3cret",
            "t=-9223372036854775808,v1=00",
            b"{}",
            Timestamp::from_unix(i64::MAX)
        ));
        let none = ProcessorSecrets { live: None, test: None };
        assert_eq!(
            none.verify(Some(header.clone()), b"{}", Timestamp::from_unix(1_000)),
            Err(ProcessorAuthError::Disabled)
        );
    }

    #[test]
    fn the_secret_that_verifies_names_the_mode_of_the_cards_a_call_may_debit() {
        let both = ProcessorSecrets {
            live: Some(Secret::new("live-secret".into())),
            test: Some(Secret::new("test-secret".into())),
        };
        let body = b"{}";
        let signed = |secret| Some(sign(secret, 1_000, body));
        assert_eq!(
            both.verify(signed("live-secret"), body, Timestamp::from_unix(1_000)),
            Ok(Mode::Live)
        );
        assert_eq!(
            both.verify(signed("test-secret"), body, Timestamp::from_unix(1_000)),
            Ok(Mode::Test)
        );
        assert_eq!(
            both.verify(signed("other"), body, Timestamp::from_unix(1_000)),
            Err(ProcessorAuthError::BadSignature)
        );
        assert_eq!(
            both.verify(None, body, Timestamp::from_unix(1_000)),
            Err(ProcessorAuthError::BadSignature)
        );
        let live_only = ProcessorSecrets {
            live: Some(Secret::new("live-secret".into())),
            test: None,
        };
        assert_eq!(
            live_only.verify(signed("test-secret"), body, Timestamp::from_unix(1_000)),
            Err(ProcessorAuthError::BadSignature),
            "no sandbox secret: no sandbox card is debited"
        );
    }
}

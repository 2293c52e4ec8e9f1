//! Smile ID's request signature: base64 of HMAC-SHA256, keyed by the
//! partner's API key, over `timestamp + partner_id + "sid_request"`. Its
//! answers and callbacks carry a `timestamp` and a `signature` made the
//! same way.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

fn mac(api_key: &str, timestamp: &str, partner_id: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(api_key.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(timestamp.as_bytes());
    mac.update(partner_id.as_bytes());
    mac.update(b"sid_request");
    mac
}

pub fn sign(api_key: &str, timestamp: &str, partner_id: &str) -> String {
    STANDARD.encode(mac(api_key, timestamp, partner_id).finalize().into_bytes())
}

/// Whether `signature` is Smile ID's for `timestamp` (in constant time).
pub fn verify(api_key: &str, timestamp: &str, partner_id: &str, signature: &str) -> bool {
    STANDARD
        .decode(signature)
        .is_ok_and(|bytes| mac(api_key, timestamp, partner_id).verify_slice(&bytes).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_timestamp_and_partner_and_verifies_only_that() {
        let signature = sign("key", "2025-01-01T00:00:00.000Z", "002");
        assert!(verify("key", "2025-01-01T00:00:00.000Z", "002", &signature));
        assert!(!verify("other", "2025-01-01T00:00:00.000Z", "002", &signature));
        assert!(!verify("key", "2025-01-01T00:00:00.001Z", "002", &signature));
        assert!(!verify("key", "2025-01-01T00:00:00.000Z", "003", &signature));
        assert!(!verify("key", "2025-01-01T00:00:00.000Z", "002", "not base64!"));
        assert_eq!(STANDARD.decode(&signature).unwrap().len(), 32);
    }
}

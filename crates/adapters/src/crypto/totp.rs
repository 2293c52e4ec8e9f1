//! TOTP codes (the `totp-rs` crate): RFC 6238's SHA-1, 6 digits, 30-second
//! steps, one step of skew, as authenticator apps use by default.

use domain::Timestamp;
use ports::console::Totp;
use totp_rs::{Algorithm, Secret, TOTP};

pub struct Rfc6238;

/// The authenticator's name for the service.
const ISSUER: &str = "Issuing";

fn totp(secret: &[u8]) -> Option<TOTP> {
    TOTP::new(Algorithm::SHA1, 6, 1, 30, secret.to_vec()).ok()
}

impl Totp for Rfc6238 {
    fn check(&self, secret: &[u8], code: &str, now: Timestamp) -> bool {
        let Ok(time) = u64::try_from(now.unix()) else {
            return false;
        };
        code.len() == 6 && totp(secret).is_some_and(|t| t.check(code, time))
    }

    fn encoded(&self, secret: &[u8], email: &str) -> (String, String) {
        let base32 = Secret::Raw(secret.to_vec()).to_encoded().to_string();
        let label: String = url_escaped(&format!("{ISSUER}:{email}"));
        let uri = format!("otpauth://totp/{label}?secret={base32}&issuer={ISSUER}&algorithm=SHA1&digits=6&period=30");
        (base32, uri)
    }
}

fn url_escaped(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238's appendix B: the SHA-1 secret and its codes (the last 6
    /// of the 8 digits shown there).
    const SECRET: &[u8] = b"12345678901234567890";

    #[test]
    fn the_rfcs_test_vectors_check_and_a_step_either_side_too() {
        for (time, code) in [(59, "287082"), (1_111_111_109, "081804"), (1_234_567_890, "005924")] {
            assert!(Rfc6238.check(SECRET, code, Timestamp::from_unix(time)), "{time}");
            assert!(
                Rfc6238.check(SECRET, code, Timestamp::from_unix(time + 30)),
                "{time} a step later"
            );
            assert!(
                !Rfc6238.check(SECRET, code, Timestamp::from_unix(time + 90)),
                "{time} 3 steps later"
            );
        }
        for wrong in ["", "28708", "2870820", "287083", "28708x"] {
            assert!(!Rfc6238.check(SECRET, wrong, Timestamp::from_unix(59)), "{wrong:?}");
        }
        assert!(!Rfc6238.check(SECRET, "287082", Timestamp::from_unix(-1)));
    }

    #[test]
    fn the_secret_is_shown_in_base32_and_named_in_its_uri() {
        let (base32, uri) = Rfc6238.encoded(SECRET, "ops@example.ng");
        assert_eq!(base32, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
        assert_eq!(
            uri,
            "otpauth://totp/Issuing%3Aops%40example%2Eng?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Issuing\
             &algorithm=SHA1&digits=6&period=30"
        );
    }
}

//! A user's second factor: a TOTP secret shown once to set up in an
//! authenticator app, kept sealed under the master key once a code from
//! it proves it was.

use super::ConsoleError;
use crate::App;
use domain::{InvalidInput, Secret};
use ports::console::User;
use ports::vault::Place;

/// The letters and digits of a new secret: about 190 bits, above the 160
/// RFC 4226 recommends.
const SECRET_CHARS: usize = 32;

/// A secret to set up: itself (carried back by the setup form), as an
/// authenticator app takes it typed, and its `otpauth://` URI.
#[derive(Debug)]
pub struct NewSecondFactor {
    pub secret: Secret<String>,
    pub base32: Secret<String>,
    pub uri: Secret<String>,
}

impl App {
    pub fn new_second_factor(&self, user: &User) -> NewSecondFactor {
        let secret = self.ports.ids.secret(SECRET_CHARS);
        let (base32, uri) = self.ports.totp.encoded(secret.expose().as_bytes(), &user.email);
        NewSecondFactor {
            secret,
            base32: Secret::new(base32),
            uri: Secret::new(uri),
        }
    }

    /// Keeps `secret` as the user's second factor, if `code` is its code
    /// now and they have none yet.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn set_up_second_factor(&self, user: &User, secret: &str, code: &str) -> Result<(), ConsoleError> {
        let already = || InvalidInput::new("code", "two-step sign-in is set up already");
        if user.second_factor {
            return Err(already().into());
        }
        if secret.len() != SECRET_CHARS || !secret.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(InvalidInput::new("secret", "is not one this page made: reload it").into());
        }
        if !self
            .ports
            .totp
            .check(secret.as_bytes(), code.trim(), self.ports.clock.now())
        {
            return Err(InvalidInput::new("code", "is not the authenticator's code now").into());
        }
        let sealed = self.ports.vault.seal(secret.as_bytes(), &Place::console_totp(&user.id));
        match self.ports.console.set_totp(&user.id, sealed).await? {
            true => Ok(()),
            false => Err(already().into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Mocks;
    use domain::Timestamp;
    use domain::console::Seat;

    fn operator() -> User {
        User {
            id: "usr_1".into(),
            email: "ops@example.ng".into(),
            seat: Seat::Operator,
            second_factor: false,
        }
    }

    #[tokio::test]
    async fn a_wrong_code_or_a_forged_secret_sets_nothing_up() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.totp.expect_check().returning(|_, code, _| code == "123456");
        let app = m.app();
        let secret = "a".repeat(32);
        let e = app
            .set_up_second_factor(&operator(), &secret, "654321")
            .await
            .unwrap_err();
        assert!(e.to_string().starts_with("code:"), "{e}");
        for forged in ["a".repeat(31), "a".repeat(33), format!("{}!", "a".repeat(31))] {
            let e = app
                .set_up_second_factor(&operator(), &forged, "123456")
                .await
                .unwrap_err();
            assert!(e.to_string().starts_with("secret:"), "{e}");
        }
    }

    #[tokio::test]
    async fn the_right_code_keeps_the_secret_sealed_at_its_users_place() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.totp.expect_check().returning(|_, code, _| code == "123456");
        m.vault
            .expect_seal()
            .withf(|plain, place| plain == "b".repeat(32).as_bytes() && place.row == "usr_1")
            .returning(|_, _| b"sealed".to_vec());
        m.console
            .expect_set_totp()
            .withf(|id, sealed| id == "usr_1" && sealed == b"sealed")
            .times(1)
            .returning(|_, _| Ok(true));
        m.app()
            .set_up_second_factor(&operator(), &"b".repeat(32), " 123456 ")
            .await
            .unwrap();
    }
}

//! Signing in (a password, a lock after repeated wrong ones), the session
//! a cookie carries, its CSRF token, and signing out.

use super::TOKEN_CHARS;
use crate::App;
use domain::console::{self, SessionWindow};
use domain::{Secret, Timestamp};
use ports::StoreError;
use ports::console::{Login, NewSession, User};
use ports::vault::{Place, SealedField};

/// A user signed in, and their session's token: it goes in the cookie,
/// and only its lookup hash is stored.
#[derive(Debug)]
pub struct SignedIn {
    pub user: User,
    pub token: Secret<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// An unknown email, a user with no password yet, or a wrong one:
    /// one answer for all.
    #[error("the email or the password is wrong")]
    Wrong,
    /// Too many wrong passwords: no password is checked until then.
    #[error("too many wrong passwords: this login is locked until {}", .0.gmt())]
    Locked(Timestamp),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl App {
    /// `code` is the authenticator's, for a user with a second factor
    /// (ignored otherwise); a wrong one counts as a wrong password.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn sign_in(&self, email: &str, password: Secret<String>, code: &str) -> Result<SignedIn, SignInError> {
        let email = console::email("email", email).unwrap_or_default();
        let login = self.ports.console.login(&email).await?;
        let now = self.ports.clock.now();
        if let Some(until) = login.as_ref().and_then(|l| l.locked_until).filter(|until| *until > now) {
            return Err(SignInError::Locked(until));
        }
        let hash = login.as_ref().and_then(|l| l.password_hash.clone());
        let right = self.ports.passwords.verify(password, hash).await?;
        let Some(login) = login else {
            return Err(SignInError::Wrong);
        };
        let right = right && self.second_factor_holds(&login, code, now)?;
        if !right {
            let lockout = console::Lockout::at(now);
            self.ports.console.wrong_password(&login.user.id, lockout).await?;
            return Err(SignInError::Wrong);
        }
        let token = self.ports.ids.secret(TOKEN_CHARS);
        let session = NewSession {
            token_hash: self.ports.vault.lookup_hash(token.expose()),
            user_id: login.user.id.clone(),
            started_at: now,
        };
        self.ports.console.start_session(session).await?;
        Ok(SignedIn {
            user: login.user,
            token,
        })
    }

    /// Whether `code` is the login's second factor's now (true without
    /// one).
    fn second_factor_holds(&self, login: &Login, code: &str, now: domain::Timestamp) -> Result<bool, StoreError> {
        let Some(sealed) = &login.totp_sealed else {
            return Ok(true);
        };
        let secret = (self.ports.vault)
            .open(sealed, &Place::console_totp(&login.user.id))
            .map_err(|e| StoreError::new(format!("{}: {e}", SealedField::ConsoleTotp.column())))?;
        Ok(self.ports.totp.check(secret.expose(), code.trim(), now))
    }

    /// The user of a cookie's session, while it is alive (and it is seen
    /// now: its idle time starts again).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn console_session(&self, token: &str) -> Result<Option<User>, StoreError> {
        let now = self.ports.clock.now();
        let token_hash = self.ports.vault.lookup_hash(token);
        self.ports.console.session(&token_hash, SessionWindow::at(now)).await
    }

    /// The CSRF token of a session's forms: derived from its token under
    /// the master key, so it is never stored and cannot be made without
    /// the cookie.
    pub fn csrf_token(&self, session_token: &str) -> String {
        self.ports.vault.keyed_hash(session_token, "dashboard_csrf")
    }

    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn sign_out(&self, token: &str) -> Result<(), StoreError> {
        let token_hash = self.ports.vault.lookup_hash(token);
        self.ports.console.end_session(&token_hash).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Mocks;
    use domain::console::{Role, Seat};
    use ports::console::Login;

    fn login(locked_until: Option<i64>) -> Login {
        Login {
            user: User {
                id: "usr_1".into(),
                email: "ada@example.ng".into(),
                seat: Seat::Account {
                    account: domain::ids::AccountId::new("acct_a"),
                    role: Role::Admin,
                },
                second_factor: false,
            },
            password_hash: Some("$argon2id$...".into()),
            totp_sealed: None,
            locked_until: locked_until.map(Timestamp::from_unix),
        }
    }

    fn pw() -> Secret<String> {
        Secret::new("a wrong password".into())
    }

    #[tokio::test]
    async fn a_wrong_password_is_counted_with_the_lock_it_would_set() {
        let mut m = Mocks::default();
        m.console.expect_login().returning(|_| Ok(Some(login(None))));
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.passwords.expect_verify().returning(|_, _| Ok(false));
        m.console
            .expect_wrong_password()
            .withf(|id, lockout| id == "usr_1" && lockout.until == Timestamp::from_unix(1_000 + 900))
            .times(1)
            .returning(|_, _| Ok(5));
        let e = m.app().sign_in("ada@example.ng", pw(), "").await.unwrap_err();
        assert!(matches!(e, SignInError::Wrong), "{e}");
    }

    #[tokio::test]
    async fn a_locked_login_checks_no_password_even_a_right_one() {
        let mut m = Mocks::default();
        m.console.expect_login().returning(|_| Ok(Some(login(Some(1_500)))));
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        let e = m.app().sign_in("ada@example.ng", pw(), "").await.unwrap_err();
        assert!(matches!(e, SignInError::Locked(t) if t.unix() == 1_500), "{e}");
    }

    #[tokio::test]
    async fn an_unknown_email_still_spends_a_password_check_and_is_told_as_a_wrong_password() {
        let mut m = Mocks::default();
        m.console.expect_login().returning(|_| Ok(None));
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.passwords
            .expect_verify()
            .withf(|_, hash| hash.is_none())
            .times(1)
            .returning(|_, _| Ok(false));
        let e = m.app().sign_in("nobody@example.ng", pw(), "").await.unwrap_err();
        assert_eq!(e.to_string(), "the email or the password is wrong");
    }
}

//! Signing in (a password, a lock after repeated wrong ones), the session
//! a cookie carries, its CSRF token, and signing out.

use super::TOKEN_CHARS;
use crate::App;
use domain::console::{self, SessionWindow};
use domain::{Secret, Timestamp};
use ports::StoreError;
use ports::console::{Login, NewSession, User};
use ports::vault::{Place, SealedField};

/// How many times an attempt reads its login again after another attempt
/// counted first.
const COUNT_RACES: usize = 16;

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
        let now = self.ports.clock.now();
        let Some((login, counted)) = self.counted_attempt(&email, now).await? else {
            // An unknown email costs a password check too.
            self.ports.passwords.verify(password, None).await?;
            return Err(SignInError::Wrong);
        };
        let right = match self.ports.passwords.verify(password, login.password_hash.clone()).await {
            Ok(right) => right && self.second_factor_holds(&login, code, now)?,
            Err(e) => {
                // Not checked (hashing was full): the attempt gives its
                // place back, unless another counted after it.
                (self.ports.console)
                    .count_attempt(&login.user.id, counted, login.count)
                    .await?;
                return Err(e.into());
            }
        };
        if !right {
            return Err(SignInError::Wrong);
        }
        let token = self.ports.ids.secret(TOKEN_CHARS);
        let session = NewSession {
            token_hash: self.ports.vault.lookup_hash(token.expose()),
            user_id: login.user.id.clone(),
            started_at: now,
            second_factor: login.totp_sealed.is_some(),
            counted,
        };
        // Its second factor was set up meanwhile: that sign-in did not ask
        // for the code.
        if !self.ports.console.start_session(session).await? {
            return Err(SignInError::Wrong);
        }
        Ok(SignedIn {
            user: login.user,
            token,
        })
    }

    /// The login of `email` and the count this attempt left in it (`None`:
    /// no such login), or the lock that refuses it. Each attempt takes its
    /// place in the count before anything is checked: attempts raced
    /// together are checked [`console::LOCK_AFTER`] at most.
    async fn counted_attempt(
        &self,
        email: &str,
        now: domain::Timestamp,
    ) -> Result<Option<(Login, console::LoginCount)>, SignInError> {
        for _ in 0..COUNT_RACES {
            let Some(login) = self.ports.console.login(email).await? else {
                return Ok(None);
            };
            let next = match console::attempt(login.count, now) {
                console::Attempt::Locked(until) => return Err(SignInError::Locked(until)),
                console::Attempt::Check(next) => next,
            };
            if self
                .ports
                .console
                .count_attempt(&login.user.id, login.count, next)
                .await?
            {
                return Ok(Some((login, next)));
            }
        }
        // Lost every race: so many attempts at once that one is refused.
        Err(SignInError::Locked(now.plus(console::LOCK_SECS)))
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
    use domain::console::{LoginCount, Role, Seat};
    use ports::console::Login;

    fn login(failed: i32, locked_until: Option<i64>) -> Login {
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
            count: LoginCount {
                failed,
                locked_until: locked_until.map(Timestamp::from_unix),
            },
        }
    }

    fn pw() -> Secret<String> {
        Secret::new("a wrong password".into())
    }

    #[tokio::test]
    async fn the_fifth_attempt_is_counted_with_its_lock_before_its_password_is_checked() {
        let mut m = Mocks::default();
        m.console.expect_login().returning(|_| Ok(Some(login(4, None))));
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        let mut order = mockall::Sequence::new();
        m.console
            .expect_count_attempt()
            .withf(|id, seen, next| {
                id == "usr_1"
                    && seen.failed == 4
                    && *next
                        == LoginCount {
                            failed: 5,
                            locked_until: Some(Timestamp::from_unix(1_900)),
                        }
            })
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _, _| Ok(true));
        m.passwords
            .expect_verify()
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _| Ok(false));
        let e = m.app().sign_in("ada@example.ng", pw(), "").await.unwrap_err();
        assert!(matches!(e, SignInError::Wrong), "{e}");
    }

    #[tokio::test]
    async fn an_attempt_hashing_had_no_room_for_gives_its_place_back() {
        let mut m = Mocks::default();
        m.console.expect_login().returning(|_| Ok(Some(login(2, None))));
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        let (two, three) = (
            LoginCount {
                failed: 2,
                locked_until: None,
            },
            LoginCount {
                failed: 3,
                locked_until: None,
            },
        );
        let mut order = mockall::Sequence::new();
        m.console
            .expect_count_attempt()
            .withf(move |_, seen, next| (*seen, *next) == (two, three))
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _, _| Ok(true));
        m.passwords
            .expect_verify()
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _| Err(StoreError::overloaded("password hashing")));
        m.console
            .expect_count_attempt()
            .withf(move |_, seen, next| (*seen, *next) == (three, two))
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _, _| Ok(true));
        let e = m.app().sign_in("ada@example.ng", pw(), "").await.unwrap_err();
        assert!(matches!(e, SignInError::Store(_)), "{e}");
    }

    #[tokio::test]
    async fn an_attempt_that_lost_a_race_reads_the_count_again_and_may_find_it_locked() {
        let mut m = Mocks::default();
        let mut reads = vec![login(5, Some(1_900)), login(4, None)];
        m.console.expect_login().returning(move |_| Ok(reads.pop()));
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.console.expect_count_attempt().times(1).returning(|_, _, _| Ok(false));
        let e = m.app().sign_in("ada@example.ng", pw(), "").await.unwrap_err();
        assert!(matches!(e, SignInError::Locked(t) if t.unix() == 1_900), "{e}");
    }

    #[tokio::test]
    async fn a_locked_login_checks_no_password_even_a_right_one() {
        let mut m = Mocks::default();
        m.console.expect_login().returning(|_| Ok(Some(login(5, Some(1_500)))));
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

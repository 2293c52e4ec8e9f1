//! Every request: `token: Bearer <key>` to an account and mode.

use crate::{App, Caller};
use domain::api_key::{self, AuthError};
use domain::{DomainError, ErrorKind, Mode};
use ports::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AuthenticateError {
    #[error(transparent)]
    Auth(#[from] AuthError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for AuthenticateError {
    fn kind(&self) -> ErrorKind {
        match self {
            AuthenticateError::Auth(e) => e.kind(),
            AuthenticateError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            AuthenticateError::Auth(e) => e.code(),
            AuthenticateError::Store(e) => e.code(),
        }
    }
}

impl App {
    /// `header` is the key header's value (`token`, or `Authorization`);
    /// `required` is the mode of the path (sandbox paths need a test key,
    /// production a live key).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn authenticate(&self, header: Option<&str>, required: Mode) -> Result<Caller, AuthenticateError> {
        let key = api_key::parse_header(header, required)?;
        let hash = self.ports.vault.lookup_hash(key.expose());
        let now = self.ports.clock.now();
        // A key looked up lately is trusted until its own expiry, for at
        // most `key_cache_secs`; an unknown key is looked up every time,
        // so a new key works at once.
        let owner = match self.key_owners.get(&hash, now) {
            Some(owner) if owner.expires_at.is_none_or(|at| at > now) => owner,
            _ => {
                let owner = self
                    .ports
                    .accounts
                    .find_key(&hash, now)
                    .await?
                    .ok_or(AuthError::Unknown)?;
                self.key_owners.put(hash, owner.clone(), now);
                owner
            }
        };
        Ok(Caller {
            account_id: owner.account_id,
            mode: owner.mode,
            secret_key: key,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Mocks;
    use domain::ids::AccountId;
    use ports::accounts::KeyOwner;

    const KEY: &str = "sk_test_0123456789abcdefghij0123456789abcdefghij";

    fn mocks(found: bool) -> Mocks {
        let mut m = Mocks::default();
        m.vault.expect_lookup_hash().returning(|s| format!("h:{s}"));
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.accounts.expect_find_key().returning(move |hash, now| {
            assert_eq!(hash, format!("h:{KEY}"));
            assert_eq!(now.unix(), 1_000, "expiry is judged now");
            Ok(found.then(|| KeyOwner {
                account_id: AccountId::new("acct_9"),
                mode: Mode::Test,
                expires_at: None,
            }))
        });
        m
    }

    #[tokio::test]
    async fn a_known_key_authenticates_its_account() {
        let caller = mocks(true)
            .app()
            .authenticate(Some(&format!("Bearer {KEY}")), Mode::Test)
            .await
            .unwrap();
        assert_eq!(caller.account_id.as_str(), "acct_9");
        assert_eq!(caller.mode, Mode::Test);
        assert_eq!(caller.secret_key.expose(), KEY);
    }

    #[tokio::test]
    async fn an_unknown_key_is_unauthorized() {
        let e = mocks(false)
            .app()
            .authenticate(Some(&format!("Bearer {KEY}")), Mode::Test)
            .await
            .unwrap_err();
        assert!(matches!(e, AuthenticateError::Auth(AuthError::Unknown)));
        assert_eq!(e.kind(), ErrorKind::Unauthorized);
    }

    #[tokio::test]
    async fn a_test_key_on_a_live_path_never_reaches_the_store() {
        // No expectations: any store call would panic.
        let e = Mocks::default()
            .app()
            .authenticate(Some(&format!("Bearer {KEY}")), Mode::Live)
            .await
            .unwrap_err();
        assert!(matches!(e, AuthenticateError::Auth(AuthError::TestKeyOnLive)));
    }

    #[tokio::test]
    async fn a_key_is_looked_up_once_per_window_and_never_past_its_expiry() {
        let now = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(1_000));
        let clock = now.clone();
        let mut m = Mocks {
            key_cache_secs: 5,
            ..Mocks::default()
        };
        m.vault.expect_lookup_hash().returning(|s| format!("h:{s}"));
        m.clock
            .expect_now()
            .returning(move || domain::Timestamp::from_unix(clock.load(std::sync::atomic::Ordering::SeqCst)));
        // Read at 1000 and at 1005 (the window ended); the second read
        // finds the key rolled, expiring at 1007, and it is read again at
        // 1007 (no longer found).
        let mut seq = mockall::Sequence::new();
        for expires_at in [None, Some(1_007)] {
            m.accounts
                .expect_find_key()
                .times(1)
                .in_sequence(&mut seq)
                .returning(move |_, _| {
                    Ok(Some(KeyOwner {
                        account_id: AccountId::new("acct_9"),
                        mode: Mode::Test,
                        expires_at: expires_at.map(domain::Timestamp::from_unix),
                    }))
                });
        }
        m.accounts
            .expect_find_key()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(None));
        let app = m.app();
        let header = format!("Bearer {KEY}");
        let at = |t: i64| now.store(t, std::sync::atomic::Ordering::SeqCst);
        for t in [1_000, 1_002, 1_004, 1_005, 1_006] {
            at(t);
            assert!(app.authenticate(Some(&header), Mode::Test).await.is_ok(), "at {t}");
        }
        at(1_007);
        assert!(
            app.authenticate(Some(&header), Mode::Test).await.is_err(),
            "expired at 1007"
        );
    }
}

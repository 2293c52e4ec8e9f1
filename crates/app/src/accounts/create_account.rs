//! `issuing accounts create`: a new account with a test key, a live key
//! and a webhook secret. Keys are stored only as a lookup hash plus a copy
//! sealed under the master key.

use crate::App;
use crate::error::RequestError;
use domain::ids::AccountId;
use domain::{InvalidInput, Mode, Secret, api_key, http_url};
use ports::StoreError;
use ports::accounts::{NewAccount, StoredKey};
use ports::vault::Place;

const KEY_RANDOM_CHARS: usize = 40;
const MAX_NAME_CHARS: usize = 200;

/// What `issuing accounts create` is told about the account.
#[derive(Debug, Clone, Default)]
pub struct AccountDetails {
    pub name: String,
    pub webhook_url: Option<String>,
    /// The company's own KYC profile: registering cardholders needs both.
    pub company_address: Option<String>,
    pub utility_bill_url: Option<String>,
}

#[derive(Debug)]
pub struct CreatedAccount {
    pub account_id: AccountId,
    pub test_secret_key: Secret<String>,
    pub live_secret_key: Secret<String>,
    /// Each mode signs its webhooks with its own secret.
    pub test_webhook_secret: Secret<String>,
    pub live_webhook_secret: Secret<String>,
}

/// An http(s) URL when given.
pub(super) fn optional_url(field: &str, value: &Option<String>) -> Result<Option<String>, InvalidInput> {
    value.as_deref().map(|u| http_url::parse(field, u)).transpose()
}

/// A company address with at least 3 letters, when given.
pub(super) fn optional_address(value: &Option<String>) -> Result<Option<String>, InvalidInput> {
    let address = value.as_deref().map(str::trim);
    if address.is_some_and(|a| a.chars().filter(|c| c.is_alphabetic()).count() < 3) {
        return Err(InvalidInput::new("company_address", "must have at least 3 letters"));
    }
    Ok(address.map(str::to_string))
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn create_account(
        &self,
        details: &AccountDetails,
        is_demo: bool,
    ) -> Result<CreatedAccount, RequestError> {
        let name = details.name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
            return Err(InvalidInput::new("name", format!("must be 1 to {MAX_NAME_CHARS} characters")).into());
        }
        let webhook_url = optional_url("webhook_url", &details.webhook_url)?;
        let utility_bill_url = optional_url("utility_bill_url", &details.utility_bill_url)?;
        let company_address = optional_address(&details.company_address)?;

        let test_secret_key = self.new_secret_key(Mode::Test);
        let live_secret_key = self.new_secret_key(Mode::Live);
        let test_webhook_secret = self.ports.ids.webhook_secret();
        let live_webhook_secret = self.ports.ids.webhook_secret();
        let account_id = AccountId::with_suffix(&self.ports.ids.unique());
        let store_key = |mode, key: &Secret<String>| self.stored_key(&account_id, mode, key);
        let account = NewAccount {
            id: account_id.clone(),
            name: name.to_string(),
            is_demo,
            webhook_url,
            company_address,
            utility_bill_url,
            test_webhook_secret_sealed: self.seal_webhook_secret(&account_id, Mode::Test, &test_webhook_secret),
            live_webhook_secret_sealed: self.seal_webhook_secret(&account_id, Mode::Live, &live_webhook_secret),
            keys: [
                store_key(Mode::Test, &test_secret_key),
                store_key(Mode::Live, &live_secret_key),
            ],
            created_at: self.ports.clock.now(),
        };
        self.ports.accounts.create_account(account).await?;
        Ok(CreatedAccount {
            account_id,
            test_secret_key,
            live_secret_key,
            test_webhook_secret,
            live_webhook_secret,
        })
    }

    pub(super) fn new_secret_key(&self, mode: Mode) -> Secret<String> {
        api_key::format_key(mode, self.ports.ids.secret(KEY_RANDOM_CHARS).expose())
    }

    /// A key as stored: its lookup hash, and itself sealed in its place.
    pub(super) fn stored_key(&self, account: &AccountId, mode: Mode, key: &Secret<String>) -> StoredKey {
        let lookup_hash = self.ports.vault.lookup_hash(key.expose());
        let place = Place::api_key(&lookup_hash, account.as_str(), mode);
        StoredKey {
            mode,
            sealed: self.ports.vault.seal(key.expose().as_bytes(), &place),
            lookup_hash,
        }
    }

    pub(super) fn seal_webhook_secret(&self, account: &AccountId, mode: Mode, secret: &Secret<String>) -> Vec<u8> {
        let place = Place::webhook_secret(account.as_str(), mode);
        self.ports.vault.seal(secret.expose().as_bytes(), &place)
    }

    /// Gives each account made before the modes had a webhook secret each
    /// a new sandbox secret (its one secret stays the live one). Run at
    /// start; returns how many it gave.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn give_sandbox_webhook_secrets(&self) -> Result<usize, StoreError> {
        let accounts = self.ports.accounts.without_test_webhook_secret().await?;
        for account in &accounts {
            let sealed = self.seal_webhook_secret(account, Mode::Test, &self.ports.ids.webhook_secret());
            self.ports.accounts.set_test_webhook_secret(account, sealed).await?;
        }
        Ok(accounts.len())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::Mocks;
    use domain::{DomainError, ErrorKind};

    /// Mocks that make ids and seal secrets reversibly (by reversing the
    /// bytes), so a test can tell a sealed value from a clear one.
    pub(crate) fn mocks_for_creation() -> Mocks {
        let mut m = Mocks::default();
        let mut n = 0;
        m.ids.expect_secret().returning(move |len| {
            n += 1;
            Secret::new(format!("{n}").repeat(len))
        });
        let mut w = 2;
        m.ids.expect_webhook_secret().returning(move || {
            w += 1;
            Secret::new(format!("whsec_{}", format!("{w}").repeat(32)))
        });
        m.ids.expect_unique().return_const("u1".to_string());
        m.vault.expect_lookup_hash().returning(|s| format!("hash({s})"));
        m.vault
            .expect_seal()
            .returning(|p, _| p.iter().rev().copied().collect());
        m.clock
            .expect_now()
            .return_const(domain::Timestamp::from_unix(1_700_000_000));
        m
    }

    #[tokio::test]
    async fn stores_hashes_and_sealed_keys_never_the_clear_keys() {
        let mut m = mocks_for_creation();
        m.accounts.expect_create_account().times(1).returning(|a| {
            assert_eq!(a.id.as_str(), "acct_u1");
            assert_eq!(a.name, "Acme");
            assert_eq!(a.webhook_url.as_deref(), Some("https://acme.test/hooks"));
            assert_eq!(a.company_address.as_deref(), Some("1 Marina, Lagos"));
            let test = format!("sk_test_{}", "1".repeat(40));
            assert_eq!(a.keys[0].mode, Mode::Test);
            assert_eq!(a.keys[0].lookup_hash, format!("hash({test})"));
            assert_ne!(a.keys[0].sealed, test.as_bytes());
            assert_eq!(a.keys[1].mode, Mode::Live);
            assert!(!a.test_webhook_secret_sealed.starts_with(b"whsec_"));
            assert_ne!(a.test_webhook_secret_sealed, a.live_webhook_secret_sealed);
            Ok(())
        });
        let created = m
            .app()
            .create_account(
                &AccountDetails {
                    name: " Acme ".into(),
                    webhook_url: Some("https://acme.test/hooks".into()),
                    company_address: Some("1 Marina, Lagos".into()),
                    utility_bill_url: Some("https://acme.test/bill.pdf".into()),
                },
                false,
            )
            .await
            .unwrap();
        assert_eq!(created.test_secret_key.expose(), &format!("sk_test_{}", "1".repeat(40)));
        assert_eq!(created.live_secret_key.expose(), &format!("sk_live_{}", "2".repeat(40)));
        assert_eq!(
            created.test_webhook_secret.expose(),
            &format!("whsec_{}", "3".repeat(32))
        );
        assert_eq!(
            created.live_webhook_secret.expose(),
            &format!("whsec_{}", "4".repeat(32))
        );
    }

    #[tokio::test]
    async fn rejects_a_bad_name_or_webhook_url_before_storing() {
        let app = mocks_for_creation().app();
        let named = |name: &str| AccountDetails {
            name: name.into(),
            ..Default::default()
        };
        let e = app.create_account(&named("  "), false).await.unwrap_err();
        assert!(e.to_string().starts_with("name:"), "{e}");
        let bad_url = AccountDetails {
            webhook_url: Some("ftp://x".into()),
            ..named("Acme")
        };
        let e = app.create_account(&bad_url, false).await.unwrap_err();
        assert!(e.to_string().starts_with("webhook_url:"), "{e}");
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
}

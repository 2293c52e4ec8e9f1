//! On an empty database `serve` creates a demo account, and every start
//! prints its test key so the first request can be made right away.

use crate::App;
use crate::accounts::AccountDetails;
use crate::error::RequestError;
use domain::{Mode, Secret};
use ports::StoreError;
use ports::vault::Place;

const DEMO_ACCOUNT_NAME: &str = "Demo";

#[derive(Debug, thiserror::Error)]
pub enum DemoAccountError {
    #[error("the demo account's key cannot be opened: is ISSUING_MASTER_KEY the one this database was created with?")]
    Unsealable,
    #[error(transparent)]
    Create(#[from] RequestError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl App {
    /// The demo account's test key: created with the account when the
    /// database holds no account at all, `None` when it holds real
    /// accounts and no demo.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn demo_test_key(&self) -> Result<Option<Secret<String>>, DemoAccountError> {
        if let Some(key) = self.stored_demo_key().await? {
            return Ok(Some(key));
        }
        if self.ports.accounts.any_account().await? {
            return Ok(None);
        }
        // A complete company profile, so the sandbox can register
        // cardholders right away.
        let details = AccountDetails {
            name: DEMO_ACCOUNT_NAME.to_string(),
            webhook_url: None,
            company_address: Some("1 Demo Street, Lagos".to_string()),
            utility_bill_url: Some("https://example.com/demo-utility-bill.pdf".to_string()),
        };
        match self.create_account(&details, true).await {
            Ok(created) => Ok(Some(created.test_secret_key)),
            // Another process started at once made it first: the store
            // keeps one demo account.
            Err(e) => match self.stored_demo_key().await? {
                Some(key) => Ok(Some(key)),
                None => Err(e.into()),
            },
        }
    }

    async fn stored_demo_key(&self) -> Result<Option<Secret<String>>, DemoAccountError> {
        let Some(demo) = self.ports.accounts.demo_key(Mode::Test).await? else {
            return Ok(None);
        };
        let place = Place::api_key(&demo.lookup_hash, demo.account_id.as_str(), Mode::Test);
        let opened = self
            .ports
            .vault
            .open(&demo.sealed, &place)
            .map_err(|_| DemoAccountError::Unsealable)?;
        let key = String::from_utf8(opened.expose().clone()).map_err(|_| DemoAccountError::Unsealable)?;
        Ok(Some(Secret::new(key)))
    }
}

#[cfg(test)]
mod tests {
    use crate::accounts::create_account::tests::mocks_for_creation;
    use crate::testing::Mocks;
    use domain::{Mode, Secret};
    use ports::accounts::DemoKey;
    use ports::vault::VaultError;

    #[tokio::test]
    async fn creates_a_demo_account_on_an_empty_database() {
        let mut m = mocks_for_creation();
        m.accounts.expect_demo_key().return_once(|_| Ok(None));
        m.accounts.expect_any_account().return_once(|| Ok(false));
        m.accounts
            .expect_create_account()
            .withf(|a| a.is_demo && a.name == "Demo")
            .times(1)
            .returning(|_| Ok(()));
        let key = m.app().demo_test_key().await.unwrap().unwrap();
        assert!(key.expose().starts_with("sk_test_"));
    }

    /// Two processes started at once on an empty database: the store
    /// refuses the second demo account, whose process takes the first's.
    #[tokio::test]
    async fn a_demo_account_made_at_once_elsewhere_is_taken() {
        let mut m = mocks_for_creation();
        let mut seq = mockall::Sequence::new();
        m.accounts
            .expect_demo_key()
            .times(1)
            .in_sequence(&mut seq)
            .return_once(|_| Ok(None));
        m.accounts.expect_any_account().return_once(|| Ok(false));
        m.accounts
            .expect_create_account()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_| Err(ports::StoreError::new("one demo account")));
        m.accounts
            .expect_demo_key()
            .times(1)
            .in_sequence(&mut seq)
            .return_once(|_| Ok(Some(demo())));
        m.vault
            .expect_open()
            .return_once(|_, _| Ok(Secret::new(b"sk_test_first".to_vec())));
        let key = m.app().demo_test_key().await.unwrap().unwrap();
        assert_eq!(key.expose(), "sk_test_first");
    }

    #[tokio::test]
    async fn never_adds_a_demo_account_beside_real_ones() {
        let mut m = Mocks::default();
        m.accounts.expect_demo_key().return_once(|_| Ok(None));
        m.accounts.expect_any_account().return_once(|| Ok(true));
        assert!(m.app().demo_test_key().await.unwrap().is_none());
    }

    fn demo() -> DemoKey {
        DemoKey {
            account_id: domain::ids::AccountId::new("acct_demo"),
            lookup_hash: "hash".into(),
            sealed: b"sealed".to_vec(),
        }
    }

    #[tokio::test]
    async fn opens_the_existing_demo_key() {
        let mut m = Mocks::default();
        m.accounts
            .expect_demo_key()
            .withf(|mode| *mode == Mode::Test)
            .return_once(|_| Ok(Some(demo())));
        m.vault
            .expect_open()
            .withf(|sealed, place| sealed == b"sealed" && place.row == "hash" && place.account == "acct_demo")
            .return_once(|_, _| Ok(Secret::new(b"sk_test_abc".to_vec())));
        let key = m.app().demo_test_key().await.unwrap().unwrap();
        assert_eq!(key.expose(), "sk_test_abc");
    }

    #[tokio::test]
    async fn a_wrong_master_key_is_a_clear_error() {
        let mut m = Mocks::default();
        m.accounts.expect_demo_key().return_once(|_| Ok(Some(demo())));
        m.vault.expect_open().return_once(|_, _| Err(VaultError));
        let e = m.app().demo_test_key().await.unwrap_err();
        assert!(e.to_string().contains("ISSUING_MASTER_KEY"));
    }
}

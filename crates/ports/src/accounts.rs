use crate::StoreError;
use domain::ids::AccountId;
use domain::{Mode, Timestamp};

/// A secret API key as stored: a lookup hash and the key sealed under the
/// master key (the key is also the passphrase of encrypted PIN fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredKey {
    pub mode: Mode,
    pub lookup_hash: String,
    pub sealed: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAccount {
    pub id: AccountId,
    pub name: String,
    pub is_demo: bool,
    pub webhook_url: Option<String>,
    pub company_address: Option<String>,
    pub utility_bill_url: Option<String>,
    /// Each mode signs its webhooks with its own secret.
    pub test_webhook_secret_sealed: Vec<u8>,
    pub live_webhook_secret_sealed: Vec<u8>,
    pub keys: [StoredKey; 2],
    pub created_at: Timestamp,
}

/// Changes to an account, at least one; `None` leaves a field as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountChanges {
    /// Both modes' webhook URL.
    pub webhook_url: Option<String>,
    pub company_address: Option<String>,
    pub utility_bill_url: Option<String>,
}

/// The demo account's key as stored: sealed, with what names its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoKey {
    pub account_id: AccountId,
    pub lookup_hash: String,
    pub sealed: Vec<u8>,
}

/// A key as operators see it: never the key itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySummary {
    /// The start of its lookup hash: what `revoke_key` takes.
    pub id: String,
    pub mode: Mode,
    pub created_at: Timestamp,
    /// `None`: the mode's current key.
    pub expires_at: Option<Timestamp>,
}

/// Who a key belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOwner {
    pub account_id: AccountId,
    pub mode: Mode,
    /// When the key stops working (a rolled key); `None`: the mode's
    /// current key, until it is rolled or revoked.
    pub expires_at: Option<Timestamp>,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait AccountStore: Send + Sync {
    /// Stores the account, its keys, and its issuing wallets and other
    /// ledger accounts for both modes, in one transaction.
    async fn create_account(&self, account: NewAccount) -> Result<(), StoreError>;

    /// `false` when there is no such account.
    async fn update_account(&self, account: &AccountId, changes: AccountChanges) -> Result<bool, StoreError>;

    /// Where the account's webhooks of `mode` go.
    async fn set_webhook_url(&self, account: &AccountId, mode: Mode, url: &str) -> Result<(), StoreError>;

    /// The owner of the key, unless it expired by `now`.
    async fn find_key(&self, lookup_hash: &str, now: Timestamp) -> Result<Option<KeyOwner>, StoreError>;

    /// In one transaction: the mode's earlier keys (the current one, and
    /// any still in an overlap) expire at `old_expire_at` at the latest,
    /// and `key` becomes the current one.
    /// `false` when there is no such account.
    async fn roll_key(
        &self,
        account: &AccountId,
        key: StoredKey,
        now: Timestamp,
        old_expire_at: Timestamp,
    ) -> Result<bool, StoreError>;

    /// In one statement: the mode's webhook secret becomes its previous
    /// one, signing until `old_expire_at`, and `sealed` the current one.
    /// `false` when there is no such account.
    async fn roll_webhook_secret(
        &self,
        account: &AccountId,
        mode: Mode,
        sealed: Vec<u8>,
        old_expire_at: Timestamp,
    ) -> Result<bool, StoreError>;

    /// The account's keys, newest first, expired ones included.
    async fn list_keys(&self, account: &AccountId) -> Result<Vec<KeySummary>, StoreError>;

    /// The account's unexpired key whose id is `key_id` expires at `now`;
    /// `false` when there is none.
    async fn revoke_key(&self, account: &AccountId, key_id: &str, now: Timestamp) -> Result<bool, StoreError>;

    /// Whether any account exists.
    async fn any_account(&self) -> Result<bool, StoreError>;

    /// The key of `mode` of the demo account, if one exists.
    async fn demo_key(&self, mode: Mode) -> Result<Option<DemoKey>, StoreError>;

    /// Accounts made before each mode had its own webhook secret: they
    /// have no sandbox secret yet.
    async fn without_test_webhook_secret(&self) -> Result<Vec<AccountId>, StoreError>;

    /// Gives the account its sandbox webhook secret, unless it has one.
    async fn set_test_webhook_secret(&self, account: &AccountId, sealed: Vec<u8>) -> Result<(), StoreError>;
}

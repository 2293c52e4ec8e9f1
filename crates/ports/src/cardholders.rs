use crate::StoreError;
use crate::events::NewEvent;
use crate::jobs::NewJob;
use domain::cardholders::{CardholderStatus, Registration};
use domain::ids::{AccountId, CardholderId};
use domain::paging::Page;
use domain::{Mode, Timestamp};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardholderRecord {
    pub id: CardholderId,
    pub account_id: AccountId,
    pub mode: Mode,
    pub registration: Registration,
    pub status: CardholderStatus,
    pub blacklisted: bool,
    pub error_description: Option<String>,
    /// The client's free-form object, as JSON text.
    pub meta_data: Option<String>,
    pub created_at: Timestamp,
}

#[derive(Debug, thiserror::Error)]
pub enum SaveCardholderError {
    #[error("identity.bvn: this BVN is already used by a cardholder")]
    BvnUsed,
    #[error("phone: this phone number is already used by a cardholder")]
    PhoneUsed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A verification decision, stored with the event that reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub status: CardholderStatus,
    pub blacklisted: bool,
    pub error_description: Option<String>,
}

/// A cardholder's customer at the mode's processor, as a request that
/// needs it finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CustomerClaim {
    /// Made before: its id.
    Known(String),
    /// None yet, and this request is the one to make it (then
    /// [`CardholderStore::set_processor_customer`], or
    /// [`CardholderStore::release_processor_customer`] if it failed).
    Claimed,
    /// Another request is making it now.
    Busy,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait CardholderStore: Send + Sync {
    /// Whether the account's company address and utility bill are on file.
    async fn account_profile_complete(&self, account: &AccountId) -> Result<bool, StoreError>;

    /// Stores a new cardholder (with the job that verifies it, on the
    /// asynchronous route) in one transaction; the BVN and the phone must
    /// be free in the account and mode.
    async fn insert(&self, record: CardholderRecord, verification: Option<NewJob>) -> Result<(), SaveCardholderError>;

    /// A cardholder of the account and mode that is not deleted.
    async fn get(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardholderId,
    ) -> Result<Option<CardholderRecord>, StoreError>;

    /// Any cardholder that is not deleted, whatever its account (jobs and
    /// manual review).
    async fn get_any(&self, id: &CardholderId) -> Result<Option<CardholderRecord>, StoreError>;

    /// Records a verification decision and the event that reports it (with
    /// its delivery job), in one transaction, only while the cardholder is
    /// still in status `from` and not deleted. `false`: it was not (decided
    /// or deleted meanwhile), and nothing was stored.
    async fn decide(
        &self,
        id: &CardholderId,
        from: CardholderStatus,
        decision: Decision,
        event: NewEvent,
        delivery: NewJob,
    ) -> Result<bool, StoreError>;

    /// Replaces the cardholder's profile (registration and meta_data) and
    /// nothing else: status, blacklist and decision are not touched, so a
    /// decision recorded meanwhile stands. The BVN and phone stay unique.
    /// `false` when there is no such cardholder (or it was deleted).
    async fn update_profile(&self, record: CardholderRecord) -> Result<bool, SaveCardholderError>;

    /// Marks the cardholder deleted and stores `finish` (the job that
    /// deletes its cards) in the same transaction. `false` when there was
    /// no such cardholder (nothing is stored).
    async fn delete(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardholderId,
        now: Timestamp,
        finish: NewJob,
    ) -> Result<bool, StoreError>;

    /// Newest first, and the total.
    async fn list(
        &self,
        account: &AccountId,
        mode: Mode,
        page: Page,
    ) -> Result<(Vec<CardholderRecord>, u64), StoreError>;

    /// A page of the cardholders whose id is `text`, or whose name or
    /// phone number holds it (in any case), newest first, with how many
    /// there are.
    async fn search(
        &self,
        account: &AccountId,
        mode: Mode,
        text: String,
        page: Page,
    ) -> Result<(Vec<CardholderRecord>, u64), StoreError>;

    /// The cardholder's processor customer, or the claim to make it: one
    /// request at a time, a claim older than `stale_secs` taken over.
    async fn claim_processor_customer(
        &self,
        id: &CardholderId,
        now: Timestamp,
        stale_secs: i64,
    ) -> Result<CustomerClaim, StoreError>;

    /// Records the customer the claiming request made.
    async fn set_processor_customer(&self, id: &CardholderId, customer: &str) -> Result<(), StoreError>;

    /// Gives up a claim whose customer could not be made.
    async fn release_processor_customer(&self, id: &CardholderId) -> Result<(), StoreError>;

    /// Every case waiting for manual review, oldest first.
    async fn in_review(&self) -> Result<Vec<CardholderRecord>, StoreError>;
}

use crate::StoreError;
use domain::idempotency::{Fingerprint, IdempotencyKey, KeyRecord};
use domain::ids::AccountId;
use domain::{Mode, Timestamp};

/// An answer kept for a key's retries, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// A key of one account and mode.
#[derive(Debug, Clone, Copy)]
pub struct KeyOf<'a> {
    pub account: &'a AccountId,
    pub mode: Mode,
    pub key: &'a IdempotencyKey,
}

/// A claim on a key: the request that holds it, and until when.
#[derive(Debug, Clone)]
pub struct NewClaim<'a> {
    pub fingerprint: &'a Fingerprint,
    /// On the mode's clock.
    pub created_at: Timestamp,
    /// Real unix seconds.
    pub lease_until: i64,
    /// Names this claim: only its holder answers or frees the key.
    pub token: &'a str,
}

/// A key someone holds or held, as read.
#[derive(Debug, Clone)]
pub struct HeldKey {
    pub record: KeyRecord,
    /// Set once answered.
    pub answer: Option<KeptAnswer>,
    pub token: String,
}

#[derive(Debug, Clone)]
pub enum Claimed {
    /// The key was free: the claim holds it.
    Now,
    /// The key is held, or was answered: as it stands.
    Already(HeldKey),
    /// The key was forgotten between looking and reading: ask again.
    Again,
}

/// Idempotency keys, held in the database so they hold across processes.
/// Every change is one guarded statement: two claims of one key never
/// both hold it.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait IdempotencyKeys: Send + Sync {
    /// Holds a free key for `claim`, or reads who has it.
    async fn claim<'a>(&self, key: KeyOf<'a>, claim: NewClaim<'a>) -> Result<Claimed, StoreError>;
    /// Holds a key for `claim` if its claim is still `seen` (expired, or
    /// its process dead); false when another took it first.
    async fn take_over<'a>(&self, key: KeyOf<'a>, seen: &'a str, claim: NewClaim<'a>) -> Result<bool, StoreError>;
    /// Keeps the answer of the claim `token`, given `at` on the mode's
    /// clock (the key's day counts from it); false when the key is no
    /// longer its (taken over).
    async fn answer<'a>(
        &self,
        key: KeyOf<'a>,
        token: &'a str,
        answer: &'a KeptAnswer,
        at: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Frees the key of the claim `token`, its request to be run again.
    async fn free<'a>(&self, key: KeyOf<'a>, token: &'a str) -> Result<(), StoreError>;
    /// Forgets the account's answered keys of `mode` created before
    /// `before`, and those whose lease ran out before `real_now` (their
    /// process died); a running key is kept, however old.
    async fn forget_before(
        &self,
        account: &AccountId,
        mode: Mode,
        before: Timestamp,
        real_now: i64,
    ) -> Result<u64, StoreError>;
}

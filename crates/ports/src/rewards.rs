//! Rewards: each account's rules, the catalogue, and the rewards
//! cardholders earned.

use crate::StoreError;
use crate::events::NewEvent;
use crate::jobs::NewJob;
use domain::ids::{AccountId, CardholderId};
use domain::rewards::rules::{RewardRules, Rule};
use domain::rewards::{Catalogue, Reward};
use domain::{Amount, Currency, Mode, Timestamp};

/// A reward a cardholder earned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardRecord {
    pub id: String,
    pub account_id: AccountId,
    pub mode: Mode,
    pub cardholder_id: CardholderId,
    /// What it holds now: a deal until claimed, then its promo code.
    pub reward: Reward,
    pub earned_at: Timestamp,
    pub claimed_at: Option<Timestamp>,
}

/// A reward to store, and the rule and period that earned it (none for a
/// sandbox assignment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReward {
    pub record: RewardRecord,
    pub earned_by: Option<(Rule, String)>,
}

/// A cardholder's approved debits (fees left out) in one currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spending {
    pub currency: Currency,
    pub total: Amount,
    pub debits: u32,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait RewardStore: Send + Sync {
    /// The account's rules in `mode`: the defaults, switched off, until set.
    async fn rules(&self, account: &AccountId, mode: Mode) -> Result<RewardRules, StoreError>;

    /// Stores the account's rules of `mode`; on rules stored before, the
    /// switch (`rules.enabled`) only when `switch` (the operator's change):
    /// an account's own change raced with the operator's switch never
    /// undoes it. `false` when there is no such account.
    async fn set_rules(
        &self,
        account: &AccountId,
        mode: Mode,
        rules: RewardRules,
        switch: bool,
    ) -> Result<bool, StoreError>;

    /// The operator's imported catalogue, or the shipped one.
    async fn catalogue(&self) -> Result<Catalogue, StoreError>;

    /// Replaces the imported catalogue.
    async fn import_catalogue(&self, catalogue: &Catalogue, now: Timestamp) -> Result<(), StoreError>;

    /// Stores the reward with its event and the event's delivery job, in
    /// one transaction; `false` (and nothing stored) when its rule already
    /// earned the cardholder a reward in this period.
    async fn award(&self, reward: NewReward, event: NewEvent, delivery: NewJob) -> Result<bool, StoreError>;

    /// The cardholder's rewards, oldest first.
    async fn list(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
    ) -> Result<Vec<RewardRecord>, StoreError>;

    async fn get(&self, id: &str) -> Result<Option<RewardRecord>, StoreError>;

    /// Turns the unclaimed reward `id` into `claimed`; `false` when it was
    /// claimed already (by a concurrent claim too).
    async fn claim(&self, id: &str, claimed: &Reward, now: Timestamp) -> Result<bool, StoreError>;

    /// The cardholder's approved debits in `[from, to)`, per currency.
    async fn spending(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
        between: (Timestamp, Timestamp),
    ) -> Result<Vec<Spending>, StoreError>;

    /// When the cardholder's last approved debit was, if any.
    async fn last_debit(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
    ) -> Result<Option<Timestamp>, StoreError>;
}

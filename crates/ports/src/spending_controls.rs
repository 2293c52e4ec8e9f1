//! Spending controls as stored: a card's own, with its spend by window,
//! and an account's for every card of a mode. The debit's batch reads both
//! itself ([`crate::card_transactions::CardTransactionStore::debit`]).

use crate::StoreError;
use domain::cards::spending_controls::{SpendingControls, Windows};
use domain::ids::{AccountId, CardId};
use domain::{Mode, Timestamp};

/// A card's own controls (`None`: none) and its approved spend by window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardControls {
    pub controls: Option<SpendingControls>,
    pub spend: Windows,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait SpendingControlStore: Send + Sync {
    /// The account's controls for its cards of `mode`; `None`: none.
    async fn account_controls(&self, account: &AccountId, mode: Mode) -> Result<Option<SpendingControls>, StoreError>;

    /// Replaces them (`None`: removes them).
    async fn set_account_controls(
        &self,
        account: &AccountId,
        mode: Mode,
        controls: Option<SpendingControls>,
        now: Timestamp,
    ) -> Result<(), StoreError>;

    /// An undeleted card's controls and spend; `None`: no such card.
    async fn card_controls(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
    ) -> Result<Option<CardControls>, StoreError>;

    /// Replaces an undeleted card's own controls (`None`: removes them);
    /// false: no such card.
    async fn set_card_controls(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        controls: Option<SpendingControls>,
    ) -> Result<bool, StoreError>;
}

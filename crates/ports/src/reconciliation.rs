use crate::StoreError;
use domain::ids::{AccountId, CardId};
use domain::{Amount, Currency, Mode, Timestamp};

/// A debit of a card a processor keeps, as recorded here, with what was
/// given back of it: one side of a reconciliation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebitHere {
    pub account_id: AccountId,
    pub card_id: CardId,
    /// The processor's id of the card.
    pub processor_card: String,
    /// The debit's client reference: the processor's id of its
    /// authorization, or a repair's (`domain::cards::reconciliation::repair_reference`).
    pub reference: String,
    pub approved: bool,
    pub amount: Amount,
    pub currency: Currency,
    pub created_at: Timestamp,
    /// What was given back of it, by the id it was applied under.
    pub given_back: Vec<(String, Amount)>,
}

/// A reconciliation run, as started and as finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// A scheduled run's names its mode and period: one process runs it.
    pub id: String,
    pub mode: Mode,
    /// The processor's books were read from then.
    pub since: Timestamp,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    /// Authorizations compared.
    pub compared: u64,
    pub differences: u64,
    pub repaired: u64,
    pub unresolved: u64,
    /// Why the run could not finish (the processor unreachable).
    pub error: Option<String>,
}

/// One difference a run found, and what its repair did: the audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairRecord {
    pub run_id: String,
    pub mode: Mode,
    /// The processor's id of the authorization.
    pub authorization: String,
    /// `domain::cards::reconciliation::Class::as_str`.
    pub class: &'static str,
    /// `debit`, `give_back`, `refund` or `none`.
    pub repair: &'static str,
    /// The reference or id the repair's record was made under.
    pub applied_as: Option<String>,
    pub account_id: Option<AccountId>,
    pub card_id: Option<CardId>,
    /// What the repair asked to move, in the card's minor units.
    pub amount: Amount,
    /// What became of it (`applied`, `already_applied`, a decline, why not).
    pub outcome: String,
    pub created_at: Timestamp,
}

/// The runs of reconciliation with a processor and their audit trail.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait ReconciliationStore: Send + Sync {
    /// Notes that the processor's gateway asked about the authorization
    /// `reference` of its card `card` (before its debit is decided): a
    /// debit of it recorded here only is then the processor's to answer
    /// for.
    async fn gateway_asked(&self, mode: Mode, reference: &str, card: &str, at: Timestamp) -> Result<(), StoreError>;

    /// The debits of `mode` of cards a processor keeps that its gateway
    /// asked for on that card (or that reconciliation made), made from
    /// `since`, and those under one of `references`, with what was given
    /// back of each.
    async fn debits_at_processor(
        &self,
        mode: Mode,
        since: Timestamp,
        references: &[String],
    ) -> Result<Vec<DebitHere>, StoreError>;

    /// Records a run's start; false when a run of its id exists (another
    /// process took the period).
    async fn start_run(&self, run: &Run) -> Result<bool, StoreError>;

    async fn record_repair(&self, repair: &RepairRecord) -> Result<(), StoreError>;

    /// Records what the run found.
    async fn finish_run(&self, run: &Run) -> Result<(), StoreError>;

    /// The newest run of each mode.
    async fn last_runs(&self) -> Result<Vec<Run>, StoreError>;
}

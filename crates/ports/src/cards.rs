use crate::StoreError;
use crate::card_network::NetworkCardState;
use crate::events::NewEvent;
use crate::jobs::NewJob;
use domain::Timestamp;
use domain::cards::state::{CardState, DeletionReason};
use domain::cards::transfer::{Settlement, TransferKind, TransferState};
use domain::cards::{CardLimit, CardType};
use domain::ids::{AccountId, CardId, CardholderId, TransferId};
use domain::paging::Page;
use domain::{Amount, Currency, Mode};

/// A card's sensitive data, each value sealed by the vault on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedDetails {
    pub pan: Vec<u8>,
    pub cvv: Vec<u8>,
    pub expiry_month: Vec<u8>,
    pub expiry_year: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardRecord {
    pub id: CardId,
    pub account_id: AccountId,
    pub mode: Mode,
    pub cardholder_id: CardholderId,
    pub card_type: CardType,
    /// USD or NGN: which wallet its money comes from and which limits hold.
    pub currency: Currency,
    pub name: String,
    pub details: SealedDetails,
    pub last_4: String,
    pub limit: CardLimit,
    pub fee_hold: Amount,
    /// Active or frozen: a deleted card is not read as a record.
    pub state: CardState,
    pub pin_3ds_activated: bool,
    /// The client's free-form object, as JSON text.
    pub meta_data: Option<String>,
    pub created_at: Timestamp,
    /// The card's ledger balance in minor units (read, never written, here).
    pub balance: i64,
    /// What its pending authorizations hold (its held ledger account).
    pub held: i64,
}

/// Where a new card's first money comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Funding {
    /// This much (maybe nothing) from the issuing wallet of the card's currency.
    Wallet(Amount),
    /// The whole balance of this card, which is deleted (a migration).
    Card(CardId),
}

/// A card to store and fund in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCard {
    pub card: CardRecord,
    pub sealed_pin: Vec<u8>,
    /// A Naira card's NIN, sealed.
    pub sealed_nin: Option<Vec<u8>>,
    /// The physical card's envelope number, unique per account and mode.
    pub token_number: Option<String>,
    pub funding: Funding,
    /// When its fee anniversaries count from (see [`RuleState`]).
    pub fee_anchor_at: Timestamp,
    /// The creation request's `transaction_reference`, taken in the
    /// clients' namespace (fundings, unloadings, debits) with the card.
    pub reference: Option<String>,
    /// The processor's id of the card, when a processor keeps its number
    /// (unique per mode).
    pub processor_card: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CreateCardError {
    #[error("the issuing wallet balance is too low to fund this card")]
    WalletTooLow,
    #[error("card_token_number: this card was already activated")]
    TokenNumberUsed,
    #[error("transaction_reference: this reference was already used")]
    ReferenceUsed,
    #[error("card_id: no card with this id")]
    SourceCardNotFound,
    /// The cardholder was deleted, blacklisted or unverified before the
    /// card could be stored.
    #[error("cardholder_id: the cardholder is no longer active")]
    CardholderGone,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    pub id: TransferId,
    pub account_id: AccountId,
    pub mode: Mode,
    pub card_id: CardId,
    pub cardholder_id: CardholderId,
    pub kind: TransferKind,
    /// The card's currency, which the transfer moves.
    pub currency: Currency,
    pub amount: Amount,
    pub transaction_reference: String,
    pub state: TransferState,
    pub created_at: Timestamp,
}

/// A funding or unloading as requested: the card's cardholder is read
/// under the card's lock, with no read before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTransfer {
    pub id: TransferId,
    pub account_id: AccountId,
    pub mode: Mode,
    pub card_id: CardId,
    pub kind: TransferKind,
    /// The path's currency: the card must be in it.
    pub currency: Currency,
    pub amount: Amount,
    pub transaction_reference: String,
    pub created_at: Timestamp,
    /// How far ahead of the real one the sandbox clock that stamped
    /// `created_at` ran, for the store to check: if the account's clock
    /// has been advanced since, it refuses the transfer with
    /// [`ReserveError::ClockMoved`]. `None`: not checked (live mode, or a
    /// request stamped again after being sent back).
    pub clock_ahead_secs: Option<i64>,
}

/// Why a fund or unload request was refused; nothing was reserved.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReserveError {
    #[error("card_id: no card with this id")]
    CardNotFound,
    #[error("transaction_reference: this reference was already used")]
    ReferenceUsed,
    #[error("this card was {verb} less than 5 minutes ago; retry in {1} seconds", verb = if *.0 == TransferKind::Fund { "funded" } else { "unloaded" })]
    TooSoon(TransferKind, u64),
    #[error(
        "amount: the card balance would exceed the most a card may hold (5,000 USD; 10,000,000 NGN on a Naira card)"
    )]
    OverMaxBalance,
    #[error("the issuing wallet balance is too low for this amount")]
    WalletTooLow,
    #[error("the card's available balance is too low for this amount")]
    CardTooLow,
    /// The sandbox clock was advanced after the request was stamped:
    /// stamp it again and retry.
    #[error("the sandbox clock was advanced while this request was recorded; retry it")]
    ClockMoved,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One settlement of a batch given to [`CardStore::settle`].
#[derive(Debug, Clone)]
pub struct SettlementItem {
    /// The transfer as read before the network moved it (its kind, card
    /// and amount never change; its state is checked when settling).
    pub transfer: Transfer,
    pub settlement: Settlement,
    /// The event that reports it, and the event's delivery.
    pub event: NewEvent,
    pub delivery: NewJob,
    pub now: Timestamp,
}

/// What became of one settlement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    Done,
    /// Someone settled it before (a retried job): nothing changed.
    AlreadySettled,
    /// Completing was refused (the card is gone, or would hold over 5,000
    /// USD): nothing changed; reverse it instead.
    Refused,
    /// The database failed this one (why, for its job to retry on):
    /// nothing of it changed, and the rest of its batch stands.
    Failed(String),
}

/// What the time rules read of a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleState {
    pub account_id: AccountId,
    pub mode: Mode,
    pub cardholder_id: CardholderId,
    pub currency: Currency,
    pub created_at: Timestamp,
    /// When the fee anniversaries count from: the card's creation, or for
    /// a migrated card that of the card it replaced.
    pub fee_anchor_at: Timestamp,
    /// The last month (YYYYMM) whose fee was handled, if any.
    pub fee_month: Option<i32>,
    /// The last approved debit, if any.
    pub last_activity_at: Option<Timestamp>,
    pub fee_hold: Amount,
    /// Why the card was deleted, if it was.
    pub deleted: Option<DeletionReason>,
}

/// A monthly maintenance fee to charge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeeCharge {
    /// The issuer transaction reference of the debit that records it.
    pub id: String,
    pub card_id: CardId,
    /// The month charged (YYYYMM): each is handled once per card.
    pub month: i32,
    /// The client reference of the debit that records it; the service's
    /// own, never taken from the clients' namespace.
    pub reference: String,
    pub fee: Amount,
    pub now: Timestamp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeeOutcome {
    Charged,
    /// The month was handled before (a retried job): only the next
    /// charge is stored (once: it has a fixed id).
    AlreadyCharged,
    /// The card holds less than the fee: not charged, next month planned.
    TooLow,
    CardDeleted,
}

/// A card-details token as stored: only its hash is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetailsToken {
    pub account_id: AccountId,
    pub mode: Mode,
    pub card_id: CardId,
    pub expires_at: Timestamp,
    /// Redeemed already (a new token is stored unused).
    pub used: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinKind {
    Card,
    ThreeDSecure,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait CardStore: Send + Sync {
    /// Stores the card, opens its ledger account and moves its funding onto
    /// it (deleting the source card of a migration), with the creation
    /// event, in one transaction.
    /// `jobs`: the event's delivery and the card's time rules.
    async fn create(
        &self,
        card: NewCard,
        event: NewEvent,
        jobs: Vec<NewJob>,
        now: Timestamp,
    ) -> Result<(), CreateCardError>;

    /// What the time rules read of a card, deleted or not.
    async fn rule_state(&self, id: &CardId) -> Result<Option<RuleState>, StoreError>;

    /// Charges the monthly maintenance fee (the fee hold) from the card to
    /// the fee income account for `charge.month`, once per month (the card
    /// keeps the last month handled), recorded as a debit under
    /// `charge.reference`, with `event` and `jobs` (its delivery and the
    /// next charge). A deleted card is not charged and nothing is stored; a
    /// card holding less than the fee, or a month handled before, is not
    /// charged and only the next charge (the last of `jobs`) is stored.
    async fn charge_fee(&self, charge: FeeCharge, event: NewEvent, jobs: Vec<NewJob>)
    -> Result<FeeOutcome, StoreError>;

    /// A card of the account and mode that is not deleted.
    async fn get(&self, account: &AccountId, mode: Mode, id: &CardId) -> Result<Option<CardRecord>, StoreError>;

    /// The cardholder's cards, newest first.
    async fn for_cardholder(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
    ) -> Result<Vec<CardRecord>, StoreError>;

    /// A page of the account's cards, newest first, and the total.
    async fn list(&self, account: &AccountId, mode: Mode, page: Page) -> Result<(Vec<CardRecord>, u64), StoreError>;

    /// Freezes (`false`) or unfreezes (`true`); `false` when no such card.
    async fn set_active(&self, account: &AccountId, mode: Mode, id: &CardId, active: bool) -> Result<bool, StoreError>;

    /// The processor's id of each of these cards a processor keeps (a
    /// deleted card's too).
    async fn processor_cards(&self, ids: &[CardId]) -> Result<Vec<(CardId, String)>, StoreError>;

    /// The card's sealed PIN (`PinKind::Card`), if the card is the
    /// account's and mode's and not deleted.
    async fn sealed_pin(&self, account: &AccountId, mode: Mode, id: &CardId) -> Result<Option<Vec<u8>>, StoreError>;

    /// Whether `reference` is taken in the account's and mode's clients'
    /// namespace (fundings, unloadings, debits, card creations).
    async fn reference_taken(&self, account: &AccountId, mode: Mode, reference: &str) -> Result<bool, StoreError>;

    /// Every card of `mode` a processor keeps: its id, the processor's,
    /// and its status here (terminated once deleted).
    async fn kept_cards(&self, mode: Mode) -> Result<Vec<(CardId, String, NetworkCardState)>, StoreError>;

    /// The card of `mode` a processor knows as `processor_card`.
    async fn by_processor_card(&self, mode: Mode, processor_card: &str) -> Result<Option<CardId>, StoreError>;

    /// Replaces a sealed PIN; `false` when no such card.
    async fn set_pin(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardId,
        kind: PinKind,
        sealed: Vec<u8>,
    ) -> Result<bool, StoreError>;

    /// Deletes the card and returns its positive balance to the issuing
    /// wallet, with `notice` (an event and its delivery) when given, in one
    /// transaction. `None` when no such card; else what went back.
    async fn delete(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardId,
        reason: DeletionReason,
        now: Timestamp,
        notice: Option<(NewEvent, NewJob)>,
    ) -> Result<Option<Amount>, StoreError>;

    /// Validates and reserves a fund or unload: the reference is taken, the
    /// card's 5-minute window is taken (no card of the account, mode and
    /// currency: `CardNotFound`), and the money moves into transit
    /// (funding: the wallet must cover it and the card stay within 5,000
    /// USD; unloading: the card's available balance must cover it), with
    /// the job that settles it, in one transaction.
    async fn reserve(&self, transfer: NewTransfer, settle: NewJob) -> Result<(), ReserveError>;

    /// The transfers among `ids` that exist, in no given order.
    async fn transfers(&self, ids: &[TransferId]) -> Result<Vec<Transfer>, StoreError>;

    /// The card's funding or unloading of `reference`, if there is one.
    async fn transfer_of(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        reference: &str,
    ) -> Result<Option<Transfer>, StoreError>;

    /// Settles pending transfers and stores the event that reports each,
    /// all in one transaction (one commit for the whole batch); each is
    /// applied or refused on its own. If the database fails the batch,
    /// each is recorded alone, and one it fails again is `Failed`. The
    /// outcomes follow the batch's order.
    async fn settle(&self, batch: Vec<SettlementItem>) -> Vec<Settled>;

    /// Stores a new token, and removes the account's and mode's tokens
    /// that can no longer be redeemed at `now` (expired or used).
    async fn insert_details_token(&self, hash: String, token: DetailsToken, now: Timestamp) -> Result<(), StoreError>;

    async fn find_details_token(&self, hash: &str) -> Result<Option<DetailsToken>, StoreError>;

    /// Marks the token used if unused and unexpired at `now`; `false` otherwise.
    async fn consume_details_token(&self, hash: &str, now: Timestamp) -> Result<bool, StoreError>;
}

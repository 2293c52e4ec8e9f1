use crate::StoreError;
use crate::events::NewEvent;
use crate::jobs::NewJob;
use domain::cards::authorization::Decision;
use domain::cards::hold::{HoldMovement, HoldRefusal, HoldStep, TransactionKind, TransactionStatus};
use domain::cards::reversal::{CreditTo, ReversalKind};
use domain::cards::spending_controls::{Channel, Country};
use domain::cards::three_ds::ChallengeState;
use domain::fx::FxRates;
use domain::ids::{AccountId, CardId, CardholderId};
use domain::{Amount, Currency, Mode, Timestamp};

/// A debit the network asks to post on a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebitAttempt {
    /// The issuer transaction reference (`ctx_...`).
    pub id: String,
    pub account_id: AccountId,
    pub mode: Mode,
    pub card_id: CardId,
    pub client_reference: String,
    /// The currency the card must be in (the path's: a USD card's id on a
    /// Naira path is no card); `None`: any (the processor's calls).
    pub currency: Option<Currency>,
    /// In the card's currency.
    pub amount: Amount,
    /// The rates in force, to count a Naira debit against its monthly
    /// limit in USD.
    pub rates: FxRates,
    /// The raw merchant descriptor.
    pub description: String,
    pub merchant_category_code: Option<String>,
    /// The enriched merchant name, to tell recurring charges by.
    pub merchant_name: String,
    /// The catalogue's group of `merchant_category_code`, for the spending
    /// controls; `None`: no code, or one the catalogue does not know.
    pub merchant_group: Option<String>,
    /// How the card was used and where the merchant is, when the network
    /// said, for the spending controls.
    pub channel: Option<Channel>,
    pub merchant_country: Option<Country>,
    /// The enriched_data object, as JSON text.
    pub enriched_data: String,
    /// A network-forced post: may take the balance below zero.
    pub forced: bool,
    /// `client_reference` was taken already (by the 3-D Secure challenge
    /// this debit completes): the debit does not take it again.
    pub reference_held: bool,
    /// A debit, an authorization (a hold), or an increment of the pending
    /// authorization `authorization_id` on the same card.
    pub kind: TransactionKind,
    pub authorization_id: Option<String>,
    /// An authorization's expiry, stored with its approval.
    pub expiry: Option<NewJob>,
    pub now: Timestamp,
    /// How far ahead of the real one the sandbox clock that stamped `now`
    /// ran, for the store to check: if the account's clock has been
    /// advanced since, it refuses the debit with
    /// [`DebitError::ClockMoved`]. `None`: not checked (live mode, or a
    /// debit stamped again after being sent back).
    pub clock_ahead_secs: Option<i64>,
    /// A processor's real-time call's: withdrawn unrecorded
    /// ([`crate::StoreError::deadline_missed`]) if it cannot be recorded
    /// by then.
    pub deadline: Option<std::time::Instant>,
}

/// What became of a debit; declines are recorded too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebitOutcome {
    pub decision: Decision,
    /// The card was deleted by this decline (the 15th consecutive
    /// insufficient balance, or a negative card debited again).
    pub card_deleted: bool,
    pub cardholder_id: CardholderId,
    /// The card's currency, which the debit was in.
    pub currency: Currency,
    /// An approved hold's authorization: what it holds now (its
    /// increments included).
    pub held: Option<Amount>,
}

/// Makes the events a debit outcome is reported by; the use case builds
/// it, the store calls it inside the debit's transaction.
pub type Notices = Box<dyn Fn(&DebitOutcome) -> Vec<(NewEvent, NewJob)> + Send + Sync>;

#[derive(Debug, Clone, thiserror::Error)]
pub enum DebitError {
    #[error("card_id: no card with this id")]
    CardNotFound,
    #[error("transaction_reference: this reference was already used")]
    ReferenceUsed,
    /// An increment of an authorization that is not (or no longer) pending.
    #[error("authorization_id: no pending authorization with this id")]
    NoPendingAuthorization,
    /// The sandbox clock was advanced after the debit was stamped: stamp
    /// it again and retry.
    #[error("the sandbox clock was advanced while this debit was recorded; retry it")]
    ClockMoved,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A card transaction: a debit, a hold, or a capture, approved or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardTransaction {
    pub id: String,
    pub kind: TransactionKind,
    pub status: TransactionStatus,
    /// An increment's or a capture's authorization.
    pub authorization_id: Option<String>,
    pub account_id: AccountId,
    pub mode: Mode,
    pub card_id: CardId,
    pub cardholder_id: CardholderId,
    pub client_reference: String,
    pub amount: Amount,
    pub currency: Currency,
    pub description: String,
    pub merchant_category_code: Option<String>,
    /// The enriched_data object, as JSON text.
    pub enriched_data: String,
    pub created_at: Timestamp,
    /// The decline's code; `None`: approved.
    pub decline_code: Option<String>,
}

/// Which of an account's transactions a list holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransactionFilter {
    pub card: Option<CardId>,
    pub cardholder: Option<CardholderId>,
    pub status: Option<TransactionStatus>,
    pub kind: Option<TransactionKind>,
    /// Made within these times, both included.
    pub between: Option<(Timestamp, Timestamp)>,
}

/// How a transaction is looked up by reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    Client(String),
    Issuer(String),
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait CardTransactionStore: Send + Sync {
    /// Decides the debit with the authorization engine against the card
    /// as it is under lock, and records it: an approval moves the money
    /// (card → card spend), a decline is counted; the notices for the
    /// outcome are stored in the same transaction.
    async fn debit(&self, attempt: DebitAttempt, notices: Notices) -> Result<DebitOutcome, DebitError>;

    /// Whether `merchant_name` charged the card in each of two periods
    /// (each from its start, inclusive, to its end, exclusive), asked at
    /// once.
    async fn charged_in_each(
        &self,
        card: &CardId,
        merchant_name: &str,
        periods: [(Timestamp, Timestamp); 2],
    ) -> Result<bool, StoreError>;

    /// A page of the card's approved debits, newest first, optionally
    /// between two times (inclusive), and how many there are in all.
    async fn history(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        page: domain::paging::Page,
        between: Option<(Timestamp, Timestamp)>,
    ) -> Result<(Vec<CardTransaction>, u64), StoreError>;

    /// The account's transactions of `mode` that `filter` holds, newest
    /// first (by time, then by id), at most `limit`, after the one whose
    /// issuer reference is `after`; `None`: the account and mode have no
    /// transaction `after`.
    async fn list<'a>(
        &self,
        account: &AccountId,
        mode: Mode,
        filter: &TransactionFilter,
        after: Option<&'a str>,
        limit: u32,
    ) -> Result<Option<Vec<CardTransaction>>, StoreError>;

    /// The account's transaction of `mode` of any kind and status with
    /// this issuer reference, or the debit or authorization (never its
    /// capture, which shares it) with this client reference.
    async fn find(
        &self,
        account: &AccountId,
        mode: Mode,
        reference: &Reference,
    ) -> Result<Option<CardTransaction>, StoreError>;

    async fn transaction(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        reference: Reference,
    ) -> Result<Option<CardTransaction>, StoreError>;

    /// Gives back (part of) the card's approved debit, once by the
    /// processor's reference: under the card's lock,
    /// [`domain::cards::reversal::credit_back`] decides how much (never
    /// more than the debit has left) and where (the card, or the issuing
    /// wallet when the card is deleted or full); the money moves from the
    /// card's spend account, the record and the notices are stored, in
    /// one transaction.
    async fn reverse(&self, reversal: NewReversal, notices: ReversalNotices) -> Result<ReversalOutcome, StoreError>;

    /// Takes one step of the card's pending authorization, once: under
    /// the card's lock, [`domain::cards::hold::settle`] decides what moves
    /// (held → spend, card → spend, held → card or issuing wallet); the
    /// capture's record, the authorization's new state and the notices are
    /// stored in the same transaction.
    async fn settle_hold(&self, request: HoldRequest, notices: HoldNotices) -> Result<HoldOutcome, StoreError>;

    /// Whether anything of the debit `transaction` (its issuer reference)
    /// was given back.
    async fn given_back(&self, transaction: &str) -> Result<bool, StoreError>;

    /// Stores a 3-D Secure challenge with the job that expires it and the
    /// event that tells its OTP, in one transaction; `ReferenceUsed` when
    /// its reference was taken (by a challenge or any money movement).
    async fn open_challenge(
        &self,
        challenge: Challenge,
        expiry: NewJob,
        notice: (NewEvent, NewJob),
    ) -> Result<(), DebitError>;

    /// The newest pending, unexpired challenge of the card for exactly
    /// `amount`.
    async fn challenge_for_amount(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        amount: Amount,
        now: Timestamp,
    ) -> Result<Option<Challenge>, StoreError>;

    /// Keeps the hash of the OTP just read for a pending challenge.
    async fn set_challenge_otp(&self, id: &str, otp_hash: &str) -> Result<(), StoreError>;

    /// The card's challenge of `reference`, in any state.
    async fn challenge(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        reference: &str,
    ) -> Result<Option<Challenge>, StoreError>;

    /// Moves a pending challenge seen with `failed_attempts` wrong OTPs to
    /// `state` with `failed` wrong OTPs; false when another attempt moved
    /// it first (the guard that makes attempts race-free).
    async fn decide_challenge(
        &self,
        id: &str,
        failed_attempts: u32,
        next: (ChallengeState, u32),
    ) -> Result<bool, StoreError>;
}

/// A card processor gives back (part of) a debit it had us approve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReversal {
    /// The record's id (`crv_...`).
    pub id: String,
    pub account_id: AccountId,
    pub mode: Mode,
    pub card_id: CardId,
    /// The debit's client reference.
    pub debit_reference: String,
    /// The processor's id of this refund or reversal: applied once by it.
    pub reference: String,
    pub kind: ReversalKind,
    /// What the processor gives back, in the card's currency.
    pub asked: Amount,
    /// The processor voids the authorization (it declined it in the end):
    /// when no debit of it is recorded yet, its reference is taken, so
    /// none ever will be ([`ReversalOutcome::Voided`]; the use case
    /// declines a 3-D Secure challenge still waiting for its OTP first).
    pub void: bool,
    pub now: Timestamp,
}

/// A reversal credited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reversed {
    pub amount: Amount,
    pub to: CreditTo,
    /// The debit it gives back (part of).
    pub debit: CardTransaction,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReversalOutcome {
    Credited(Box<Reversed>),
    /// The processor's reference was applied already: nothing moved.
    AlreadyApplied,
    /// The debit was given back in full already: nothing moved.
    NothingLeft,
    /// The card has no approved debit of that reference.
    NoSuchDebit,
    /// A void came before its debit: the reference is taken (or the
    /// challenge holding it declined), and the debit, when it comes, is
    /// refused. Nothing moved.
    Voided,
}

/// Makes the events a credited reversal is reported by; called inside
/// its transaction.
pub type ReversalNotices = Box<dyn Fn(&Reversed) -> Vec<(NewEvent, NewJob)> + Send + Sync>;

/// A step of an account's authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldRequest {
    pub account_id: AccountId,
    pub mode: Mode,
    /// The authorization's issuer reference.
    pub authorization_id: String,
    pub step: HoldStep,
    /// The issuer reference a capture is recorded under.
    pub capture_id: String,
    /// The record id (`crv_...`) and the network's reference of a
    /// reversal: applied once by the reference.
    pub reversal: (String, String),
    pub now: Timestamp,
}

/// A step taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldSettled {
    /// The authorization, in its state after the step.
    pub authorization: CardTransaction,
    pub movement: HoldMovement,
    /// What stays held.
    pub held: Amount,
    /// A capture's record.
    pub capture: Option<CardTransaction>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldOutcome {
    Settled(Box<HoldSettled>),
    Refused(HoldRefusal),
    /// No authorization of the account and mode has this id.
    NoSuchAuthorization,
    /// The reversal's reference was applied already: nothing moved.
    AlreadyApplied,
}

/// Makes the events a step is reported by; called inside its transaction.
pub type HoldNotices = Box<dyn Fn(&HoldSettled) -> Vec<(NewEvent, NewJob)> + Send + Sync>;

/// A Naira card debit waiting for its 3-D Secure OTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub id: String,
    pub account_id: AccountId,
    pub mode: Mode,
    pub card_id: CardId,
    pub amount: Amount,
    pub reference: String,
    pub descriptor: String,
    pub merchant_category_code: Option<String>,
    pub merchant_country: Option<Country>,
    pub failed_attempts: u32,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    pub state: ChallengeState,
    /// The hash of the OTP last read for it, if one was.
    pub otp_hash: Option<String>,
}

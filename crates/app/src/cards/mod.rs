//! USD cards: issuing (`create_card`, `activate_physical_card`,
//! `migrate_card`), reading (`get_card_details`, `get_card_balance`,
//! lists, card-details tokens), managing (freeze, PINs, delete) and moving
//! money (`fund_card_asynchronously`, `unload_card_asynchronously` and the
//! job that settles them).

mod create_card;
mod debit;
mod delete_card;
mod details;
mod gateway;
mod give_back;
mod holds;
mod lists;
mod manage;
mod naira;
mod processor;
mod processor_cards;
mod processor_reversal;
mod reconcile_transactions;
mod rules;
mod settle;
mod settled_transfers;
mod spending_controls;
mod three_ds;
mod transactions;
mod transfers;

pub use create_card::{ActivationRequest, CardRequest, MigrationRequest};
pub use debit::Completion;
pub use debit::MockDebit;
pub(crate) use details::is_card_token;
pub use details::{Details, DetailsView, RevealedDetails, SealedDetails, ShownCard, ShownDetails};
pub use gateway::GatewayError;
pub use holds::{HoldStepRequest, SandboxRefund, StepKind};
pub use processor::{AuthorizationAnswer, AuthorizationRequest, Verdict};
pub use processor_cards::{CardDifference, Reconciliation};
pub use processor_reversal::{ReversalAnswer, ReversalRequest};
pub use reconcile_transactions::Reconciled;
pub use spending_controls::{CardControlsView, ControlsInput};
pub use three_ds::ChallengeAnswer;
pub use transactions::TransactionsQuery;
pub use transfers::TransferRequest;

use crate::{App, Caller, RequestError};
use domain::cardholders::CardholderStatus;
use domain::cards::authorization::DeclineReason;
use domain::cards::hold::HoldRefusal;
use domain::cards::pin::Pin;
use domain::cards::transfer::TransferKind;
use domain::ids::{AccountId, CardId, CardholderId};
use domain::{Currency, DomainError, ErrorKind, InvalidInput, Mode};
use ports::StoreError;
use ports::card_network::NetworkUnavailable;
use ports::card_transactions::DebitError;
use ports::cardholders::CardholderRecord;
use ports::cards::{CardRecord, CreateCardError, ReserveError};
use ports::rate_limits::Permit;

#[derive(Debug, thiserror::Error)]
pub enum CardError {
    #[error("cardholder_id: no cardholder with this id")]
    CardholderNotFound,
    #[error("card_id: no card with this id")]
    CardNotFound,
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    /// The brand, type or currency asked for is not issued.
    #[error("{0}")]
    TypeUnavailable(InvalidInput),
    #[error("the cardholder is deactivated: no card can be issued to them")]
    CardholderDeactivated,
    /// The cardholder is pending, in manual review, or failed; the message
    /// says which.
    #[error("{}", not_verified(*.0))]
    CardholderNotVerified(CardholderStatus),
    #[error("this call is limited to once every {window} seconds per {per}; retry in {retry_after_secs} seconds")]
    RateLimited {
        window: i64,
        /// What the limit counts calls of: a card, or an account and mode.
        per: &'static str,
        retry_after_secs: u64,
    },
    #[error("transaction_reference: no transaction of this card with this reference")]
    TransactionNotFound,
    #[error("authorization_id: no authorization of this account and mode has this id (for an increment: none pending)")]
    AuthorizationNotFound,
    #[error("amount: the transaction was given back in full already")]
    NothingLeft,
    #[error("transaction_id: no capture or debit of this account and mode has this id")]
    NoSuchSpend,
    /// A reversal's or refund's reference, applied before (as `.0`).
    #[error("{0}: this reference was applied already")]
    ReferenceApplied(&'static str),
    /// A step the authorization's state or amounts refuse.
    #[error("{}", hold_refusal(*.0))]
    Hold(HoldRefusal),
    #[error("token: the token is unknown, expired or already used")]
    TokenInvalid,
    #[error("no pending OTP for this card and amount")]
    NoPendingOtp,
    #[error("transaction_reference: no 3-D Secure challenge awaits an OTP under this reference")]
    ChallengeNotFound,
    /// A wrong OTP with attempts left, as the processor path's `wrong_otp`.
    #[error("otp: is wrong; {0} {attempts} left", attempts = if *.0 == 1 { "attempt" } else { "attempts" })]
    WrongOtp(u32),
    /// The debit was declined (and recorded).
    #[error("{}", .0.text())]
    Declined(DeclineReason),
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error(transparent)]
    Create(CreateCardError),
    #[error(transparent)]
    Reserve(ReserveError),
    #[error(transparent)]
    Network(#[from] NetworkUnavailable),
    /// A synchronous funding or unloading failed at settlement; its money
    /// is back where it came from.
    #[error("the movement failed at settlement: its money is back where it came from (its webhook says why)")]
    TransferFailed,
    /// A synchronous funding or unloading did not settle in time; it
    /// completes once, and the same request waits for it again.
    #[error(
        "operation failed, client should retry: the movement is accepted and completes once; send the same request again to wait for its outcome"
    )]
    SettlementPending,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DebitError> for CardError {
    fn from(e: DebitError) -> Self {
        match e {
            DebitError::CardNotFound => CardError::CardNotFound,
            DebitError::ReferenceUsed => CardError::Reserve(ReserveError::ReferenceUsed),
            DebitError::ClockMoved => CardError::Reserve(ReserveError::ClockMoved),
            DebitError::NoPendingAuthorization => CardError::AuthorizationNotFound,
            DebitError::Store(e) => CardError::Store(e),
        }
    }
}

impl From<CreateCardError> for CardError {
    fn from(e: CreateCardError) -> Self {
        match e {
            CreateCardError::Store(e) => CardError::Store(e),
            CreateCardError::SourceCardNotFound => CardError::CardNotFound,
            CreateCardError::CardholderGone => CardError::CardholderNotFound,
            CreateCardError::WalletTooLow | CreateCardError::TokenNumberUsed | CreateCardError::ReferenceUsed => {
                CardError::Create(e)
            }
        }
    }
}

/// Why a step of an authorization was refused, naming what to change.
fn hold_refusal(refusal: HoldRefusal) -> String {
    match refusal {
        HoldRefusal::NotPending(state) => {
            format!(
                "authorization_id: the authorization is {}: only a pending one takes a step",
                state.as_str()
            )
        }
        HoldRefusal::AboveTolerance(most) => {
            let share = domain::cards::hold::OVER_CAPTURE_BPS / 100;
            format!("amount: a capture may exceed the hold by at most {share}%, so at most {most} here")
        }
        HoldRefusal::InsufficientBalance => {
            "amount: the capture's excess over the hold is more than the card can spend".to_string()
        }
    }
}

/// Why a cardholder who is not verified gets no card, in words that say
/// whether waiting helps.
fn not_verified(status: CardholderStatus) -> &'static str {
    match status {
        CardholderStatus::Failed => {
            "the cardholder's verification failed or was rejected: no card can be issued to them"
        }
        CardholderStatus::ManualReview => {
            "the cardholder's identity is in manual review: no card can be issued to them until it is approved"
        }
        CardholderStatus::Pending | CardholderStatus::Verified => {
            "the cardholder's identity is not verified yet: no card can be issued to them"
        }
    }
}

impl From<ReserveError> for CardError {
    fn from(e: ReserveError) -> Self {
        match e {
            ReserveError::CardNotFound => CardError::CardNotFound,
            ReserveError::Store(e) => CardError::Store(e),
            ReserveError::ReferenceUsed
            | ReserveError::TooSoon(..)
            | ReserveError::OverMaxBalance
            | ReserveError::WalletTooLow
            | ReserveError::CardTooLow
            | ReserveError::ClockMoved => CardError::Reserve(e),
        }
    }
}

impl DomainError for CardError {
    fn kind(&self) -> ErrorKind {
        match self {
            CardError::Create(CreateCardError::WalletTooLow)
            | CardError::Reserve(ReserveError::WalletTooLow | ReserveError::CardTooLow)
            | CardError::Declined(DeclineReason::InsufficientBalance)
            | CardError::Hold(HoldRefusal::InsufficientBalance) => ErrorKind::InsufficientFunds,
            CardError::CardholderDeactivated | CardError::CardholderNotVerified(_) => ErrorKind::Unauthorized,
            CardError::Request(e) => e.kind(),
            CardError::RateLimited { retry_after_secs, .. }
            | CardError::Reserve(ReserveError::TooSoon(_, retry_after_secs)) => ErrorKind::RateLimited {
                retry_after_secs: *retry_after_secs,
            },
            CardError::Store(e)
            | CardError::Create(CreateCardError::Store(e))
            | CardError::Reserve(ReserveError::Store(e)) => e.kind(),
            // Never answered: a money request's last stamping is not checked.
            CardError::Reserve(ReserveError::ClockMoved) => ErrorKind::Unavailable,
            CardError::Network(_) | CardError::SettlementPending => ErrorKind::RetryLater,
            CardError::CardholderNotFound
            | CardError::CardNotFound
            | CardError::Invalid(_)
            | CardError::TypeUnavailable(_)
            | CardError::TransactionNotFound
            | CardError::TokenInvalid
            | CardError::AuthorizationNotFound
            | CardError::NothingLeft
            | CardError::NoSuchSpend
            | CardError::ReferenceApplied(_)
            | CardError::Hold(HoldRefusal::NotPending(_) | HoldRefusal::AboveTolerance(_))
            | CardError::NoPendingOtp
            | CardError::ChallengeNotFound
            | CardError::WrongOtp(_)
            | CardError::Declined(_)
            | CardError::TransferFailed
            | CardError::Create(
                CreateCardError::TokenNumberUsed
                | CreateCardError::ReferenceUsed
                | CreateCardError::SourceCardNotFound
                | CreateCardError::CardholderGone,
            )
            | CardError::Reserve(
                ReserveError::CardNotFound | ReserveError::ReferenceUsed | ReserveError::OverMaxBalance,
            ) => ErrorKind::InvalidRequest,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            CardError::CardholderNotFound | CardError::Create(CreateCardError::CardholderGone) => {
                "cardholder_not_found"
            }
            CardError::CardNotFound
            | CardError::Create(CreateCardError::SourceCardNotFound)
            | CardError::Reserve(ReserveError::CardNotFound) => "card_not_found",
            CardError::Invalid(e) => e.code(),
            CardError::TypeUnavailable(_) => "card_type_unavailable",
            CardError::CardholderDeactivated => "cardholder_deactivated",
            CardError::CardholderNotVerified(_) => "cardholder_not_verified",
            CardError::RateLimited { .. } => "rate_limited",
            CardError::TokenInvalid => "invalid_token",
            CardError::AuthorizationNotFound => "authorization_not_found",
            CardError::NothingLeft => "nothing_left_to_refund",
            CardError::NoSuchSpend => "transaction_not_found",
            CardError::ReferenceApplied(_) => "transaction_reference_used",
            CardError::Hold(HoldRefusal::NotPending(_)) => "authorization_not_pending",
            CardError::Hold(HoldRefusal::AboveTolerance(_)) => "capture_above_tolerance",
            CardError::Hold(HoldRefusal::InsufficientBalance) => "insufficient_card_balance",
            CardError::NoPendingOtp => "no_pending_otp",
            CardError::ChallengeNotFound => "challenge_not_found",
            CardError::WrongOtp(_) => "wrong_otp",
            CardError::TransactionNotFound => "transaction_not_found",
            CardError::Declined(reason) => reason.code(),
            CardError::Request(e) => e.code(),
            CardError::Network(_) => "processor_unavailable",
            CardError::TransferFailed => "transfer_failed",
            CardError::SettlementPending => "settlement_pending",
            CardError::Create(CreateCardError::WalletTooLow) | CardError::Reserve(ReserveError::WalletTooLow) => {
                "insufficient_wallet_balance"
            }
            CardError::Create(CreateCardError::TokenNumberUsed) => "card_already_activated",
            CardError::Reserve(ReserveError::ReferenceUsed) | CardError::Create(CreateCardError::ReferenceUsed) => {
                "transaction_reference_used"
            }
            CardError::Reserve(ReserveError::TooSoon(TransferKind::Fund, _)) => "card_funded_recently",
            CardError::Reserve(ReserveError::TooSoon(TransferKind::Unload, _)) => "card_unloaded_recently",
            CardError::Reserve(ReserveError::OverMaxBalance) => "card_balance_limit",
            CardError::Reserve(ReserveError::CardTooLow) => "insufficient_card_balance",
            CardError::Reserve(ReserveError::ClockMoved) => "storage_unavailable",
            CardError::Create(CreateCardError::Store(e))
            | CardError::Reserve(ReserveError::Store(e))
            | CardError::Store(e) => e.code(),
        }
    }
}

impl App {
    /// A card of the caller's account and mode, without its details, or
    /// 400 (the dashboard's card page reads it too).
    pub async fn card(&self, caller: &Caller, id: &CardId) -> Result<CardRecord, CardError> {
        self.ports
            .cards
            .get(&caller.account_id, caller.mode, id)
            .await?
            .ok_or(CardError::CardNotFound)
    }

    /// The caller's card `id` in `currency`: a card of the other currency
    /// is no card of this kind (400, as an unknown id).
    pub(crate) async fn card_in(
        &self,
        caller: &Caller,
        id: &CardId,
        currency: Currency,
    ) -> Result<CardRecord, CardError> {
        let card = self.card(caller, id).await?;
        match card.currency == currency {
            true => Ok(card),
            false => Err(CardError::CardNotFound),
        }
    }

    /// A cardholder who may be issued cards: exists (400), is not
    /// blacklisted (401, deactivated) and is verified (401).
    pub(crate) async fn card_owner(&self, caller: &Caller, id: &CardholderId) -> Result<CardholderRecord, CardError> {
        let owner = self
            .ports
            .cardholders
            .get(&caller.account_id, caller.mode, id)
            .await?
            .ok_or(CardError::CardholderNotFound)?;
        if owner.blacklisted {
            return Err(CardError::CardholderDeactivated);
        }
        if owner.status != CardholderStatus::Verified {
            return Err(CardError::CardholderNotVerified(owner.status));
        }
        Ok(owner)
    }

    /// Grants one `action` on `subject` (a card; or the account, for
    /// lists of cards in clear) of `account` and `mode` per `window`
    /// seconds, or 420.
    pub(crate) async fn rate_limit(
        &self,
        (account, mode): (&AccountId, Mode),
        action: &str,
        subject: &str,
        window: i64,
    ) -> Result<(), CardError> {
        let now = self.now_for(account, mode).await?;
        match self
            .ports
            .rate_limits
            .acquire(account, mode, action, subject, window, now)
            .await?
        {
            Permit::Granted => Ok(()),
            Permit::Denied { retry_after_secs } => Err(CardError::RateLimited {
                window,
                per: if subject == account.as_str() {
                    "account and mode"
                } else {
                    "card"
                },
                retry_after_secs,
            }),
        }
    }

    /// Decrypts a PIN field with the caller's secret key and checks it.
    pub(crate) fn decrypt_pin(&self, caller: &Caller, field: &str, ciphertext: &str) -> Result<Pin, CardError> {
        let plain = self
            .ports
            .field_cipher
            .decrypt(ciphertext, &caller.secret_key)
            .map_err(|_| {
                InvalidInput::new(
                    field,
                    "must be a 4-digit PIN encrypted with AES Everywhere under your secret key",
                )
            })?;
        Ok(Pin::parse(field, &plain)?)
    }
}

#[cfg(test)]
mod tests;

use crate::cardholders::CardholderRecord;
use domain::cards::pin::Pin;
use domain::cards::{CardBrand, CardType};
use domain::ids::CardId;
use domain::{Amount, Currency, Mode, Secret, Timestamp};

/// A card to issue: what it is, and for whom.
#[derive(Debug, Clone, Copy)]
pub struct CardToIssue<'a> {
    pub card_type: CardType,
    pub currency: Currency,
    pub now: Timestamp,
    pub cardholder: &'a CardholderRecord,
    /// The processor's customer for this cardholder
    /// ([`CardNetwork::create_customer`]).
    pub customer: Option<&'a str>,
    /// The creation's own key (its `transaction_reference`), attached to
    /// the card at a processor that keeps it: a card an earlier attempt
    /// made under it (its answer lost) is taken, not made again.
    pub key: Option<&'a str>,
}

/// What the network issued.
#[derive(Debug, Clone)]
pub enum IssuedCard {
    /// The simulator: the card's details, for the service to seal and keep.
    Kept(KeptDetails),
    /// A real processor keeps the number and CVV in its vault; the service
    /// keeps its reference, the last 4 digits and the expiry.
    AtProcessor(ProcessorCard),
}

/// A card's sensitive data, never printed.
#[derive(Debug, Clone)]
pub struct KeptDetails {
    pub pan: Secret<String>,
    pub cvv: Secret<String>,
    pub expiry_month: Secret<String>,
    pub expiry_year: Secret<String>,
}

/// A card a processor keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessorCard {
    /// The processor's id of the card.
    pub card: String,
    pub last_4: String,
    /// Two digits.
    pub expiry_month: String,
    /// Four digits.
    pub expiry_year: String,
}

/// A card's number and CVV, fetched from the processor's vault.
#[derive(Debug, Clone)]
pub struct VaultedDetails {
    pub pan: Secret<String>,
    pub cvv: Secret<String>,
}

/// A card's status at its processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkCardState {
    Active,
    Frozen,
    Terminated,
}

impl NetworkCardState {
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkCardState::Active => "active",
            NetworkCardState::Frozen => "frozen",
            NetworkCardState::Terminated => "terminated",
        }
    }
}

/// A PIN change: from `old` (`None`: the processor's default PIN) to
/// `new`.
#[derive(Clone, Copy)]
pub struct PinSwap<'a> {
    pub old: Option<&'a Pin>,
    pub new: &'a Pin,
}

/// What became of a PIN change at the processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinChange {
    Changed,
    /// The processor changes no PIN of this card (its brand): the PIN is
    /// the service's own.
    NotSupported,
}

/// The network refused a load or unload; the reason is safe to show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NetworkDecline(pub String);

/// A call to the processor did not complete: unreachable, timed out,
/// rate limited, failing, or refusing what was sent. Nothing it names is
/// secret; the request should be retried later.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the card processor: {0}")]
pub struct NetworkUnavailable(pub String);

/// An authorization as a processor's own books hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookedAuthorization {
    /// The processor's id: the reference of its debit here.
    pub id: String,
    /// The processor's id of the card.
    pub card: String,
    /// Whether it stands approved (not declined, nor reversed).
    pub approved: bool,
    /// What it approved, when it says.
    pub amount: Option<(Amount, Currency)>,
    pub created_at: Option<Timestamp>,
}

/// What a processor's transaction did to one of its authorizations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookedKind {
    /// Money taken: the authorization captured.
    Capture,
    /// Money given back: a refund or a network's reversal.
    Refund,
}

/// A transaction as a processor's own books hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookedTransaction {
    pub id: String,
    pub card: String,
    /// The authorization it captures or refunds, when it names one.
    pub authorization: Option<String>,
    pub kind: BookedKind,
    /// Positive, in minor units of `currency`.
    pub amount: Amount,
    pub currency: Currency,
    pub created_at: Option<Timestamp>,
}

/// A period of a processor's books.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Books {
    pub authorizations: Vec<BookedAuthorization>,
    pub transactions: Vec<BookedTransaction>,
}

/// The card processor: the network simulator by default in both modes,
/// or a real processor's connector. Each call names the mode, whose
/// connector answers it.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait CardNetwork: Send + Sync {
    /// Whether the mode's processor knows cardholders as customers of its
    /// own, made once per cardholder before the first card.
    fn keeps_customers(&self, mode: Mode) -> bool;

    /// Whether the mode's processor issues physical cards here.
    fn issues_physical(&self, mode: Mode) -> bool;

    /// The brand the mode's processor issues cards of `currency` as.
    fn brand(&self, mode: Mode, currency: Currency) -> CardBrand;

    /// Makes the cardholder a customer of the mode's processor: its id.
    async fn create_customer(&self, mode: Mode, cardholder: &CardholderRecord) -> Result<String, NetworkUnavailable>;

    /// Issues a card.
    async fn issue<'a>(&self, mode: Mode, card: CardToIssue<'a>) -> Result<IssuedCard, NetworkUnavailable>;

    /// Moves `amount` onto the card at the network.
    async fn load(&self, mode: Mode, card: &CardId, amount: Amount) -> Result<(), NetworkDecline>;

    /// Moves `amount` off the card at the network.
    async fn unload(&self, mode: Mode, card: &CardId, amount: Amount) -> Result<(), NetworkDecline>;

    /// Sets a processor-kept card's status (`card`: the processor's id).
    async fn set_state(&self, mode: Mode, card: &str, state: NetworkCardState) -> Result<(), NetworkUnavailable>;

    /// Changes a processor-kept card's PIN as `pins` says.
    async fn change_pin<'a>(&self, mode: Mode, card: &str, pins: PinSwap<'a>) -> Result<PinChange, NetworkUnavailable>;

    /// A processor-kept card's number and CVV, from the processor's vault.
    async fn reveal(&self, mode: Mode, card: &str) -> Result<VaultedDetails, NetworkUnavailable>;

    /// A processor-kept card's status at the processor; `None`: it does
    /// not know the card.
    async fn state(&self, mode: Mode, card: &str) -> Result<Option<NetworkCardState>, NetworkUnavailable>;

    /// The processor's authorizations and transactions made from `from`
    /// to `to`, every page of them; `None`: the mode's processor keeps no
    /// books of its own (the simulator's are this service's ledger).
    async fn books(&self, mode: Mode, from: Timestamp, to: Timestamp) -> Result<Option<Books>, NetworkUnavailable>;

    /// One authorization in the processor's books; `None`: it has none of
    /// that id.
    async fn booked(&self, mode: Mode, authorization: &str) -> Result<Option<BookedAuthorization>, NetworkUnavailable>;
}

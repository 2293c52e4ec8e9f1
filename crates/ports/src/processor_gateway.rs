use domain::cards::reversal::ReversalKind;
use domain::cards::spending_controls::{Channel, Country};
use domain::{Amount, Currency, DomainError, ErrorKind, InvalidInput, Mode};

/// A processor's real-time call through a gateway funding source, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GatewayCall {
    /// Approve or decline a card debit.
    Authorization(GatewayAuthorization),
    /// The card's spendable balance (`card`: the processor's id).
    Balance { card: String },
    /// The processor gives back (part of) an authorization it had us
    /// approve: a refund, or the authorization declined in the end.
    GiveBack(GatewayGiveBack),
    /// The processor reports the transaction its approval made (Sudo's
    /// `transaction.created`): no money moves, the approval took it; it
    /// is matched to the approval, and a difference is told.
    Captured(GatewayCapture),
    /// The processor terminated the card it knows as `card` (Sudo's
    /// `card.terminated`): it ends here too, once.
    Terminated { card: String },
    /// An authorization this service cannot take as sent (an amount out
    /// of bounds, an unknown currency, no card): declined for this reason
    /// code, in the processor's terms.
    Unusable(&'static str),
    /// Anything else the processor sends there: acknowledged, no effect.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayAuthorization {
    /// The processor's id of the authorization: its reference here.
    pub id: String,
    /// The processor's id of the card.
    pub card: String,
    /// What the card is asked for, fees included, in minor units of
    /// `currency`.
    pub amount: Amount,
    pub currency: Currency,
    pub merchant: String,
    pub merchant_category_code: Option<String>,
    /// How the card was used and where the merchant is, when Sudo said.
    pub channel: Option<Channel>,
    pub merchant_country: Option<Country>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayGiveBack {
    /// The processor's id of this refund or reversal: applied once by it.
    pub id: String,
    /// The processor's id of the authorization: the debit's reference.
    pub authorization: String,
    /// The processor's id of the card.
    pub card: String,
    pub kind: ReversalKind,
    /// What comes back, in minor units of `currency`; `None`: all the
    /// authorization took.
    pub amount: Option<(Amount, Currency)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayCapture {
    /// The processor's id of the transaction, when it sends one (the
    /// sample on Sudo's `transaction.created` page has none).
    pub id: Option<String>,
    /// The processor's id of the card.
    pub card: String,
    /// The processor's id of the authorization it captured, when it
    /// names one.
    pub authorization: Option<String>,
    /// What it captured, in minor units of `currency`, when readable.
    pub amount: Option<(Amount, Currency)>,
}

/// The decline of an authorization not recorded within the gateway's
/// budget: nothing was, nor will be (ISO 8583 `91`, issuer unavailable).
pub const ISSUER_UNAVAILABLE: &str = "issuer_unavailable";

/// What the service answers a gateway call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GatewayAnswer {
    Approved,
    /// Declined, for this reason code of the service's.
    Declined(&'static str),
    Balance(Amount),
    Acknowledged,
}

/// The call does not present the gateway credential of either mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum GatewayRefused {
    #[error("the processor gateway is disabled: no gateway credential is configured")]
    Disabled,
    #[error("authorization: missing, or not the gateway credential of either mode")]
    BadCredential,
}

impl DomainError for GatewayRefused {
    fn kind(&self) -> ErrorKind {
        match self {
            GatewayRefused::Disabled => ErrorKind::Forbidden,
            GatewayRefused::BadCredential => ErrorKind::Unauthorized,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            GatewayRefused::Disabled => "processor_disabled",
            GatewayRefused::BadCredential => "bad_provider_signature",
        }
    }
}

/// A card processor's gateway: how its calls are authenticated and read,
/// and how they are answered, in the processor's own terms.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait ProcessorGateway: Send + Sync {
    /// The mode whose gateway credential the call's `Authorization`
    /// header presents (compared in constant time).
    #[allow(clippy::needless_lifetimes, reason = "mockall needs the lifetime named")]
    fn authenticate<'a>(&self, authorization: Option<&'a str>) -> Result<Mode, GatewayRefused>;

    /// The call's body, read.
    fn read(&self, body: &[u8]) -> Result<GatewayCall, InvalidInput>;

    /// The HTTP status and body the processor expects for `answer`.
    fn reply(&self, answer: &GatewayAnswer) -> (u16, Vec<u8>);
}

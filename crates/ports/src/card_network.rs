use domain::Timestamp;
use domain::cards::CardType;
use domain::ids::CardId;
use domain::{Amount, Secret};

/// What the network issued: the card's sensitive data, never printed.
#[derive(Debug, Clone)]
pub struct IssuedCard {
    pub pan: Secret<String>,
    pub cvv: Secret<String>,
    pub expiry_month: Secret<String>,
    pub expiry_year: Secret<String>,
}

/// The network refused a load or unload; the reason is safe to show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NetworkDecline(pub String);

/// The card processor: what a real processor integration implements. The
/// network simulator is the default in both modes.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait CardNetwork: Send + Sync {
    /// Issues a card at `now` (Unix seconds): number, CVV and expiry.
    async fn issue(&self, card_type: CardType, now: Timestamp) -> IssuedCard;

    /// Moves `amount` onto the card at the network.
    async fn load(&self, card: &CardId, amount: Amount) -> Result<(), NetworkDecline>;

    /// Moves `amount` off the card at the network.
    async fn unload(&self, card: &CardId, amount: Amount) -> Result<(), NetworkDecline>;
}

//! What only Naira cards have: `GET /naira_cards/get_card_balance`, which
//! takes a card id or its cardholder's id. Funding, unloading, freezing,
//! debits and history are the USD cards' use cases with the currency of
//! the path.

use super::CardError;
use crate::{App, Caller};
use domain::cards::{CardBalance, READ_WINDOW_SECS};
use domain::ids::{CardId, CardholderId};
use domain::{Currency, InvalidInput};
use ports::cards::CardRecord;

impl App {
    /// A Naira card by its id, or by its cardholder's id when that
    /// cardholder has exactly one Naira card (integrations pass either).
    async fn naira_card(&self, caller: &Caller, id: &str) -> Result<CardRecord, CardError> {
        match self.card_in(caller, &CardId::new(id), Currency::Ngn).await {
            Err(CardError::CardNotFound) => {}
            found => return found,
        }
        let holder = CardholderId::new(id);
        self.ports
            .cardholders
            .get(&caller.account_id, caller.mode, &holder)
            .await?
            .ok_or(CardError::CardholderNotFound)?;
        let mut naira = self
            .ports
            .cards
            .for_cardholder(&caller.account_id, caller.mode, &holder)
            .await?
            .into_iter()
            .filter(|c| c.currency == Currency::Ngn);
        match (naira.next(), naira.next()) {
            (Some(card), None) => Ok(card),
            (None, _) => Err(InvalidInput::new("cardholder_id", "this cardholder has no Naira card").into()),
            (Some(_), Some(_)) => Err(InvalidInput::new(
                "cardholder_id",
                "this cardholder has several Naira cards: pass the card id instead",
            )
            .into()),
        }
    }

    /// The card and what can be spent or unloaded from it, in kobo; at most
    /// once every 3 seconds per card, as for USD cards.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_naira_card_balance(&self, caller: &Caller, id: &str) -> Result<(CardId, CardBalance), CardError> {
        let card = self.naira_card(caller, id).await?;
        self.rate_limit(
            (&caller.account_id, caller.mode),
            "get_card_balance",
            card.id.as_str(),
            READ_WINDOW_SECS,
        )
        .await?;
        Ok((card.id, CardBalance::new(card.balance, card.held, card.fee_hold)))
    }
}

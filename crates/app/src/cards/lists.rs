//! `GET /cards/get_all_cardholder_cards` and `GET /cards/get_all_cards`.

use super::CardError;
use super::details::SealedDetails;
use crate::{App, Caller};
use domain::ids::CardholderId;
use domain::paging::{Page, Paging};
use ports::StoreError;
use ports::cards::CardRecord;

/// A listed card, its details sealed for transport.
pub type ListedCard = (CardRecord, SealedDetails);

impl App {
    /// The cardholder's cards, newest first (400 for an unknown cardholder).
    pub async fn get_all_cardholder_cards(
        &self,
        caller: &Caller,
        cardholder: &CardholderId,
    ) -> Result<Vec<ListedCard>, CardError> {
        self.ports
            .cardholders
            .get(&caller.account_id, caller.mode, cardholder)
            .await?
            .ok_or(CardError::CardholderNotFound)?;
        let cards = self
            .ports
            .cards
            .for_cardholder(&caller.account_id, caller.mode, cardholder)
            .await?;
        Ok(self.sealed_for_transport(cards)?)
    }

    /// A page of the account's cards, newest first.
    pub async fn get_all_cards(&self, caller: &Caller, page: Page) -> Result<(Vec<ListedCard>, Paging), StoreError> {
        let (cards, total) = self.ports.cards.list(&caller.account_id, caller.mode, page).await?;
        Ok((self.sealed_for_transport(cards)?, page.paging(total)))
    }

    fn sealed_for_transport(&self, cards: Vec<CardRecord>) -> Result<Vec<ListedCard>, StoreError> {
        cards
            .into_iter()
            .map(|card| {
                let details = self.seal_for_transport(&card)?;
                Ok((card, details))
            })
            .collect()
    }
}

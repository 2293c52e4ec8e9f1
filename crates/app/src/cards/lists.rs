//! `GET /cards/get_all_cardholder_cards` and `GET /cards/get_all_cards`.

use super::CardError;
use super::details::{DetailsView, ShownCard};
use crate::{App, Caller};
use domain::ids::CardholderId;
use domain::paging::{Page, Paging};
use ports::StoreError;
use ports::cards::CardRecord;

impl App {
    /// The cardholder's cards, newest first (400 for an unknown cardholder).
    pub async fn get_all_cardholder_cards(
        &self,
        caller: &Caller,
        cardholder: &CardholderId,
        view: DetailsView,
    ) -> Result<Vec<ShownCard>, CardError> {
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
        Ok(self.shown(cards, view)?)
    }

    /// A page of the account's cards, newest first.
    pub async fn get_all_cards(
        &self,
        caller: &Caller,
        page: Page,
        view: DetailsView,
    ) -> Result<(Vec<ShownCard>, Paging), StoreError> {
        let (cards, total) = self.ports.cards.list(&caller.account_id, caller.mode, page).await?;
        Ok((self.shown(cards, view)?, page.paging(total)))
    }

    fn shown(&self, cards: Vec<CardRecord>, view: DetailsView) -> Result<Vec<ShownCard>, StoreError> {
        cards
            .into_iter()
            .map(|card| {
                let details = self.show(&card, view)?;
                Ok((card, details))
            })
            .collect()
    }
}

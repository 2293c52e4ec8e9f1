//! `GET /cards/get_all_cardholder_cards` and `GET /cards/get_all_cards`.

use super::CardError;
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
    ) -> Result<Vec<CardRecord>, CardError> {
        self.ports
            .cardholders
            .get(&caller.account_id, caller.mode, cardholder)
            .await?
            .ok_or(CardError::CardholderNotFound)?;
        Ok(self
            .ports
            .cards
            .for_cardholder(&caller.account_id, caller.mode, cardholder)
            .await?)
    }

    /// A page of the account's cards, newest first.
    pub async fn get_all_cards(&self, caller: &Caller, page: Page) -> Result<(Vec<CardRecord>, Paging), StoreError> {
        let (cards, total) = self.ports.cards.list(&caller.account_id, caller.mode, page).await?;
        Ok((cards, page.paging(total)))
    }
}

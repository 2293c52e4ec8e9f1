//! `GET /cards/get_all_cardholder_cards` and `GET /cards/get_all_cards`.

use super::CardError;
use super::details::{DetailsView, ShownCard};
use crate::{App, Caller};
use domain::Secret;
use domain::cards::READ_WINDOW_SECS;
use domain::ids::{CardId, CardholderId};
use domain::paging::{Page, Paging};
use ports::card_network::VaultedDetails;
use ports::cards::CardRecord;

impl App {
    /// The cardholder's cards, newest first (400 for an unknown cardholder).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_all_cardholder_cards(
        &self,
        caller: &Caller,
        cardholder: &CardholderId,
        view: DetailsView,
    ) -> Result<Vec<ShownCard>, CardError> {
        let cards = self.cards_of_cardholder(caller, cardholder).await?;
        self.clear_lists_limit(caller, view).await?;
        self.shown(cards, view).await
    }

    /// The cardholder's cards without their details (the dashboard's).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn cards_of_cardholder(
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
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_all_cards(
        &self,
        caller: &Caller,
        page: Page,
        view: DetailsView,
    ) -> Result<(Vec<ShownCard>, Paging), CardError> {
        self.clear_lists_limit(caller, view).await?;
        let (cards, total) = self.ports.cards.list(&caller.account_id, caller.mode, page).await?;
        Ok((self.shown(cards, view).await?, page.paging(total)))
    }

    /// Lists in clear show many cards' details at once: the account may
    /// read one every 3 seconds (a card's own details count apart).
    async fn clear_lists_limit(&self, caller: &Caller, view: DetailsView) -> Result<(), CardError> {
        match view {
            DetailsView::Sealed => Ok(()),
            DetailsView::Clear => {
                let owner = (&caller.account_id, caller.mode);
                self.rate_limit(owner, "clear_card_list", caller.account_id.as_str(), READ_WINDOW_SECS)
                    .await
            }
        }
    }

    async fn shown(&self, cards: Vec<CardRecord>, view: DetailsView) -> Result<Vec<ShownCard>, CardError> {
        let ids: Vec<CardId> = cards.iter().map(|c| c.id.clone()).collect();
        let kept = self.ports.cards.processor_cards(&ids).await?;
        // Lists never ask a processor's vault (a page would ask it three
        // times a card): a processor-kept card shows its last 4 digits,
        // and `get_card_details` its whole number.
        cards
            .into_iter()
            .map(|card| {
                let masked = kept.iter().any(|(id, _)| *id == card.id).then(|| VaultedDetails {
                    pan: Secret::new(format!("{}{}", "*".repeat(12), card.last_4)),
                    cvv: Secret::new(String::new()),
                });
                let details = self.shown_as(&card, masked, view)?;
                let brand = self.brand_of(&card);
                Ok((card, details, brand))
            })
            .collect()
    }
}

//! `DELETE /cards/delete_card/{card_id}`, and the deletion of a deleted
//! cardholder's cards. A card's remaining balance (its held fee included)
//! goes back to the USD issuing wallet through the ledger.

use super::CardError;
use crate::{App, Caller};
use domain::cards::state::DeletionReason;
use domain::events::payloads::{CardDeleted, Event};
use domain::ids::{AccountId, CardId, CardholderId};
use domain::{Amount, Currency, Mode};
use ports::StoreError;

impl App {
    /// Deletes the card; returns what went back to the wallet.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn delete_card(&self, caller: &Caller, id: &CardId) -> Result<Amount, CardError> {
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let returned = self
            .ports
            .cards
            .delete(
                &caller.account_id,
                caller.mode,
                id,
                DeletionReason::Requested,
                now,
                None,
            )
            .await?
            .ok_or(CardError::CardNotFound)?;
        self.card_status_changed((&caller.account_id, caller.mode), id).await?;
        Ok(returned)
    }

    /// Deletes each of the cardholder's cards with a
    /// `card_delete_event.successful`; each deletion is its own
    /// transaction, so the cardholder's `DeleteCardholderCards` job, run
    /// again, finishes the rest.
    pub(crate) async fn delete_cards_of(
        &self,
        (account, mode): (&AccountId, Mode),
        cardholder: &CardholderId,
    ) -> Result<(), StoreError> {
        let cards = self.ports.cards.for_cardholder(account, mode, cardholder).await?;
        for card in cards {
            let whose = (cardholder, card.currency);
            self.delete_told((account, mode), &card.id, whose, DeletionReason::CardholderDeleted)
                .await?;
        }
        Ok(())
    }

    /// Deletes the card of `whose` (its cardholder and currency) for
    /// `reason`, its `card_delete_event.successful` in the same
    /// transaction, and has its processor told; `None` when it was gone
    /// already (nothing is told twice), else what went back to the wallet.
    pub(crate) async fn delete_told(
        &self,
        (account, mode): (&AccountId, Mode),
        card: &CardId,
        (cardholder, currency): (&CardholderId, Currency),
        reason: DeletionReason,
    ) -> Result<Option<Amount>, StoreError> {
        let now = self.now_for(account, mode).await?;
        let deleted = Event::CardDeleteSuccessful(CardDeleted {
            card_id: card.to_string(),
            cardholder_id: cardholder.to_string(),
            currency: currency.code(),
            reason: reason.as_str().into(),
            livemode: mode.is_live(),
            issuing_app_id: account.to_string(),
        });
        let event = self.new_event(account, mode, deleted).await?;
        let delivery = self.delivery_job(&event.id);
        let returned = self
            .ports
            .cards
            .delete(account, mode, card, reason, now, Some((event, delivery)))
            .await?;
        self.card_status_changed((account, mode), card).await?;
        Ok(returned)
    }
}

//! `PATCH /cards/freeze_card`, `PATCH /cards/unfreeze_card`,
//! `POST /cards/update_card_pin` and `POST /cards/set_3d_secure_pin`.

use super::CardError;
use crate::{App, Caller};
use domain::Currency;
use domain::Secret;
use domain::cards::pin::Pin;
use domain::ids::CardId;
use ports::StoreError;
use ports::card_network::PinSwap;
use ports::cards::PinKind;
use ports::vault::{Place, SealedField};

impl App {
    /// Freezes (`active: false`) or unfreezes a card, at once; `only` a
    /// card of that currency when the path says (the Naira paths).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn set_card_active(
        &self,
        caller: &Caller,
        id: &CardId,
        active: bool,
        only: Option<Currency>,
    ) -> Result<(), CardError> {
        if let Some(currency) = only {
            self.card_in(caller, id, currency).await?;
        }
        if self
            .ports
            .cards
            .set_active(&caller.account_id, caller.mode, id, active)
            .await?
        {
            self.card_status_changed((&caller.account_id, caller.mode), id).await?;
            Ok(())
        } else {
            Err(CardError::CardNotFound)
        }
    }

    /// Replaces the card PIN or sets the 3-D Secure PIN from an encrypted
    /// 4-digit `card_pin`; the PIN is stored sealed.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn set_card_pin(
        &self,
        caller: &Caller,
        id: &CardId,
        kind: PinKind,
        card_pin: &str,
    ) -> Result<(), CardError> {
        let pin = self.decrypt_pin(caller, "card_pin", card_pin)?;
        let field = match kind {
            PinKind::Card => SealedField::CardPin,
            PinKind::ThreeDSecure => SealedField::Card3dsPin,
        };
        let place = Place::card(field, id.as_str(), caller.account_id.as_str(), caller.mode);
        if kind == PinKind::Card
            && let Some(at) = self.kept_card(id).await?
        {
            self.change_pin_at_processor((caller, id), &at, &place, &pin).await?;
        }
        let sealed = self.ports.vault.seal(pin.expose().as_bytes(), &place);
        if self
            .ports
            .cards
            .set_pin(&caller.account_id, caller.mode, id, kind, sealed)
            .await?
        {
            Ok(())
        } else {
            Err(CardError::CardNotFound)
        }
    }

    /// A processor-kept card's PIN changed there first, from the one
    /// stored sealed (none stored: the processor's default PIN).
    async fn change_pin_at_processor(
        &self,
        (caller, id): (&Caller, &CardId),
        at: &str,
        place: &Place<'_>,
        pin: &Pin,
    ) -> Result<(), CardError> {
        let sealed = self.ports.cards.sealed_pin(&caller.account_id, caller.mode, id).await?;
        let sealed = sealed.ok_or(CardError::CardNotFound)?;
        let stored = self
            .ports
            .vault
            .open(&sealed, place)
            .map_err(|_| StoreError::new("the card's sealed PIN could not be opened"))?;
        let old = match String::from_utf8(stored.expose().clone()) {
            Ok(text) if !text.is_empty() => Some(Pin::parse("card_pin", &Secret::new(text))?),
            _ => None,
        };
        self.ports
            .network
            .change_pin(
                caller.mode,
                at,
                PinSwap {
                    old: old.as_ref(),
                    new: pin,
                },
            )
            .await?;
        Ok(())
    }
}

//! `GET /cards/get_card_details` (sealed on the base address, in clear on
//! the relay), `GET /cards/get_card_balance`, and card-details tokens:
//! `generate_token_for_card_details` and, on the relay,
//! `get_card_details_from_token`. [`DetailsView`] is the one difference
//! between the two addresses.

use super::CardError;
use crate::{App, Caller};
use domain::cards::{CardBalance, CardBrand, DETAILS_TOKEN_SECS, READ_WINDOW_SECS};
use domain::ids::CardId;
use domain::{Currency, Mode, Secret, Timestamp};
use ports::StoreError;
use ports::card_network::VaultedDetails;
use ports::cards::{CardRecord, DetailsToken};
use ports::vault::{Place, SealedField};

/// A card's sensitive data: its number, CVV and expiry.
#[derive(Debug, Clone)]
pub struct Details<T> {
    pub card_number: T,
    pub cvv: T,
    pub expiry_month: T,
    pub expiry_year: T,
}

/// Opened, for the relay; never printed.
pub type RevealedDetails = Details<Secret<String>>;

/// Sealed under the transport key, for the base address.
pub type SealedDetails = Details<Vec<u8>>;

/// How a card's number, CVV and expiry leave the service: sealed under
/// the transport key (the base address) or in clear (the relay).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailsView {
    Sealed,
    Clear,
}

/// A card's details as a [`DetailsView`] shows them.
#[derive(Debug, Clone)]
pub enum ShownDetails {
    Sealed(SealedDetails),
    Clear(RevealedDetails),
}

/// A card with its details, as a view shows them, and the brand its
/// processor issued it as.
pub type ShownCard = (CardRecord, ShownDetails, CardBrand);

const TOKEN_LEN: usize = 48;

/// Whether `token` has the shape of a card-details token: 48 letters and
/// digits.
pub(crate) fn is_card_token(token: &str) -> bool {
    token.len() == TOKEN_LEN && token.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The one limit every reveal of a card's details counts against: sealed
/// on the base address, in clear on the relay, and by token.
const REVEAL: &str = "card_details";

impl App {
    /// The card with its details as `view` shows them.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_card_details(
        &self,
        caller: &Caller,
        id: &CardId,
        view: DetailsView,
    ) -> Result<ShownCard, CardError> {
        let card = self.card(caller, id).await?;
        self.rate_limit((&caller.account_id, caller.mode), REVEAL, id.as_str(), READ_WINDOW_SECS)
            .await?;
        let details = self.show(&card, view).await?;
        let brand = self.brand_of(&card);
        Ok((card, details, brand))
    }

    /// A USD card's balance (a Naira card's is on the Naira path, in kobo).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_card_balance(&self, caller: &Caller, id: &CardId) -> Result<CardBalance, CardError> {
        let card = self.card_in(caller, id, Currency::Usd).await?;
        self.rate_limit(
            (&caller.account_id, caller.mode),
            "get_card_balance",
            id.as_str(),
            READ_WINDOW_SECS,
        )
        .await?;
        Ok(CardBalance::new(card.balance, card.held, card.fee_hold))
    }

    /// A random single-use token for the card's details, valid 5 minutes;
    /// only its hash is stored. One per card per read window.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn generate_token_for_card_details(
        &self,
        caller: &Caller,
        id: &CardId,
    ) -> Result<Secret<String>, CardError> {
        self.card(caller, id).await?;
        self.rate_limit(
            (&caller.account_id, caller.mode),
            "details_token",
            id.as_str(),
            READ_WINDOW_SECS,
        )
        .await?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let token = self.ports.ids.secret(TOKEN_LEN);
        let stored = DetailsToken {
            account_id: caller.account_id.clone(),
            mode: caller.mode,
            card_id: id.clone(),
            expires_at: now.plus(DETAILS_TOKEN_SECS),
            used: false,
        };
        self.ports
            .cards
            .insert_details_token(self.ports.vault.lookup_hash(token.expose()), stored, now)
            .await?;
        Ok(token)
    }

    /// The card a card token of `mode` (any mode when `None`) is for, if
    /// it is unused and unexpired; the token stays unused.
    pub(crate) async fn peek_card_token(
        &self,
        mode: Option<Mode>,
        token: &Secret<String>,
    ) -> Result<CardRecord, CardError> {
        Ok(self.valid_card_token(mode, token).await?.1)
    }

    /// The card a card token of `mode` (any mode when `None`) is for,
    /// once: the token is used up. With `reveal`, the card's once-per-3-
    /// seconds reveal limit applies first, so a refused reveal leaves the
    /// token unused.
    pub(crate) async fn use_card_token(
        &self,
        mode: Option<Mode>,
        token: &Secret<String>,
        reveal: bool,
    ) -> Result<CardRecord, CardError> {
        let ((hash, now), card) = self.valid_card_token(mode, token).await?;
        if reveal {
            let owner = (&card.account_id, card.mode);
            self.rate_limit(owner, REVEAL, card.id.as_str(), READ_WINDOW_SECS)
                .await?;
        }
        if !self.ports.cards.consume_details_token(&hash, now).await? {
            return Err(CardError::TokenInvalid);
        }
        Ok(card)
    }

    /// An unused, unexpired card token's lookup hash, the mode's time, and
    /// its card.
    async fn valid_card_token(
        &self,
        mode: Option<Mode>,
        token: &Secret<String>,
    ) -> Result<((String, Timestamp), CardRecord), CardError> {
        let hash = self.ports.vault.lookup_hash(token.expose());
        let stored = self
            .ports
            .cards
            .find_details_token(&hash)
            .await?
            .filter(|t| mode.is_none_or(|m| t.mode == m) && !t.used)
            .ok_or(CardError::TokenInvalid)?;
        let now = self.now_for(&stored.account_id, stored.mode).await?;
        if stored.expires_at <= now {
            return Err(CardError::TokenInvalid);
        }
        let card = self
            .ports
            .cards
            .get(&stored.account_id, stored.mode, &stored.card_id)
            .await?
            // The card was deleted since: the token is no use, as the docs say.
            .ok_or(CardError::TokenInvalid)?;
        Ok(((hash, now), card))
    }

    /// Redeems a token in the mode of the path it came on: the card in
    /// clear, once. Unknown, expired, used or other-mode tokens are 400; a
    /// card revealed within the read window is 420 and the token is kept.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn redeem_card_details_token(&self, mode: Mode, token: &Secret<String>) -> Result<ShownCard, CardError> {
        let card = self.use_card_token(Some(mode), token, true).await?;
        let kept = self.kept_card(&card.id).await?;
        let details = self.open(&card, self.vaulted(&card, kept.as_deref()).await?)?;
        let brand = self.brand_of(&card);
        Ok((card, ShownDetails::Clear(details), brand))
    }

    /// The brand `card` was issued as: its mode's processor's for its
    /// currency (a mode's rails do not change while it has cards).
    pub(crate) fn brand_of(&self, card: &CardRecord) -> CardBrand {
        self.ports.network.brand(card.mode, card.currency)
    }

    /// The card's details as `view` shows them: opened from storage (a
    /// processor-kept card's number and CVV fetched from the processor's
    /// vault now, never stored), and for the base address sealed again
    /// under the transport key, in place.
    pub(crate) async fn show(&self, card: &CardRecord, view: DetailsView) -> Result<ShownDetails, CardError> {
        let kept = self.kept_card(&card.id).await?;
        let vaulted = self.vaulted(card, kept.as_deref()).await?;
        Ok(self.shown_as(card, vaulted, view)?)
    }

    /// The card's details as `view` shows them, its number and CVV
    /// `vaulted` when a processor keeps them.
    pub(crate) fn shown_as(
        &self,
        card: &CardRecord,
        vaulted: Option<VaultedDetails>,
        view: DetailsView,
    ) -> Result<ShownDetails, StoreError> {
        Ok(match view {
            DetailsView::Sealed => ShownDetails::Sealed(self.each_opened(card, vaulted, |plain, place| {
                Ok(self.ports.vault.seal_for_transport(plain.expose(), place))
            })?),
            DetailsView::Clear => ShownDetails::Clear(self.open(card, vaulted)?),
        })
    }

    /// A processor-kept card's number and CVV, from the processor's vault.
    async fn vaulted(&self, card: &CardRecord, kept: Option<&str>) -> Result<Option<VaultedDetails>, CardError> {
        match kept {
            Some(at) => Ok(Some(self.ports.network.reveal(card.mode, at).await?)),
            None => Ok(None),
        }
    }

    fn open(&self, card: &CardRecord, vaulted: Option<VaultedDetails>) -> Result<RevealedDetails, StoreError> {
        self.each_opened(card, vaulted, |plain, _| {
            String::from_utf8(plain.expose().clone())
                .map(Secret::new)
                .map_err(|_| StoreError::new("a sealed card detail is not text"))
        })
    }

    /// `then` applied to each of the card's details in its place: opened
    /// from storage, or the processor's vault's number and CVV.
    fn each_opened<T>(
        &self,
        card: &CardRecord,
        vaulted: Option<VaultedDetails>,
        then: impl Fn(Secret<Vec<u8>>, &Place) -> Result<T, StoreError>,
    ) -> Result<Details<T>, StoreError> {
        let sealed = &card.details;
        let place = |field| Place::card(field, card.id.as_str(), card.account_id.as_str(), card.mode);
        let open = |bytes: &[u8], field: SealedField| {
            let plain = self
                .ports
                .vault
                .open(bytes, &place(field))
                .map_err(|_| StoreError::new(format!("sealed {} could not be opened", field.column())))?;
            then(plain, &place(field))
        };
        let given =
            |value: &Secret<String>, field| then(Secret::new(value.expose().as_bytes().to_vec()), &place(field));
        let (card_number, cvv) = match &vaulted {
            Some(v) => (
                given(&v.pan, SealedField::CardNumber)?,
                given(&v.cvv, SealedField::CardCvv)?,
            ),
            None => (
                open(&sealed.pan, SealedField::CardNumber)?,
                open(&sealed.cvv, SealedField::CardCvv)?,
            ),
        };
        Ok(Details {
            card_number,
            cvv,
            expiry_month: open(&sealed.expiry_month, SealedField::CardExpiryMonth)?,
            expiry_year: open(&sealed.expiry_year, SealedField::CardExpiryYear)?,
        })
    }
}

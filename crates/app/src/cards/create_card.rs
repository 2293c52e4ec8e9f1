//! `POST /cards/create_card`, `POST /cards/activate_physical_card` and the
//! deprecated `POST /cards/migrate_card`: a card is issued by the network,
//! its details sealed, and it is stored and funded in one transaction with
//! the `card_creation_event.successful` that reports it.

use super::CardError;
use crate::{App, Caller};
use domain::cards::pin::Pin;
use domain::cards::product::Product;
use domain::cards::state::CardState;
use domain::cards::{self, CardBrand, CardLimit, CardType};
use domain::events::payloads::{CardCreated, Event};
use domain::ids::{CardId, CardholderId};
use domain::{Amount, Currency, InvalidInput, Mode, Timestamp, required};
use ports::card_network::{CardToIssue, IssuedCard, NetworkCardState, PinSwap};
use ports::cardholders::CardholderRecord;
use ports::cards::{CardRecord, CreateCardError, Funding, NewCard, SealedDetails};
use ports::vault::{Place, SealedField};

/// The body of `create_card`, as sent.
#[derive(Debug, Clone, Default)]
pub struct CardRequest {
    pub cardholder_id: Option<String>,
    pub card_type: Option<String>,
    pub card_brand: Option<String>,
    pub card_currency: Option<String>,
    pub card_limit: Option<String>,
    pub funding_amount: Option<String>,
    pub pin: Option<String>,
    pub transaction_reference: Option<String>,
    pub meta_data: Option<String>,
    /// A Naira card's NIN (optional; stored sealed).
    pub nin: Option<String>,
}

/// The body of `activate_physical_card`, as sent.
#[derive(Debug, Clone, Default)]
pub struct ActivationRequest {
    pub cardholder_id: Option<String>,
    pub card_type: Option<String>,
    pub card_brand: Option<String>,
    pub card_currency: Option<String>,
    pub card_token_number: Option<String>,
    /// Optional, as on `create_card`: without it the card gets the default
    /// PIN, which anyone who sees the card number knows.
    pub pin: Option<String>,
    pub meta_data: Option<String>,
}

/// The body of `migrate_card`, as sent.
#[derive(Debug, Clone, Default)]
pub struct MigrationRequest {
    pub cardholder_id: Option<String>,
    pub card_id: Option<String>,
    pub card_type: Option<String>,
    pub target_card_brand: Option<String>,
    pub target_card_currency: Option<String>,
    pub card_limit: Option<String>,
    pub pin: Option<String>,
}

/// A card's brand and currency, as asked: the field and the value of each.
type Asked<'a> = ((&'a str, &'a str), (&'a str, &'a str));

impl App {
    /// Checks the brand and currency asked for: cards in USD, or (virtual
    /// only) in NGN, of the brand the mode's processor issues them as
    /// (`Mastercard` asked is taken for any); "card type unavailable"
    /// otherwise. What the card is issued as.
    fn check_issued(
        &self,
        mode: Mode,
        ((brand_field, brand), (currency_field, currency)): Asked<'_>,
        card_type: CardType,
    ) -> Result<(Currency, CardBrand), CardError> {
        let asked = CardBrand::parse(brand_field, brand).map_err(CardError::TypeUnavailable)?;
        let unavailable = |rule: &str| CardError::TypeUnavailable(InvalidInput::new(currency_field, rule));
        let currency = match Currency::parse(currency_field, currency) {
            Ok(Currency::Usd) => Currency::Usd,
            Ok(Currency::Ngn) if card_type == CardType::Virtual => Currency::Ngn,
            Ok(Currency::Ngn) => {
                return Err(unavailable(
                    "this card type is unavailable: Naira cards are virtual only",
                ));
            }
            Err(_) => {
                return Err(unavailable(
                    "this card type is unavailable: cards are issued in USD or NGN",
                ));
            }
        };
        let issued = self.ports.network.brand(mode, currency);
        let brand = CardBrand::issue_as(asked, issued, brand_field).map_err(CardError::TypeUnavailable)?;
        Ok((currency, brand))
    }
}

/// What differs between the ways a card comes to be.
struct Issue<'a> {
    card_type: CardType,
    currency: Currency,
    /// What the processor issues it as, told in its event.
    brand: CardBrand,
    limit: CardLimit,
    pin: Option<Pin>,
    /// A Naira card's NIN, to store sealed.
    nin: Option<&'a str>,
    token_number: Option<String>,
    funding: Funding,
    meta_data: Option<String>,
    /// The creation request's reference: taken in the clients' namespace
    /// with the card (a repeat creates nothing), told in its event.
    reference: Option<String>,
    /// When the fee anniversaries count from, and the last month charged;
    /// `None`: from the new card's creation.
    fee_anchor: Option<(Timestamp, Option<i32>)>,
}

impl App {
    /// Issues a virtual or physical USD card funded from the issuing
    /// wallet, or a virtual Naira card (no funding, no fee, the fixed
    /// Naira limit; `card_limit` and `funding_amount` are not read).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn create_card(&self, caller: &Caller, request: CardRequest) -> Result<(CardId, Currency), CardError> {
        let owner = CardholderId::new(required(&request.cardholder_id, "cardholder_id")?);
        let card_type = CardType::parse("card_type", required(&request.card_type, "card_type")?)?;
        let asked = (
            ("card_brand", required(&request.card_brand, "card_brand")?),
            ("card_currency", required(&request.card_currency, "card_currency")?),
        );
        let (currency, brand) = self.check_issued(caller.mode, asked, card_type)?;
        let (limit, funding) = match currency {
            Currency::Usd => {
                let limit = CardLimit::parse_or_default("card_limit", request.card_limit.as_deref())?;
                let funding = request.funding_amount.as_deref();
                (limit, limit.parse_funding_or_least("funding_amount", funding)?)
            }
            Currency::Ngn => {
                // Not read, but held to the rule the document states.
                if let Some(funding) = &request.funding_amount {
                    Product::NGN.parse_funding_amount("funding_amount", funding)?;
                }
                (CardLimit::Naira, Amount::ZERO)
            }
        };
        if let Some(reference) = &request.transaction_reference {
            domain::text::reference(reference)?;
        }
        let nin = match (currency, request.nin.as_deref()) {
            (Currency::Ngn, Some(nin)) => {
                cards::check_nin("nin", nin)?;
                Some(nin)
            }
            _ => None,
        };
        let pin = self.optional_pin(caller, &request.pin)?;
        let owner = self.card_owner(caller, &owner).await?;
        let issue = Issue {
            card_type,
            currency,
            brand,
            limit,
            pin,
            nin,
            token_number: None,
            funding: Funding::Wallet(funding),
            meta_data: request.meta_data,
            reference: request.transaction_reference,
            fee_anchor: None,
        };
        Ok((self.issue(caller, &owner, issue).await?, currency))
    }

    /// Activates a physical card from its envelope: it is funded with the
    /// maintenance-fee hold of the 5,000 USD limit and gets the PIN sent,
    /// or the default PIN.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn activate_physical_card(
        &self,
        caller: &Caller,
        request: ActivationRequest,
    ) -> Result<CardId, CardError> {
        let owner = CardholderId::new(required(&request.cardholder_id, "cardholder_id")?);
        let card_type = CardType::parse("card_type", required(&request.card_type, "card_type")?)?;
        if card_type != CardType::Physical {
            return Err(InvalidInput::new("card_type", "must be physical to activate a physical card").into());
        }
        let asked = (
            ("card_brand", required(&request.card_brand, "card_brand")?),
            ("card_currency", required(&request.card_currency, "card_currency")?),
        );
        let (currency, brand) = self.check_issued(caller.mode, asked, card_type)?;
        let token_number = required(&request.card_token_number, "card_token_number")?;
        cards::check_token_number("card_token_number", token_number)?;
        let pin = self.optional_pin(caller, &request.pin)?;
        let owner = self.card_owner(caller, &owner).await?;
        let issue = Issue {
            card_type,
            currency,
            brand,
            limit: CardLimit::Usd5k,
            pin,
            nin: None,
            token_number: Some(token_number.to_string()),
            funding: Funding::Wallet(CardLimit::Usd5k.fee_hold()),
            meta_data: request.meta_data,
            reference: None,
            fee_anchor: None,
        };
        self.issue(caller, &owner, issue).await
    }

    /// Replaces a card by a new one of the target brand and currency; the
    /// whole balance moves across and the old card is deleted.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn migrate_card(&self, caller: &Caller, request: MigrationRequest) -> Result<CardId, CardError> {
        let owner = CardholderId::new(required(&request.cardholder_id, "cardholder_id")?);
        let old = CardId::new(required(&request.card_id, "card_id")?);
        let card_type = CardType::parse("card_type", required(&request.card_type, "card_type")?)?;
        let asked = (
            (
                "target_card_brand",
                required(&request.target_card_brand, "target_card_brand")?,
            ),
            (
                "target_card_currency",
                required(&request.target_card_currency, "target_card_currency")?,
            ),
        );
        let (currency, brand) = self.check_issued(caller.mode, asked, card_type)?;
        if currency != Currency::Usd {
            let rule = "this card type is unavailable: a card migrates to a USD card";
            return Err(CardError::TypeUnavailable(InvalidInput::new(
                "target_card_currency",
                rule,
            )));
        }
        let limit = CardLimit::parse("card_limit", required(&request.card_limit, "card_limit")?)?;
        let pin = self.optional_pin(caller, &request.pin)?;
        let owner = self.card_owner(caller, &owner).await?;
        let card = self.card(caller, &old).await?;
        if card.cardholder_id != owner.id || card.currency != Currency::Usd {
            return Err(CardError::CardNotFound);
        }
        // The new card keeps the old one's fee anniversary, and charges the
        // months due that the old one did not: migrating is no way to skip
        // or move the fee (a month charged meanwhile is charged once).
        let anchor = self
            .ports
            .cards
            .rule_state(&old)
            .await?
            .map(|s| (s.fee_anchor_at, s.fee_month));
        let issue = Issue {
            card_type,
            currency,
            brand,
            limit,
            pin,
            nin: None,
            token_number: None,
            funding: Funding::Card(old.clone()),
            meta_data: card.meta_data,
            reference: None,
            fee_anchor: anchor,
        };
        let new = self.issue(caller, &owner, issue).await?;
        self.card_status_changed((&caller.account_id, caller.mode), &old)
            .await?;
        Ok(new)
    }

    /// The `pin` field decrypted and checked; empty or absent: none (the
    /// card gets the default PIN).
    fn optional_pin(&self, caller: &Caller, pin: &Option<String>) -> Result<Option<Pin>, CardError> {
        match pin.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            Some(ciphertext) => Ok(Some(self.decrypt_pin(caller, "pin", ciphertext)?)),
            None => Ok(None),
        }
    }

    async fn issue(&self, caller: &Caller, owner: &CardholderRecord, issue: Issue<'_>) -> Result<CardId, CardError> {
        // Creations under one reference take turns: the one after the
        // first finds the reference taken, and no second card is made.
        let _turn = match &issue.reference {
            Some(reference) => {
                let key = format!("{}\n{}\n{reference}", caller.account_id, caller.mode.as_str());
                Some(self.card_creations.turn(key).await)
            }
            None => None,
        };
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        self.would_be_stored(caller, &issue).await?;
        if issue.card_type == CardType::Physical && !self.ports.network.issues_physical(caller.mode) {
            let rule = "this card type is unavailable: this mode's card processor issues no physical card yet";
            return Err(CardError::TypeUnavailable(InvalidInput::new("card_type", rule)));
        }
        let customer = self.processor_customer(caller.mode, owner).await?;
        let to_issue = CardToIssue {
            card_type: issue.card_type,
            currency: issue.currency,
            now,
            cardholder: owner,
            customer: customer.as_deref(),
            key: issue.reference.as_deref(),
        };
        let issued = self.ports.network.issue(caller.mode, to_issue).await?;
        // A PIN asked for goes to a processor that keeps the card, from its
        // default one, before the card is stored.
        let pin_set = match (&issued, &issue.pin) {
            (IssuedCard::AtProcessor(at), Some(pin)) => self
                .ports
                .network
                .change_pin(caller.mode, &at.card, PinSwap { old: None, new: pin })
                .await
                .map(drop),
            _ => Ok(()),
        };
        let stored = match pin_set {
            Ok(()) => self.store_issued(caller, owner, issue, &issued, now).await,
            Err(e) => Err(e.into()),
        };
        if let (Err(_), IssuedCard::AtProcessor(at)) = (&stored, &issued) {
            // No card here: none may stay usable there.
            let cancelled = self
                .ports
                .network
                .set_state(caller.mode, &at.card, NetworkCardState::Terminated)
                .await;
            if let Err(e) = cancelled {
                tracing::error!(processor_card = %at.card, error = %e, "a card issued at the processor but not stored here could not be terminated there: `issuing reconcile cards` lists it");
            }
        }
        stored
    }

    /// What would refuse the card once issued (its reference taken, the
    /// wallet too low), refused before the network issues one: a real
    /// processor's cards are not free, and each refusal would leave one
    /// there. The creation's transaction still decides.
    async fn would_be_stored(&self, caller: &Caller, issue: &Issue<'_>) -> Result<(), CardError> {
        let cards = &self.ports.cards;
        if let Some(reference) = &issue.reference
            && cards
                .reference_taken(&caller.account_id, caller.mode, reference)
                .await?
        {
            return Err(CreateCardError::ReferenceUsed.into());
        }
        if let Funding::Wallet(amount) = issue.funding
            && amount > Amount::ZERO
        {
            let wallets = self.ports.wallets.balances(&caller.account_id, caller.mode).await?;
            if wallets.of(issue.currency) < amount {
                return Err(CreateCardError::WalletTooLow.into());
            }
        }
        Ok(())
    }

    /// Stores a card the network issued, funded, with its event and jobs.
    async fn store_issued(
        &self,
        caller: &Caller,
        owner: &CardholderRecord,
        issue: Issue<'_>,
        issued: &IssuedCard,
        now: Timestamp,
    ) -> Result<CardId, CardError> {
        let vault = &self.ports.vault;
        let id = CardId::with_suffix(&self.ports.ids.unique());
        let seal = |field, plain: &str| {
            let place = Place::card(field, id.as_str(), caller.account_id.as_str(), caller.mode);
            vault.seal(plain.as_bytes(), &place)
        };
        // A processor keeps its cards' numbers and CVVs: nothing of them is
        // sealed here (an empty value stands in), and without a PIN asked
        // for, the processor's own default PIN applies.
        let (pan, cvv, expiry_month, expiry_year) = match issued {
            IssuedCard::Kept(d) => (
                d.pan.expose().as_str(),
                d.cvv.expose().as_str(),
                d.expiry_month.expose().as_str(),
                d.expiry_year.expose().as_str(),
            ),
            IssuedCard::AtProcessor(at) => ("", "", at.expiry_month.as_str(), at.expiry_year.as_str()),
        };
        let (last_4, pin, processor_card) = match issued {
            IssuedCard::Kept(d) => (
                pan[pan.len() - 4..].to_string(),
                Some(issue.pin.unwrap_or_else(|| Pin::default_for(&d.pan))),
                None,
            ),
            IssuedCard::AtProcessor(at) => (at.last_4.clone(), issue.pin, Some(at.card.clone())),
        };
        let card = CardRecord {
            id: id.clone(),
            account_id: caller.account_id.clone(),
            mode: caller.mode,
            cardholder_id: owner.id.clone(),
            card_type: issue.card_type,
            currency: issue.currency,
            name: format!("{} {}", owner.registration.first_name, owner.registration.last_name),
            details: SealedDetails {
                pan: seal(SealedField::CardNumber, pan),
                cvv: seal(SealedField::CardCvv, cvv),
                expiry_month: seal(SealedField::CardExpiryMonth, expiry_month),
                expiry_year: seal(SealedField::CardExpiryYear, expiry_year),
            },
            last_4,
            limit: issue.limit,
            fee_hold: issue.limit.fee_hold(),
            state: CardState::Active,
            pin_3ds_activated: false,
            meta_data: issue.meta_data,
            created_at: now,
            balance: 0,
            held: 0,
        };
        let created = Event::CardCreationSuccessful(CardCreated {
            card_id: id.to_string(),
            cardholder_id: owner.id.to_string(),
            card_type: issue.card_type.as_str(),
            brand: issue.brand.as_str(),
            currency: issue.currency.code(),
            last_4: card.last_4.clone(),
            livemode: caller.mode.is_live(),
            issuing_app_id: caller.account_id.to_string(),
            transaction_reference: issue.reference.clone(),
            card_token_number: issue.token_number.clone(),
            migrated_from: match &issue.funding {
                Funding::Card(old) => Some(old.to_string()),
                Funding::Wallet(_) => None,
            },
        });
        let event = self.new_event(&caller.account_id, caller.mode, created).await?;
        let mut jobs = vec![self.delivery_job(&event.id)];
        let fee_anchor = issue.fee_anchor.unwrap_or((now, None));
        // The inactivity rule and the monthly fee are USD cards' rules.
        if issue.currency == Currency::Usd {
            jobs.extend(
                self.first_rule_jobs(&caller.account_id, caller.mode, &id, now, fee_anchor)
                    .await?,
            );
        }
        let new_card = NewCard {
            card,
            sealed_pin: seal(SealedField::CardPin, pin.as_ref().map_or("", Pin::expose)),
            sealed_nin: issue.nin.map(|nin| seal(SealedField::CardNin, nin)),
            token_number: issue.token_number,
            funding: issue.funding,
            fee_anchor_at: fee_anchor.0,
            reference: issue.reference,
            processor_card,
        };
        self.ports.cards.create(new_card, event, jobs, now).await?;
        Ok(id)
    }
}

//! Card debits: the sandbox's `PATCH /sandbox/cards/mock_debit_transaction`
//! posts one as the network would. The authorization engine decides under
//! the card's lock; a decline is recorded, counted and reported by
//! `card_debit_event.declined`, and the card rules may delete the card
//! (`card_delete_event.successful`).

use super::CardError;
use crate::events::data_of;
use crate::{App, Caller, RequestError, Stamp};
use domain::cards::authorization::{Decision, DeclineReason};
use domain::cards::hold::{HoldState, TransactionKind};
use domain::cards::product::Product;
use domain::cards::spending_controls::{Channel, Country};
use domain::cards::three_ds;
use domain::events::payloads::{CardAuthorization, CardDebit, CardDeleted, CardMovement, Event};
use domain::ids::{AccountId, CardId, CardholderId, EventId};
use domain::{Amount, Currency, InvalidInput, Mode, Timestamp, required};
use ports::StoreError;
use ports::card_transactions::{DebitAttempt, DebitError, DebitOutcome};
use ports::events::NewEvent;
use ports::jobs::JobKind;
use ports::merchants::Merchant;
use serde_json::json;

/// How a sandbox debit ended: posted and approved, or waiting for its OTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    Approved,
    AwaitingOtp,
}

/// The body of `mock_debit_transaction`: only `card_id` is required; the
/// rest simulate any case.
#[derive(Debug, Clone, Default)]
pub struct MockDebit {
    pub card_id: Option<String>,
    /// Cents; 100 (1 USD) when absent.
    pub amount: Option<String>,
    pub currency: Option<String>,
    /// The raw merchant descriptor; a Netflix charge when absent.
    pub merchant: Option<String>,
    pub merchant_category_code: Option<String>,
    /// How the card was used; `online` when absent.
    pub channel: Option<String>,
    /// The merchant's country (ISO 3166-1 alpha-2); the default merchant's
    /// (`US`) when absent with it, else unknown.
    pub merchant_country: Option<String>,
    pub transaction_reference: Option<String>,
    /// A network-forced post, which may overdraw the card.
    pub force: Option<bool>,
    /// Naira cards: wait for a 3-D Secure OTP instead of posting.
    pub three_ds: Option<bool>,
}

/// What a sandbox debit without an amount charges: 100 minor units (1.00
/// USD on a USD card, 1.00 NGN on a Naira card).
const MOCK_DEBIT_AMOUNT: Amount = Amount::from_const(100);

const DEFAULT_DESCRIPTOR: &str = "NETFLIX.COM 866-579-7172 CA";
const DEFAULT_MCC: &str = "4899";
const DEFAULT_COUNTRY: &str = "US";

impl App {
    /// Posts a sandbox debit on a card of `currency` (the path's: USD or
    /// Naira cards), or with `three_ds` opens its challenge; answers with
    /// the card and the client reference, or the decline (recorded all
    /// the same).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn mock_debit_transaction(
        &self,
        caller: &Caller,
        currency: Currency,
        body: MockDebit,
    ) -> Result<(CardId, String, Completion), CardError> {
        let three_ds = body.three_ds.unwrap_or(false);
        let debit = self.sandbox_debit(caller, currency, body)?;
        if three_ds {
            three_ds::may_challenge(currency, debit.forced, debit.channel)?;
        }
        let (card, reference) = (debit.card.clone(), debit.reference.clone());
        if three_ds {
            self.card_in(caller, &card, currency).await?;
            self.open_challenge((&caller.account_id, caller.mode), debit).await?;
            return Ok((card, reference, Completion::AwaitingOtp));
        }
        let (outcome, _) = self.post_debit(&caller.account_id, caller.mode, debit).await?;
        match outcome.decision {
            Decision::Approve => Ok((card, reference, Completion::Approved)),
            Decision::Decline(reason) => Err(CardError::Declined(reason)),
        }
    }

    /// A sandbox debit of a card of `currency` as `body` simulates it.
    pub(crate) fn sandbox_debit(
        &self,
        caller: &Caller,
        currency: Currency,
        body: MockDebit,
    ) -> Result<Debit, CardError> {
        let forced = body.force.unwrap_or(false);
        let channel = channel(body.channel.as_deref())?.unwrap_or(Channel::Online);
        if caller.mode != Mode::Test {
            return Err(CardError::Request(RequestError::SandboxOnly));
        }
        let product = Product::of(currency);
        let card = CardId::new(required(&body.card_id, "card_id")?);
        let amount = match body.amount.as_deref() {
            None => MOCK_DEBIT_AMOUNT,
            Some(a) => product.parse_debit_amount("amount", a)?,
        };
        if let Some(c) = body.currency.as_deref()
            && Currency::parse("currency", c)? != currency
        {
            let rule = format!("must be {} for this card", currency.code());
            return Err(InvalidInput::new("currency", rule).into());
        }
        let default_merchant = body.merchant.is_none();
        let descriptor = descriptor(body.merchant.unwrap_or_else(|| DEFAULT_DESCRIPTOR.to_string()))?;
        let mcc = match body.merchant_category_code {
            Some(code) => category(Some(code))?,
            // The default merchant brings its own category code.
            None => default_merchant.then(|| DEFAULT_MCC.to_string()),
        };
        let country = match body.merchant_country.as_deref() {
            None if default_merchant => Some(DEFAULT_COUNTRY),
            given => given,
        };
        let reference = match body.transaction_reference {
            Some(r) => network_reference(r)?,
            None => format!("mock_{}", self.ports.ids.unique()),
        };
        Ok(Debit {
            card,
            amount,
            descriptor,
            mcc,
            channel: Some(channel),
            country: self::country(country)?,
            reference,
            currency: Some(currency),
            forced,
            reference_held: false,
            kind: TransactionKind::Debit,
            raises: None,
            deadline: None,
        })
    }
}

/// A debit's merchant descriptor, as the network sends it: 1 to 200
/// characters, none of them control characters.
pub(crate) fn descriptor(merchant: String) -> Result<String, InvalidInput> {
    domain::text::plain("merchant", &merchant, 200)?;
    Ok(merchant)
}

/// A debit's merchant category code: 4 digits, when given.
pub(crate) fn category(code: Option<String>) -> Result<Option<String>, InvalidInput> {
    match code {
        Some(code) if code.len() == 4 && code.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(code)),
        Some(_) => Err(InvalidInput::new("merchant_category_code", "must be 4 digits")),
        None => Ok(None),
    }
}

/// A debit's channel, when given: one of [`Channel::NAMES`].
pub(crate) fn channel(name: Option<&str>) -> Result<Option<Channel>, InvalidInput> {
    name.map(|n| Channel::parse("channel", n)).transpose()
}

/// A debit's merchant country, when given: ISO 3166-1 alpha-2.
pub(crate) fn country(code: Option<&str>) -> Result<Option<Country>, InvalidInput> {
    code.map(|c| Country::parse("merchant_country", c)).transpose()
}

/// A debit's reference: 1 to 100 characters, none of them control
/// characters.
pub(crate) fn network_reference(reference: String) -> Result<String, InvalidInput> {
    domain::text::reference(&reference)?;
    Ok(reference)
}

/// The `card_debit_event.*` of `debit` at `now`: declined for `reason`,
/// or approved (`None`); either with the merchant as the transaction
/// shows it (its category code, and its `enriched` data when recorded:
/// a 3-D Secure challenge that failed recorded none).
pub(crate) fn debit_payload(
    debit: &Debit,
    owner: (&AccountId, Mode),
    holder: (&CardholderId, Currency),
    issuer_reference: &str,
    (now, reason): (Timestamp, Option<DeclineReason>),
    enriched: Option<&str>,
) -> CardDebit {
    CardDebit {
        movement: debit_movement(debit, owner, holder, now),
        issuer_transaction_reference: issuer_reference.to_string(),
        description: Some(debit.descriptor.clone()),
        merchant_category_code: debit.mcc.clone(),
        enriched_data: enriched.and_then(|e| serde_json::from_str(e).ok()),
        decline_reason: reason.map(DeclineReason::text),
        decline_code: reason.map(DeclineReason::code),
    }
}

/// The money fields of an event about `debit` at `now`.
pub(crate) fn debit_movement(
    debit: &Debit,
    (account, mode): (&AccountId, Mode),
    (cardholder, currency): (&CardholderId, Currency),
    now: Timestamp,
) -> CardMovement {
    CardMovement {
        card_id: debit.card.to_string(),
        cardholder_id: cardholder.to_string(),
        amount: debit.amount.to_string(),
        currency: currency.code(),
        transaction_reference: debit.reference.clone(),
        livemode: mode.is_live(),
        issuing_app_id: account.to_string(),
        card_transaction_type: "DEBIT",
        transaction_date: now.gmt(),
        transaction_timestamp: now.unix(),
    }
}

/// `card_authorization_event.created` of an approved hold (or increment
/// of `raises`) holding `held` in all, from what its debit's approval
/// would have told.
fn hold_placed(approved: CardDebit, raises: Option<&Raises>, held: Option<Amount>) -> CardAuthorization {
    let mut movement = approved.movement;
    movement.card_transaction_type = match raises {
        Some(_) => "INCREMENT",
        None => "AUTHORIZATION",
    };
    let own = approved.issuer_transaction_reference;
    if let Some(raised) = raises {
        movement.transaction_reference = raised.reference.clone();
    }
    CardAuthorization {
        held_amount: held.map_or_else(|| movement.amount.clone(), |h| h.to_string()),
        movement,
        authorization_id: raises.map_or_else(|| own.clone(), |r| r.id.clone()),
        issuer_transaction_reference: raises.is_some().then_some(own),
        state: HoldState::Pending.as_str(),
        released_amount: None,
        released_to: None,
        description: approved.description.unwrap_or_default(),
        enriched_data: approved.enriched_data.unwrap_or_default(),
    }
}

/// A debit as the network presents it.
#[derive(Debug, Clone)]
pub(crate) struct Debit {
    pub card: CardId,
    pub amount: Amount,
    pub descriptor: String,
    pub mcc: Option<String>,
    pub channel: Option<Channel>,
    pub country: Option<Country>,
    pub reference: String,
    /// The currency the card must be in (the path's); `None`: any.
    pub currency: Option<Currency>,
    pub forced: bool,
    /// The reference was taken already, by the 3-D Secure challenge this
    /// debit completes.
    pub reference_held: bool,
    /// A debit, an authorization, or an increment of `raises`.
    pub kind: TransactionKind,
    pub raises: Option<Raises>,
    /// Recorded by then, or not at all (a gateway call's budget).
    pub deadline: Option<std::time::Instant>,
}

/// The authorization an increment raises: its issuer and network
/// references.
#[derive(Debug, Clone)]
pub(crate) struct Raises {
    pub id: String,
    pub reference: String,
}

impl App {
    /// Enriches, decides and records a debit with the events its outcome
    /// calls for.
    /// Returns the outcome and the issuer transaction reference.
    pub(crate) async fn post_debit(
        &self,
        account: &AccountId,
        mode: Mode,
        debit: Debit,
    ) -> Result<(DebitOutcome, String), CardError> {
        let _in_flight = self.money_requests.start();
        let record = async |stamp: Stamp| self.record_debit((account, mode), &debit, stamp).await;
        let moved = |e: &DebitError| matches!(e, DebitError::ClockMoved);
        let (outcome, id) = self.stamped((account, mode), record, moved).await?;
        if outcome.decision == Decision::Approve {
            self.after_approved_debit(account, mode, &outcome.cardholder_id).await;
        }
        Ok((outcome, id))
    }

    /// Enriches a debit stamped with `stamp` and records it with the
    /// events its outcome calls for.
    async fn record_debit(
        &self,
        (account, mode): (&AccountId, Mode),
        debit: &Debit,
        stamp: Stamp,
    ) -> Result<(DebitOutcome, String), DebitError> {
        let (account, debit, now) = (account.clone(), debit.clone(), stamp.clock.now);
        let merchant = self.ports.merchants.merchant(&debit.descriptor, debit.mcc.clone());
        let is_recurring = self
            .charged_each_of_last_two_months(&debit.card, &merchant.name, now)
            .await?;
        let id = format!("ctx_{}", self.ports.ids.unique());
        let (told, owner, issuer_reference) = (debit.clone(), (account.clone(), mode), id.clone());
        let enriched = enriched_data(&merchant, is_recurring, debit.mcc.as_deref());
        let told_enriched = enriched.clone();
        let payload = move |outcome: &DebitOutcome, reason: Option<DeclineReason>| {
            let holder = (&outcome.cardholder_id, outcome.currency);
            debit_payload(
                &told,
                (&owner.0, owner.1),
                holder,
                &issuer_reference,
                (now, reason),
                Some(&told_enriched),
            )
        };
        let held = debit.kind.holds().then(|| {
            let raises = debit.raises.clone();
            move |approved: CardDebit, held| hold_placed(approved, raises.as_ref(), held)
        });
        let event_ids = [self.ports.ids.unique(), self.ports.ids.unique()];
        let deliveries = event_ids.clone().map(|e| self.delivery_job(&EventId::with_suffix(&e)));
        let notices = {
            let account = account.clone();
            // Told once the card's lock is held: its cardholder, whether the
            // debit was approved or declined, and whether the card went
            // with it.
            move |outcome: &DebitOutcome| {
                let notice = |n: usize, event: Event| {
                    let stored = NewEvent {
                        id: EventId::with_suffix(&event_ids[n]),
                        account_id: account.clone(),
                        mode,
                        event: event.name(),
                        data: data_of(&event),
                        created_at: now,
                    };
                    (stored, deliveries[n].clone())
                };
                let reason = match (outcome.decision, &held) {
                    (Decision::Approve, None) => {
                        return vec![notice(0, Event::CardDebitSuccessful(payload(outcome, None)))];
                    }
                    (Decision::Approve, Some(hold)) => {
                        let placed = hold(payload(outcome, None), outcome.held);
                        return vec![notice(0, Event::CardAuthorizationCreated(placed))];
                    }
                    (Decision::Decline(reason), _) => reason,
                };
                let payload = payload(outcome, Some(reason));
                let deleted = outcome.card_deleted.then(|| {
                    let moved = &payload.movement;
                    let deleted = CardDeleted {
                        card_id: moved.card_id.clone(),
                        cardholder_id: moved.cardholder_id.clone(),
                        currency: moved.currency,
                        reason: reason.code().to_string(),
                        livemode: mode.is_live(),
                        issuing_app_id: moved.issuing_app_id.clone(),
                    };
                    notice(1, Event::CardDeleteSuccessful(deleted))
                });
                std::iter::once(notice(0, Event::CardDebitDeclined(payload)))
                    .chain(deleted)
                    .collect()
            }
        };
        let attempt = DebitAttempt {
            id: id.clone(),
            account_id: account,
            mode,
            card_id: debit.card,
            client_reference: debit.reference,
            currency: debit.currency,
            amount: debit.amount,
            rates: self.settings.fx_rates,
            merchant_name: merchant.name.clone(),
            // The network's code decides the controls' category, never
            // the descriptor, which the merchant writes.
            merchant_group: debit.mcc.as_deref().and_then(|c| self.ports.merchants.group_of(c)),
            channel: debit.channel,
            merchant_country: debit.country,
            enriched_data: enriched,
            description: debit.descriptor,
            merchant_category_code: debit.mcc,
            forced: debit.forced,
            reference_held: debit.reference_held,
            expiry: (debit.kind == TransactionKind::Authorization).then(|| {
                let expires = now.plus(self.settings.hold_secs);
                self.job_at(JobKind::ExpireAuthorization, id.clone(), stamp.clock, expires)
            }),
            kind: debit.kind,
            authorization_id: debit.raises.map(|r| r.id),
            now,
            clock_ahead_secs: stamp.checked_ahead_secs,
            deadline: debit.deadline,
        };
        let outcome = self.ports.card_transactions.debit(attempt, Box::new(notices)).await?;
        Ok((outcome, id))
    }

    /// Whether the merchant charged the card in each of the two calendar
    /// months before the month of `now`.
    async fn charged_each_of_last_two_months(
        &self,
        card: &CardId,
        merchant: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let months = [now.month_bounds(1), now.month_bounds(2)];
        self.ports
            .card_transactions
            .charged_in_each(card, merchant, months)
            .await
    }
}

/// The `enriched_data` object of a card transaction, as JSON text.
fn enriched_data(merchant: &Merchant, is_recurring: bool, mcc: Option<&str>) -> String {
    json!({
        "is_recurring": is_recurring,
        "merchant_city": merchant.city,
        "merchant_code": merchant.code.as_deref().or(mcc),
        "merchant_logo": merchant.logo,
        "merchant_name": merchant.name,
        "merchant_website": merchant.website,
        "transaction_category": merchant.category,
        "transaction_group": merchant.group,
    })
    .to_string()
}

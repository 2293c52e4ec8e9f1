//! The authorization lifecycle, as the sandbox simulates it (extensions,
//! as Stripe's test helpers do): `POST /sandbox/authorizations` places a
//! hold, decided like any debit; `.../{id}/increment` raises it (decided
//! too); `.../{id}/capture`, `.../{id}/reverse` and `.../{id}/expire` take
//! the steps of [`domain::cards::hold::settle`]; the job of
//! [`JobKind::ExpireAuthorization`] expires holds left uncaptured; and
//! `POST /sandbox/refunds` gives back (part of) a capture or a debit.

use super::CardError;
use super::debit::{Debit, MockDebit, Raises};
use super::give_back::GiveBack;
use crate::{App, Caller, RequestError};
use domain::cards::hold::{HoldMovement, HoldStep, TransactionKind, TransactionStatus};
use domain::cards::product::Product;
use domain::cards::reversal::ReversalKind;
use domain::events::payloads::{CardAuthorization, CardMovement, Event};
use domain::ids::{AccountId, CardId, EventId};
use domain::{Amount, InvalidInput, Mode, Timestamp, required};
use ports::card_transactions::{
    CardTransaction, HoldOutcome, HoldRequest, HoldSettled, Reference, ReversalOutcome, Reversed,
};

/// The body of a capture, a reversal or an increment.
#[derive(Debug, Clone, Default)]
pub struct HoldStepRequest {
    /// In the card's minor units: a capture's (what is held when absent),
    /// a reversal's (all that is held when absent), an increment's
    /// (required).
    pub amount: Option<String>,
    /// The network's reference of a reversal or an increment (applied
    /// once by it); made up when absent.
    pub reference: Option<String>,
}

/// The body of `POST /sandbox/refunds`.
#[derive(Debug, Clone, Default)]
pub struct SandboxRefund {
    /// The capture's or the debit's issuer reference.
    pub transaction_id: Option<String>,
    /// In the card's minor units; all that is left when absent.
    pub amount: Option<String>,
    /// The network's reference of the refund: applied once by it.
    pub refund_reference: Option<String>,
}

impl App {
    /// Places a sandbox hold on a card, decided as a debit is; answers
    /// with the authorization, declined ones included.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn create_authorization(&self, caller: &Caller, body: MockDebit) -> Result<CardTransaction, CardError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly.into());
        }
        // The card's currency; `currency`, if sent, must be it.
        let card = CardId::new(required(&body.card_id, "card_id")?);
        let currency = self.card(caller, &card).await?.currency;
        let debit = Debit {
            kind: TransactionKind::Authorization,
            ..self.sandbox_debit(caller, currency, body)?
        };
        let (_, id) = self.post_debit(&caller.account_id, caller.mode, debit).await?;
        self.transaction_of(caller, &id).await
    }

    /// Raises a pending sandbox authorization, decided as a debit of the
    /// increment is (its balance, limits and controls).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn increment_authorization(
        &self,
        caller: &Caller,
        id: &str,
        body: HoldStepRequest,
    ) -> Result<CardTransaction, CardError> {
        let authorization = self.authorization(caller, id).await?;
        let product = Product::of(authorization.currency);
        let amount = product.parse_debit_amount("amount", required(&body.amount, "amount")?)?;
        let reference = self.step_reference("reference", body.reference, "incr")?;
        let debit = Debit {
            card: authorization.card_id,
            amount,
            descriptor: authorization.description,
            mcc: authorization.merchant_category_code,
            channel: None,
            country: None,
            reference,
            currency: Some(authorization.currency),
            forced: false,
            reference_held: false,
            kind: TransactionKind::Increment,
            raises: Some(Raises {
                id: authorization.id,
                reference: authorization.client_reference,
            }),
            deadline: None,
        };
        // A deleted card's authorization takes no increment.
        let posted = self.post_debit(&caller.account_id, caller.mode, debit).await;
        let (_, id) = posted.map_err(|e| match e {
            CardError::CardNotFound => CardError::AuthorizationNotFound,
            e => e,
        })?;
        self.transaction_of(caller, &id).await
    }

    /// Captures, reverses or expires a pending sandbox authorization.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn step_authorization(
        &self,
        caller: &Caller,
        id: &str,
        step: StepKind,
        body: HoldStepRequest,
    ) -> Result<HoldSettled, CardError> {
        let authorization = self.authorization(caller, id).await?;
        // A sandbox reference is the account's own: applied once per account.
        let reference = self.step_reference("reference", body.reference, "rev")?;
        let reference = format!("{}/{reference}", caller.account_id);
        match self.take_step(&authorization, step, body.amount, reference).await? {
            HoldOutcome::Settled(settled) => Ok(*settled),
            HoldOutcome::NoSuchAuthorization => Err(CardError::AuthorizationNotFound),
            HoldOutcome::Refused(refusal) => Err(CardError::Hold(refusal)),
            HoldOutcome::AlreadyApplied => Err(CardError::ReferenceApplied("reference")),
        }
    }

    /// Captures the processor's authorization `reference` of a card of
    /// `mode` (`amount`: what is held when absent).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn processor_capture(
        &self,
        mode: Mode,
        (card, reference): (&str, &str),
        amount: Option<String>,
    ) -> Result<HoldOutcome, CardError> {
        // The body is judged before the card is read, whatever the card.
        let reference = super::debit::network_reference(reference.to_string())?;
        if let Some(amount) = &amount {
            Product::parse_any_debit_amount("amount", amount)?;
        }
        let Some(authorization) = self.processor_hold(mode, &CardId::new(card), &reference).await? else {
            return Ok(HoldOutcome::NoSuchAuthorization);
        };
        let reference = format!("cap_{}", self.ports.ids.unique());
        self.take_step(&authorization, StepKind::Capture, amount, reference)
            .await
    }

    /// The card's authorization (a hold, in any state) of the network's
    /// `reference`, if the card is of `mode`.
    pub(super) async fn processor_hold(
        &self,
        mode: Mode,
        card: &CardId,
        reference: &str,
    ) -> Result<Option<CardTransaction>, CardError> {
        let Some(state) = self.processor_card(mode, card).await? else {
            return Ok(None);
        };
        let found = self
            .ports
            .card_transactions
            .find(&state.account_id, mode, &Reference::Client(reference.to_string()))
            .await?;
        Ok(found.filter(|t| {
            t.kind == TransactionKind::Authorization && t.status != TransactionStatus::Declined && t.card_id == *card
        }))
    }

    /// Takes `step` of `authorization` for `amount`, a reversal once by
    /// `reference`.
    pub(super) async fn take_step(
        &self,
        authorization: &CardTransaction,
        step: StepKind,
        amount: Option<String>,
        reference: String,
    ) -> Result<HoldOutcome, CardError> {
        let product = Product::of(authorization.currency);
        let amount = amount
            .as_deref()
            .map(|a| product.parse_debit_amount("amount", a))
            .transpose()?;
        let step = match step {
            StepKind::Capture => HoldStep::Capture(amount),
            StepKind::Reverse => HoldStep::Reverse(amount),
            StepKind::Expire => HoldStep::Expire,
        };
        let owner = (&authorization.account_id, authorization.mode);
        self.settle_hold(owner, &authorization.id, step, reference).await
    }

    /// Expires the authorization `id` left uncaptured (the job's run);
    /// one that ended meanwhile stays as it is.
    pub(crate) async fn expire_authorization(
        &self,
        (account, mode): (&AccountId, Mode),
        id: &str,
    ) -> Result<(), String> {
        let reference = format!("exp_{id}");
        match self.settle_hold((account, mode), id, HoldStep::Expire, reference).await {
            Ok(HoldOutcome::Settled(_)) => Ok(()),
            Ok(outcome) => {
                tracing::info!(authorization = %id, outcome = ?outcome, "an authorization ended before its expiry");
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// Gives back (part of) a sandbox capture or debit, as the network's
    /// refund would.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn sandbox_refund(&self, caller: &Caller, body: SandboxRefund) -> Result<Reversed, CardError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly.into());
        }
        let id = required(&body.transaction_id, "transaction_id")?;
        let spent = self
            .ports
            .card_transactions
            .find(&caller.account_id, caller.mode, &Reference::Issuer(id.to_string()))
            .await?
            .filter(|t| matches!(t.kind, TransactionKind::Debit | TransactionKind::Capture))
            .filter(|t| t.status == TransactionStatus::Approved)
            .ok_or(CardError::NoSuchSpend)?;
        let amount = body
            .amount
            .as_deref()
            .map(|a| Product::of(spent.currency).parse_debit_amount("amount", a))
            .transpose()?;
        let reference = self.step_reference("refund_reference", body.refund_reference, "rfd")?;
        let state = self
            .processor_card(caller.mode, &spent.card_id)
            .await?
            .ok_or(CardError::CardNotFound)?;
        let back = GiveBack {
            id: format!("{}/{reference}", caller.account_id),
            told: reference,
            authorization: spent.client_reference,
            kind: ReversalKind::Refund,
            // A refund names what it gives back: never a void.
            amount: Some(amount.unwrap_or(Amount::MAX)),
        };
        match self.give_back(caller.mode, (spent.card_id, state), back).await? {
            ReversalOutcome::Credited(reversed) => Ok(*reversed),
            ReversalOutcome::AlreadyApplied => Err(CardError::ReferenceApplied("refund_reference")),
            ReversalOutcome::NothingLeft => Err(CardError::NothingLeft),
            ReversalOutcome::NoSuchDebit | ReversalOutcome::Voided => Err(CardError::NoSuchSpend),
        }
    }

    /// The network's reference of a step, sent as `field`, or one made up
    /// with `prefix`.
    fn step_reference(&self, field: &str, sent: Option<String>, prefix: &str) -> Result<String, InvalidInput> {
        match sent {
            Some(r) => {
                domain::text::plain(field, &r, domain::text::MAX_REFERENCE_LEN)?;
                Ok(r)
            }
            None => Ok(format!("{prefix}_{}", self.ports.ids.unique())),
        }
    }

    /// The caller's transaction `id`, as recorded.
    async fn transaction_of(&self, caller: &Caller, id: &str) -> Result<CardTransaction, CardError> {
        self.ports
            .card_transactions
            .find(&caller.account_id, caller.mode, &Reference::Issuer(id.to_string()))
            .await?
            .ok_or(CardError::TransactionNotFound)
    }

    /// The caller's sandbox authorization `id`.
    async fn authorization(&self, caller: &Caller, id: &str) -> Result<CardTransaction, CardError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly.into());
        }
        self.ports
            .card_transactions
            .find(&caller.account_id, caller.mode, &Reference::Issuer(id.to_string()))
            .await?
            .filter(|t| t.kind == TransactionKind::Authorization && t.status != TransactionStatus::Declined)
            .ok_or(CardError::AuthorizationNotFound)
    }

    /// Takes `step` of the authorization `id`, with the events it is told
    /// by.
    async fn settle_hold(
        &self,
        (account, mode): (&AccountId, Mode),
        id: &str,
        step: HoldStep,
        reference: String,
    ) -> Result<HoldOutcome, CardError> {
        let now = self.now_for(account, mode).await?;
        let event_id = EventId::with_suffix(&self.ports.ids.unique());
        let delivery = self.delivery_job(&event_id);
        let told = account.clone();
        let notices = move |settled: &HoldSettled| {
            let event = hold_event(settled, (&told, mode), now);
            let stored = ports::events::NewEvent {
                id: event_id.clone(),
                account_id: told.clone(),
                mode,
                event: event.name(),
                data: crate::events::data_of(&event),
                created_at: now,
            };
            vec![(stored, delivery.clone())]
        };
        let request = HoldRequest {
            account_id: account.clone(),
            mode,
            authorization_id: id.to_string(),
            step,
            capture_id: format!("ctx_{}", self.ports.ids.unique()),
            reversal: (format!("crv_{}", self.ports.ids.unique()), reference),
            now,
        };
        let outcome = self
            .ports
            .card_transactions
            .settle_hold(request, Box::new(notices))
            .await?;
        if let HoldOutcome::Settled(_) = outcome {
            self.work_queued();
        }
        Ok(outcome)
    }
}

/// Which step a sandbox call takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Capture,
    Reverse,
    Expire,
}

/// The `card_authorization_event.*` of a step.
fn hold_event(settled: &HoldSettled, (account, mode): (&AccountId, Mode), now: Timestamp) -> Event {
    let a = &settled.authorization;
    let m: &HoldMovement = &settled.movement;
    let (amount, kind) = match &settled.capture {
        Some(capture) => (capture.amount, "CAPTURE"),
        None => (m.released, "RELEASE"),
    };
    let released = (m.released > Amount::ZERO).then(|| m.released.to_string());
    let payload = CardAuthorization {
        movement: CardMovement {
            card_id: a.card_id.to_string(),
            cardholder_id: a.cardholder_id.to_string(),
            amount: amount.to_string(),
            currency: a.currency.code(),
            transaction_reference: a.client_reference.clone(),
            livemode: mode.is_live(),
            issuing_app_id: account.to_string(),
            card_transaction_type: kind,
            transaction_date: now.gmt(),
            transaction_timestamp: now.unix(),
        },
        authorization_id: a.id.clone(),
        issuer_transaction_reference: settled.capture.as_ref().map(|c| c.id.clone()),
        state: m.state.as_str(),
        held_amount: settled.held.to_string(),
        released_to: released.is_some().then(|| m.released_to.as_str()),
        released_amount: released,
        description: a.description.clone(),
        enriched_data: serde_json::from_str(&a.enriched_data).unwrap_or_default(),
    };
    use domain::cards::hold::HoldState::*;
    match (settled.capture.is_some(), m.state) {
        (true, _) => Event::CardAuthorizationCaptured(payload),
        (false, Expired) => Event::CardAuthorizationExpired(payload),
        (false, Pending | Reversed | Closed) => Event::CardAuthorizationReversed(payload),
    }
}

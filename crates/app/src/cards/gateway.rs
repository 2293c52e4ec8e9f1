//! `POST /v1/connectors/sudo/gateway`: a card processor's gateway funding
//! source asks, in real time, whether to approve an authorization and what
//! a card may spend. The processor's own connector authenticates and reads
//! the call and words the answer; the authorization engine of
//! `/v1/processor/authorizations` decides it, with the same rules, fees,
//! records, events and decline counting.

use super::CardError;
use super::give_back::GiveBack;
use super::processor::{AuthorizationRequest, Verdict};
use crate::App;
use domain::cards::CardBalance;
use domain::cards::authorization::DeclineReason;
use domain::cards::hold::TransactionStatus;
use domain::cards::state::DeletionReason;
use domain::ids::CardId;
use domain::{Amount, Currency, DomainError, ErrorKind, InvalidInput, Mode};
use ports::card_transactions::Reference;
use ports::cards::{ReserveError, RuleState};
use ports::processor_gateway::{
    GatewayAnswer, GatewayAuthorization, GatewayCall, GatewayCapture, GatewayGiveBack, GatewayRefused,
    ISSUER_UNAVAILABLE,
};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error(transparent)]
    Refused(#[from] GatewayRefused),
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error(transparent)]
    Card(#[from] CardError),
}

impl DomainError for GatewayError {
    fn kind(&self) -> ErrorKind {
        match self {
            GatewayError::Refused(e) => e.kind(),
            GatewayError::Invalid(_) => ErrorKind::InvalidRequest,
            GatewayError::Card(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            GatewayError::Refused(e) => e.code(),
            GatewayError::Invalid(e) => e.code(),
            GatewayError::Card(e) => e.code(),
        }
    }
}

impl App {
    /// Answers a gateway call: its HTTP status and body, in the
    /// processor's terms. A call without the mode's gateway credential is
    /// refused before its body is read.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn gateway_call(&self, authorization: Option<&str>, body: &[u8]) -> Result<(u16, Vec<u8>), GatewayError> {
        let deadline = Instant::now() + self.settings.gateway_budget;
        let gateway = &self.ports.gateway;
        let mode = gateway.authenticate(authorization)?;
        let answer = match gateway.read(body)? {
            GatewayCall::Authorization(authorization) => {
                let answer = self.gateway_authorization(mode, authorization, deadline).await?;
                if Instant::now() > deadline {
                    // Recorded before its budget ran out, committed after:
                    // the answer is the truth, late (reconciliation meets
                    // Sudo's own timeout decision).
                    metrics::counter!("issuing_gateway_budget_missed_total", "outcome" => "answered_late").increment(1);
                }
                answer
            }
            GatewayCall::Balance { card } => match self.spendable(mode, &card).await? {
                Some(spendable) => GatewayAnswer::Balance(spendable),
                None => GatewayAnswer::Declined("card_not_found"),
            },
            GatewayCall::GiveBack(call) => {
                self.gateway_give_back(mode, call).await?;
                GatewayAnswer::Acknowledged
            }
            GatewayCall::Captured(call) => {
                self.gateway_captured(mode, call).await?;
                GatewayAnswer::Acknowledged
            }
            GatewayCall::Terminated { card } => {
                self.gateway_terminated(mode, &card).await?;
                GatewayAnswer::Acknowledged
            }
            GatewayCall::Unusable(reason) => GatewayAnswer::Declined(reason),
            GatewayCall::Other => GatewayAnswer::Acknowledged,
        };
        Ok(gateway.reply(&answer))
    }

    /// Gives back what the processor says of a card it knows; of a card
    /// unknown here, or in another currency than the card's, nothing.
    async fn gateway_give_back(&self, mode: Mode, call: GatewayGiveBack) -> Result<(), CardError> {
        let Some((card, state)) = self.gateway_card(mode, &call.card).await? else {
            tracing::warn!(card = %call.card, reference = %call.id, "the processor gave back money of a card unknown here: nothing applied");
            return Ok(());
        };
        let amount = match call.amount {
            None => None,
            Some((amount, currency)) if currency == state.currency => Some(amount),
            Some(_) => {
                tracing::warn!(card = %card, reference = %call.id, "the processor gave back money in another currency than the card's: nothing applied");
                return Ok(());
            }
        };
        let back = GiveBack {
            told: call.id.clone(),
            id: call.id,
            authorization: call.authorization,
            kind: call.kind,
            amount,
        };
        self.give_back(mode, (card, state), back).await.map(drop)
    }

    /// Matches the capture the processor reports to the approval it
    /// captured: the approval took the money (the processor funded it
    /// then), so nothing moves; a capture of no approval here, or of
    /// another amount, is logged with the processor's ids to reconcile.
    async fn gateway_captured(&self, mode: Mode, call: GatewayCapture) -> Result<(), CardError> {
        let approval = match (&call.authorization, self.gateway_card(mode, &call.card).await?) {
            (Some(authorization), Some((card, state))) => {
                let reference = Reference::Client(authorization.clone());
                let found = self
                    .ports
                    .card_transactions
                    .transaction(&state.account_id, mode, &card, reference)
                    .await?;
                found.filter(|t| t.status == TransactionStatus::Approved)
            }
            _ => None,
        };
        let reported = call.amount.map(|(amount, currency)| (amount.minor(), currency.code()));
        match approval {
            None => tracing::warn!(
                processor_transaction = ?call.id,
                processor_card = %call.card,
                authorization = ?call.authorization,
                "the processor captured what no approval here took: nothing applied; reconcile by its ids"
            ),
            Some(t) if reported != Some((t.amount.minor(), t.currency.code())) => tracing::warn!(
                processor_transaction = ?call.id,
                transaction = %t.id,
                approved_minor = t.amount.minor(),
                captured = ?reported,
                "the processor captured another amount than its approval took: nothing applied; reconcile by its ids"
            ),
            Some(t) => {
                tracing::debug!(processor_transaction = ?call.id, transaction = %t.id, "capture matches its approval")
            }
        }
        Ok(())
    }

    /// Ends the card the processor terminated: its balance back to the
    /// wallet and its deletion event, once (a repeat, or a card deleted
    /// here already, changes nothing).
    async fn gateway_terminated(&self, mode: Mode, processor_card: &str) -> Result<(), CardError> {
        let Some((card, state)) = self.gateway_card(mode, processor_card).await? else {
            tracing::warn!(processor_card = %processor_card, "the processor terminated a card unknown here");
            return Ok(());
        };
        if state.deleted.is_none() {
            let whose = (&state.cardholder_id, state.currency);
            let reason = DeletionReason::ProcessorTerminated;
            self.delete_told((&state.account_id, mode), &card, whose, reason)
                .await?;
        }
        Ok(())
    }

    /// What the card of `mode` the processor knows as `processor_card`
    /// may spend: a USD card's balance less its held fee, a Naira card's
    /// balance, nothing once deleted.
    async fn spendable(&self, mode: Mode, processor_card: &str) -> Result<Option<Amount>, CardError> {
        let Some((id, state)) = self.gateway_card(mode, processor_card).await? else {
            return Ok(None);
        };
        let spendable = match self.ports.cards.get(&state.account_id, mode, &id).await? {
            Some(card) if card.currency == Currency::Usd => {
                CardBalance::new(card.balance, card.held, card.fee_hold).available
            }
            Some(card) => card.balance,
            None => 0,
        };
        Ok(Some(Amount::from_minor(spendable.max(0)).unwrap_or(Amount::MAX)))
    }

    /// The card of `mode` the processor knows as `processor_card`, and
    /// its rules state.
    pub(super) async fn gateway_card(
        &self,
        mode: Mode,
        processor_card: &str,
    ) -> Result<Option<(CardId, RuleState)>, CardError> {
        let Some(id) = self.ports.cards.by_processor_card(mode, processor_card).await? else {
            return Ok(None);
        };
        Ok(self.ports.cards.rule_state(&id).await?.map(|state| (id, state)))
    }

    async fn gateway_authorization(
        &self,
        mode: Mode,
        call: GatewayAuthorization,
        deadline: Instant,
    ) -> Result<GatewayAnswer, CardError> {
        let Some((id, state)) = self.gateway_card(mode, &call.card).await? else {
            return Ok(GatewayAnswer::Declined("card_not_found"));
        };
        if state.currency != call.currency {
            return Ok(GatewayAnswer::Declined("currency_mismatch"));
        }
        let request = AuthorizationRequest {
            card_id: id.to_string(),
            amount: call.amount.minor().to_string(),
            merchant: call.merchant,
            merchant_category_code: call.merchant_category_code,
            channel: call.channel.map(|c| c.as_str().to_string()),
            merchant_country: call.merchant_country.map(String::from),
            transaction_reference: call.id.clone(),
            force: false,
            three_ds: false,
            // Sudo's gateway funds the authorization when it approves: the
            // money leaves at once (docs/connectors.md).
            hold: false,
            deadline: Some(deadline),
        };
        // Noted before its debit is decided: reconciliation answers for a
        // debit of it even should Sudo never book it.
        let now = self.ports.clock.now();
        let asked = &self.ports.reconciliation;
        asked.gateway_asked(mode, &call.id, &call.card, now).await?;
        let reference = call.id.clone();
        let repeated = async || -> Result<Option<GatewayAnswer>, CardError> {
            // Sudo asked again (its answer was lost): the first decision
            // stands, for the same amount only, and nothing is debited
            // twice; once anything of it was given back, it is declined.
            let transactions = &self.ports.card_transactions;
            let first = transactions
                .transaction(&state.account_id, mode, &id, Reference::Client(reference.clone()))
                .await?;
            let Some(first) = first else {
                return Ok(None);
            };
            let stands = first.amount == call.amount && !transactions.given_back(&first.id).await?;
            Ok(Some(match stands {
                true => GatewayAnswer::Approved,
                false => GatewayAnswer::Declined("duplicate"),
            }))
        };
        match self.authorize(mode, request).await {
            Ok(answer) if answer.verdict == Verdict::Approve => Ok(GatewayAnswer::Approved),
            Ok(answer) if answer.reason_code == DeclineReason::CardDeleted.code() => {
                Ok(repeated().await?.unwrap_or(GatewayAnswer::Declined(answer.reason_code)))
            }
            Ok(answer) => {
                // A decline may have deleted the card (too many in a row):
                // Sudo is told, as after any deletion.
                let deleted = self
                    .ports
                    .cards
                    .rule_state(&id)
                    .await?
                    .is_some_and(|s| s.deleted.is_some());
                if deleted {
                    self.card_status_changed((&state.account_id, mode), &id).await?;
                }
                Ok(GatewayAnswer::Declined(answer.reason_code))
            }
            Err(CardError::Reserve(ReserveError::ReferenceUsed)) => {
                Ok(repeated().await?.unwrap_or(GatewayAnswer::Declined("duplicate")))
            }
            Err(CardError::Invalid(_)) => Ok(GatewayAnswer::Declined("invalid_amount")),
            // Not recorded within the budget, and never will be.
            Err(CardError::Store(e)) if e.is_deadline_missed() => {
                metrics::counter!("issuing_gateway_budget_missed_total", "outcome" => "declined").increment(1);
                tracing::warn!(reference = %reference, "a gateway authorization missed its budget: declined (91), nothing recorded");
                Ok(GatewayAnswer::Declined(ISSUER_UNAVAILABLE))
            }
            Err(e) => Err(e),
        }
    }
}

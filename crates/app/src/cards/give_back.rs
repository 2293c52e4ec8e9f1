//! A card processor gives back (part of) a debit it had us approve: a
//! refund, or the authorization declined in the end (it gave up waiting
//! for our answer). Applied once by the processor's id, in any order and
//! however often it is told; the card (or, the card gone or full, the
//! issuing wallet) is credited, and `card_reversal_event.successful`
//! tells the account (a refund, `card_refund_event.successful` too).

use super::CardError;
use crate::App;
use crate::events::data_of;
use domain::cards::reversal::ReversalKind;
use domain::cards::three_ds::ChallengeState;
use domain::events::payloads::{CardMovement, CardReversal, Event};
use domain::ids::CardId;
use domain::ids::EventId;
use domain::{Amount, Mode};
use ports::card_transactions::{NewReversal, ReversalOutcome, Reversed};
use ports::cards::RuleState;
use ports::events::NewEvent;

/// What a processor gives back of a debit of a card known here.
#[derive(Debug, Clone)]
pub struct GiveBack {
    /// The processor's id of this refund or reversal: applied once by it.
    pub id: String,
    /// The reference its events name: the processor's id, or the
    /// sandbox's `refund_reference` as the account sent it (its `id` is
    /// scoped by the account, as ids the processor makes are unique).
    pub told: String,
    /// The debit's reference (the processor's id of the authorization).
    pub authorization: String,
    pub kind: ReversalKind,
    /// In the card's minor units; `None`: all the authorization took (a
    /// void, which also refuses the debit should it come later).
    pub amount: Option<Amount>,
}

impl App {
    /// Applies what the processor gives back of a debit of `card`
    /// (`state`, its rules state, of `mode`); what cannot be applied (an
    /// unknown authorization, a debit given back in full) changes nothing
    /// and is logged.
    pub(super) async fn give_back(
        &self,
        mode: Mode,
        (card, state): (CardId, RuleState),
        call: GiveBack,
    ) -> Result<ReversalOutcome, CardError> {
        let account = state.account_id.clone();
        let now = self.now_for(&account, mode).await?;
        let event_ids = [(); 2].map(|_| EventId::with_suffix(&self.ports.ids.unique()));
        let deliveries = event_ids.clone().map(|id| self.delivery_job(&id));
        let (told_account, reference, kind) = (account.clone(), call.told.clone(), call.kind);
        let notices = move |reversed: &Reversed| {
            let debit = &reversed.debit;
            let payload = CardReversal {
                movement: CardMovement {
                    card_id: debit.card_id.to_string(),
                    cardholder_id: debit.cardholder_id.to_string(),
                    amount: reversed.amount.minor().to_string(),
                    currency: debit.currency.code(),
                    transaction_reference: debit.client_reference.clone(),
                    livemode: mode.is_live(),
                    issuing_app_id: told_account.to_string(),
                    card_transaction_type: kind.transaction_type(),
                    transaction_date: now.gmt(),
                    transaction_timestamp: now.unix(),
                },
                issuer_transaction_reference: debit.id.clone(),
                reversal_reference: reference.clone(),
                description: debit.description.clone(),
                enriched_data: serde_json::from_str(&debit.enriched_data).unwrap_or_default(),
                credited_to: reversed.to.as_str(),
            };
            // A refund is told as the original service tells it, and as
            // the lifecycle's extension names it.
            let refund = (kind == ReversalKind::Refund).then(|| Event::CardRefundSuccessful(payload.clone()));
            std::iter::once(Event::CardReversalSuccessful(payload))
                .chain(refund)
                .zip(event_ids.iter().zip(&deliveries))
                .map(|(event, (id, delivery))| {
                    let stored = NewEvent {
                        id: id.clone(),
                        account_id: told_account.clone(),
                        mode,
                        event: event.name(),
                        data: data_of(&event),
                        created_at: now,
                    };
                    (stored, delivery.clone())
                })
                .collect()
        };
        // A void of a challenge still waiting for its OTP declines it, as
        // its expiry would: its completion, if it comes, approves nothing.
        if call.amount.is_none() {
            let transactions = &self.ports.card_transactions;
            let waiting = transactions
                .challenge(&account, mode, &card, &call.authorization)
                .await?
                .filter(|c| c.state == ChallengeState::Pending);
            if let Some(challenge) = waiting
                && self.fail_challenge((&account, mode), challenge, now).await?
            {
                tracing::info!(card = %card, reference = %call.id, "the processor voided an authorization waiting for its 3-D Secure OTP: declined");
                return Ok(ReversalOutcome::Voided);
            }
        }
        let reversal = NewReversal {
            id: format!("crv_{}", self.ports.ids.unique()),
            account_id: account,
            mode,
            card_id: card.clone(),
            debit_reference: call.authorization,
            reference: call.id,
            kind: call.kind,
            asked: call.amount.unwrap_or(Amount::MAX),
            void: call.amount.is_none(),
            now,
        };
        let reference = reversal.reference.clone();
        let outcome = self
            .ports
            .card_transactions
            .reverse(reversal, Box::new(notices))
            .await?;
        match &outcome {
            ReversalOutcome::Credited(_) => self.work_queued(),
            ReversalOutcome::AlreadyApplied => {
                tracing::info!(card = %card, reference = %reference, "the processor gave back money already given back: nothing applied again");
            }
            ReversalOutcome::Voided => {
                tracing::info!(card = %card, reference = %reference, "the processor voided an authorization before its debit was recorded: none will be");
            }
            ReversalOutcome::NothingLeft | ReversalOutcome::NoSuchDebit => {
                tracing::warn!(card = %card, reference = %reference, outcome = ?outcome, "the processor gave back money of no debit left to give back: nothing applied");
            }
        }
        Ok(outcome)
    }
}

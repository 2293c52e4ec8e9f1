//! `POST /v1/processor/reversals`: the card processor gives back (part
//! of) an authorization it had approved, a reversal or a refund, applied
//! once by its own reference (as the live connectors' notifications are).

use super::CardError;
use super::debit::network_reference;
use super::give_back::GiveBack;
use super::holds::StepKind;
use crate::App;
use domain::cards::hold::{HoldState, TransactionStatus};
use domain::cards::product::Product;
use domain::cards::reversal::ReversalKind;
use domain::ids::CardId;
use domain::text::{MAX_REFERENCE_LEN, plain};
use domain::{InvalidInput, Mode};
use ports::card_transactions::{HoldOutcome, ReversalOutcome};

/// A reversal or refund, as the processor sends it.
#[derive(Debug, Clone)]
pub struct ReversalRequest {
    pub card_id: String,
    /// The authorization's `transaction_reference`.
    pub transaction_reference: String,
    /// The processor's reference of this reversal: applied once by it.
    pub reversal_reference: String,
    /// `reversal` (when absent) or `refund`.
    pub kind: Option<String>,
    /// In the card's minor units, as sent; absent: all the authorization
    /// took (a void, which refuses the authorization's debit if it is
    /// recorded later).
    pub amount: Option<String>,
}

/// What came of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReversalAnswer {
    /// `credited`, `released` (of a pending hold), `already_applied`,
    /// `nothing_left`, `voided`, `no_such_debit` or `card_not_found`.
    pub outcome: &'static str,
    /// What was credited, and where (`card` or `issuing_wallet`).
    pub credited: Option<(domain::Amount, &'static str)>,
}

impl App {
    /// Gives back what the processor says of an authorization of a card
    /// of the `mode` the call was signed for.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn reverse_authorization(
        &self,
        mode: Mode,
        request: ReversalRequest,
    ) -> Result<ReversalAnswer, CardError> {
        let kind = match request.kind.as_deref().map(str::trim) {
            None => ReversalKind::Reversal,
            Some(kind) => {
                ReversalKind::parse(kind).ok_or_else(|| InvalidInput::new("kind", "must be reversal or refund"))?
            }
        };
        let reversal_reference = request.reversal_reference;
        plain("reversal_reference", &reversal_reference, MAX_REFERENCE_LEN)?;
        let authorization = network_reference(request.transaction_reference)?;
        // The body is judged before the card is read, whatever the card.
        if let Some(amount) = &request.amount {
            Product::parse_any_debit_amount("amount", amount)?;
        }
        let card = CardId::new(request.card_id);
        let Some(state) = self.processor_card(mode, &card).await? else {
            return Ok(ReversalAnswer {
                outcome: "card_not_found",
                credited: None,
            });
        };
        // A reversal of a hold still pending releases it; of a captured
        // one (or of a debit), it gives back what was spent. A hold that
        // ended between the read and the card's lock falls through.
        let release = async || -> Result<Option<ReversalAnswer>, CardError> {
            let Some(hold) = self.processor_hold(mode, &card, &authorization).await? else {
                return Ok(None);
            };
            if hold.status != TransactionStatus::Hold(HoldState::Pending) {
                return Ok(None);
            }
            let step = self.take_step(
                &hold,
                StepKind::Reverse,
                request.amount.clone(),
                reversal_reference.clone(),
            );
            Ok(match step.await? {
                HoldOutcome::Settled(s) => Some(ReversalAnswer {
                    outcome: "released",
                    credited: Some((s.movement.released, s.movement.released_to.as_str())),
                }),
                HoldOutcome::AlreadyApplied => Some(ReversalAnswer {
                    outcome: "already_applied",
                    credited: None,
                }),
                HoldOutcome::Refused(_) | HoldOutcome::NoSuchAuthorization => None,
            })
        };
        if kind == ReversalKind::Reversal
            && let Some(answer) = release().await?
        {
            return Ok(answer);
        }
        let amount = match &request.amount {
            Some(amount) => Some(Product::of(state.currency).parse_debit_amount("amount", amount)?),
            None => None,
        };
        let back = GiveBack {
            told: reversal_reference.clone(),
            id: reversal_reference.clone(),
            authorization: authorization.clone(),
            kind,
            amount,
        };
        let (outcome, credited) = match self.give_back(mode, (card.clone(), state), back).await? {
            ReversalOutcome::Credited(reversed) => ("credited", Some((reversed.amount, reversed.to.as_str()))),
            ReversalOutcome::AlreadyApplied => ("already_applied", None),
            ReversalOutcome::NothingLeft => ("nothing_left", None),
            // A hold recorded while this waited (its batch held the
            // reference this void claims) is pending now: released.
            ReversalOutcome::NoSuchDebit if kind == ReversalKind::Reversal => match release().await? {
                Some(answer) => return Ok(answer),
                None => ("no_such_debit", None),
            },
            ReversalOutcome::NoSuchDebit => ("no_such_debit", None),
            ReversalOutcome::Voided => ("voided", None),
        };
        Ok(ReversalAnswer { outcome, credited })
    }
}

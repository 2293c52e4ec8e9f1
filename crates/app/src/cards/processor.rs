//! `POST /v1/processor/authorizations`: the card processor asks, in real
//! time, whether to approve a debit. The same engine and records as the
//! sandbox's mock debit decide it; the processor authenticates with an
//! HMAC of the body under the processor secret.

use super::CardError;
use super::debit::Debit;
use crate::App;
use domain::Mode;
use domain::cards::authorization::{Decision, DeclineReason};
use domain::cards::product::Product;
use domain::ids::CardId;
use ports::processor_auth::ProcessorAuthError;

/// An authorization request, as the processor sends it.
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    pub card_id: String,
    /// In the card's minor units, as sent: bounded by the card's product.
    pub amount: String,
    pub merchant: String,
    pub merchant_category_code: Option<String>,
    /// The network's reference, unique per account and mode.
    pub transaction_reference: String,
    pub force: bool,
}

/// The answer: approve, or decline with a reason code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationAnswer {
    pub approved: bool,
    pub reason_code: &'static str,
    pub reason: &'static str,
    /// The recorded transaction, when one was recorded.
    pub issuer_transaction_reference: Option<String>,
}

impl AuthorizationAnswer {
    fn declined(code: &'static str, reason: &'static str) -> Self {
        Self {
            approved: false,
            reason_code: code,
            reason,
            issuer_transaction_reference: None,
        }
    }
}

impl App {
    /// Checks the processor's signature over the raw body; answers the
    /// mode of the cards the call may debit.
    pub fn verify_processor(&self, signature: Option<String>, body: &[u8]) -> Result<Mode, ProcessorAuthError> {
        self.ports
            .processor_auth
            .verify(signature, body, self.ports.clock.now())
    }

    /// Decides an authorization for whichever account holds the card, if
    /// the card is of the `mode` the call was signed for.
    pub async fn authorize(&self, mode: Mode, request: AuthorizationRequest) -> Result<AuthorizationAnswer, CardError> {
        let card = CardId::new(request.card_id);
        let state = self.ports.cards.rule_state(&card).await?;
        let Some(state) = state.filter(|s| s.mode == mode) else {
            return Ok(AuthorizationAnswer::declined("card_not_found", "No card with this id"));
        };
        if state.deleted.is_some() {
            let reason = DeclineReason::CardDeleted;
            return Ok(AuthorizationAnswer::declined(reason.code(), reason.text()));
        }
        let amount = Product::of(state.currency).parse_debit_amount("amount", &request.amount)?;
        let debit = Debit {
            card,
            amount,
            descriptor: request.merchant,
            mcc: request.merchant_category_code,
            reference: request.transaction_reference,
            currency: None,
            forced: request.force,
            reference_held: false,
        };
        let (outcome, id) = self.post_debit(&state.account_id, state.mode, debit).await?;
        Ok(match outcome.decision {
            Decision::Approve => AuthorizationAnswer {
                approved: true,
                reason_code: "approved",
                reason: "Approved",
                issuer_transaction_reference: Some(id),
            },
            Decision::Decline(reason) => AuthorizationAnswer {
                approved: false,
                reason_code: reason.code(),
                reason: reason.text(),
                issuer_transaction_reference: Some(id),
            },
        })
    }
}

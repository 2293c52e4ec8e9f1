//! `POST /v1/processor/authorizations`: the card processor asks, in real
//! time, whether to approve a debit. The same engine and records as the
//! sandbox's mock debit decide it; the processor authenticates with an
//! HMAC of the body under the processor secret. A Naira card debit the
//! network asks 3-D Secure for waits as a challenge until
//! `POST /v1/processor/authorizations/complete_3ds` brings its OTP.

use super::debit::{Debit, category, channel, country, descriptor, network_reference};
use super::{CardError, ChallengeAnswer};
use crate::App;
use domain::cards::authorization::{Decision, DeclineReason};
use domain::cards::hold::TransactionKind;
use domain::cards::product::Product;
use domain::cards::three_ds;
use domain::ids::CardId;
use domain::{InvalidInput, Mode};
use ports::cards::RuleState;
use ports::processor_auth::ProcessorAuthError;

/// An authorization request, as the processor sends it.
#[derive(Debug, Clone)]
pub struct AuthorizationRequest {
    pub card_id: String,
    /// In the card's minor units, as sent: bounded by the card's product.
    pub amount: String,
    pub merchant: String,
    pub merchant_category_code: Option<String>,
    /// `online`, `pos`, `atm` or `contactless`, when the network says.
    pub channel: Option<String>,
    /// ISO 3166-1 alpha-2, when the network says.
    pub merchant_country: Option<String>,
    /// The network's reference, unique per account and mode.
    pub transaction_reference: String,
    pub force: bool,
    /// The network asks for 3-D Secure (Naira cards): the debit waits for
    /// the cardholder's OTP instead of posting.
    pub three_ds: bool,
    /// Place a hold, captured later (`/v1/processor/captures`), instead
    /// of a debit.
    pub hold: bool,
    /// The gateway's budget runs out then: a debit that cannot be
    /// recorded by then is not recorded at all.
    pub deadline: Option<std::time::Instant>,
}

/// What the processor is told to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Approve,
    Decline,
    /// Ask the cardholder for the OTP, then complete the authorization.
    Challenge,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approve => "approve",
            Verdict::Decline => "decline",
            Verdict::Challenge => "challenge",
        }
    }
}

/// The answer: approve, decline with a reason code, or challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationAnswer {
    pub verdict: Verdict,
    pub reason_code: &'static str,
    pub reason: &'static str,
    /// The recorded transaction, when one was recorded.
    pub issuer_transaction_reference: Option<String>,
    /// After a wrong OTP: how many more the challenge takes.
    pub otp_attempts_left: Option<u32>,
}

impl AuthorizationAnswer {
    fn declined(code: &'static str, reason: &'static str) -> Self {
        Self::plain(Verdict::Decline, code, reason)
    }

    /// An answer with no transaction recorded.
    fn plain(verdict: Verdict, code: &'static str, reason: &'static str) -> Self {
        Self {
            verdict,
            reason_code: code,
            reason,
            issuer_transaction_reference: None,
            otp_attempts_left: None,
        }
    }

    fn decided(decision: Decision, id: String) -> Self {
        let (verdict, code, reason) = match decision {
            Decision::Approve => (Verdict::Approve, "approved", "Approved"),
            Decision::Decline(reason) => (Verdict::Decline, reason.code(), reason.text()),
        };
        Self {
            issuer_transaction_reference: Some(id),
            ..Self::plain(verdict, code, reason)
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

    /// The card `id`'s rules state if it is of `mode`.
    pub(super) async fn processor_card(&self, mode: Mode, id: &CardId) -> Result<Option<RuleState>, CardError> {
        let state = self.ports.cards.rule_state(id).await?;
        Ok(state.filter(|s| s.mode == mode))
    }

    /// Decides an authorization for whichever account holds the card, if
    /// the card is of the `mode` the call was signed for; with
    /// `three_ds`, opens its challenge instead.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn authorize(&self, mode: Mode, request: AuthorizationRequest) -> Result<AuthorizationAnswer, CardError> {
        // The body is judged before the card is read: an invalid one is
        // 400 whatever the card, never a `card_not_found` decline.
        Product::parse_any_debit_amount("amount", &request.amount)?;
        let channel = channel(request.channel.as_deref())?;
        if request.hold && (request.three_ds || request.force) {
            let rule = "is not taken with three_ds or force: a challenged or forced post is a debit";
            return Err(InvalidInput::new("hold", rule).into());
        }
        let descriptor = descriptor(request.merchant)?;
        let mcc = category(request.merchant_category_code)?;
        let country = country(request.merchant_country.as_deref())?;
        let reference = network_reference(request.transaction_reference)?;
        let card = CardId::new(request.card_id);
        let Some(state) = self.processor_card(mode, &card).await? else {
            return Ok(AuthorizationAnswer::declined("card_not_found", "No card with this id"));
        };
        if state.deleted.is_some() {
            let reason = DeclineReason::CardDeleted;
            return Ok(AuthorizationAnswer::declined(reason.code(), reason.text()));
        }
        let amount = Product::of(state.currency).parse_debit_amount("amount", &request.amount)?;
        if request.three_ds {
            three_ds::may_challenge(state.currency, request.force, channel)?;
        }
        let debit = Debit {
            card,
            amount,
            descriptor,
            mcc,
            channel,
            country,
            reference,
            currency: None,
            forced: request.force,
            reference_held: false,
            kind: match request.hold {
                true => TransactionKind::Authorization,
                false => TransactionKind::Debit,
            },
            raises: None,
            deadline: request.deadline,
        };
        if request.three_ds {
            self.open_challenge((&state.account_id, state.mode), debit).await?;
            let reason = "Ask the cardholder for the OTP, then complete the authorization";
            return Ok(AuthorizationAnswer::plain(
                Verdict::Challenge,
                "three_ds_required",
                reason,
            ));
        }
        match self.post_debit(&state.account_id, state.mode, debit).await {
            Ok((outcome, id)) => Ok(AuthorizationAnswer::decided(outcome.decision, id)),
            // Deleted since it was read (by a concurrent debit's decline).
            Err(CardError::CardNotFound) => {
                let reason = DeclineReason::CardDeleted;
                Ok(AuthorizationAnswer::declined(reason.code(), reason.text()))
            }
            Err(e) => Err(e),
        }
    }

    /// Completes a challenged authorization with the OTP the cardholder
    /// gave: approve or decline as the engine decides, decline after the
    /// last wrong OTP or past the challenge's five minutes, or challenge
    /// again with the attempts left.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn complete_authorization(
        &self,
        mode: Mode,
        (card_id, reference, otp): (&str, &str, &str),
    ) -> Result<AuthorizationAnswer, CardError> {
        let card = CardId::new(card_id);
        let state = self.processor_card(mode, &card).await?.ok_or(CardError::CardNotFound)?;
        let holder = (&state.account_id, state.mode, &state.cardholder_id);
        Ok(match self.answer_challenge(holder, &card, reference, otp).await? {
            ChallengeAnswer::Decided { decision, id } => AuthorizationAnswer::decided(decision, id),
            ChallengeAnswer::Wrong { attempts_left } => AuthorizationAnswer {
                otp_attempts_left: Some(attempts_left),
                ..AuthorizationAnswer::plain(Verdict::Challenge, "wrong_otp", "The OTP is wrong")
            },
        })
    }
}

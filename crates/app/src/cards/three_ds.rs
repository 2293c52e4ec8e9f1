//! 3-D Secure on Naira cards: `mock_debit_naira_card` with `three_ds`, or
//! a processor authorization asking for it, opens a challenge instead of
//! posting, and `3d_secure_otp_event.generated` gives its first OTP; the
//! relay's `GET /naira_cards/get_otp_message` issues a new one (each
//! stored only as a keyed hash, the last issued counting); `POST /sandbox/naira_cards/complete_3ds`,
//! or the processor's `POST /v1/processor/authorizations/complete_3ds`,
//! answers it. A right OTP in time
//! posts the debit through the authorization engine; three wrong ones, or
//! its expiry (a job, at the end of its five minutes on the mode's clock),
//! decline it with `card_debit_event.declined`.

use super::CardError;
use super::debit::{Debit, debit_movement, debit_payload};
use crate::{App, Caller};
use domain::cards::authorization::{Decision, DeclineReason};
use domain::cards::hold::TransactionKind;
use domain::cards::spending_controls::Channel;
use domain::cards::three_ds::{self, Attempt, CHALLENGE_SECS, ChallengeState, OtpAnswer};
use domain::events::payloads::{Event, ThreeDsOtp};
use domain::ids::{AccountId, CardId, CardholderId};
use domain::{Amount, Currency, InvalidInput, Mode, Secret, Timestamp, required};
use ports::StoreError;
use ports::card_transactions::Challenge;
use ports::jobs::JobKind;

/// The debit a challenge holds back; the challenge took its reference.
fn held_debit(challenge: Challenge) -> Debit {
    Debit {
        card: challenge.card_id,
        amount: challenge.amount,
        descriptor: challenge.descriptor,
        mcc: challenge.merchant_category_code,
        // 3-D Secure is the cardholder paying online.
        channel: Some(Channel::Online),
        country: challenge.merchant_country,
        reference: challenge.reference,
        currency: Some(Currency::Ngn),
        forced: false,
        reference_held: true,
        kind: TransactionKind::Debit,
        raises: None,
        deadline: None,
    }
}

/// What an OTP did to its challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeAnswer {
    /// The right OTP in time: the engine decided the debit (`id` is the
    /// recorded transaction). Or the last wrong one, or a late one:
    /// declined, `three_ds_failed` (`id` is the challenge).
    Decided { decision: Decision, id: String },
    /// Wrong; the challenge waits for another.
    Wrong { attempts_left: u32 },
}

impl App {
    /// Opens the challenge of `debit` on a Naira card of `account` and
    /// `mode` the caller checked: nothing posts until its OTP is answered.
    pub(crate) async fn open_challenge(
        &self,
        (account, mode): (&AccountId, Mode),
        debit: Debit,
    ) -> Result<(), CardError> {
        let clock = self.clock_for(account, mode).await?;
        let now = clock.now;
        let expires_at = now.plus(CHALLENGE_SECS);
        let subject = format!("{} {}", debit.card, debit.reference);
        let expiry = self.job_at(JobKind::ExpireChallenge, subject, clock, expires_at);
        let cardholder = self
            .ports
            .cards
            .rule_state(&debit.card)
            .await?
            .ok_or(CardError::CardNotFound)?;
        let id = format!("tds_{}", self.ports.ids.unique());
        // Its first OTP, told by webhook; the relay issues others.
        let otp = three_ds::otp(self.ports.ids.fraction());
        let holder = (&cardholder.cardholder_id, Currency::Ngn);
        let told = Event::ThreeDsOtpGenerated(ThreeDsOtp {
            movement: debit_movement(&debit, (account, mode), holder, now),
            description: debit.descriptor.clone(),
            otp: otp.clone(),
            expires_at: expires_at.unix(),
        });
        let event = self.new_event_at(account, mode, told, now);
        let delivery = self.delivery_job(&event.id);
        let challenge = Challenge {
            otp_hash: Some(self.ports.vault.keyed_hash(&otp, &id)),
            id,
            account_id: account.clone(),
            mode,
            card_id: debit.card,
            amount: debit.amount,
            reference: debit.reference,
            descriptor: debit.descriptor,
            merchant_category_code: debit.mcc,
            merchant_country: debit.country,
            failed_attempts: 0,
            created_at: now,
            expires_at,
            state: ChallengeState::Pending,
        };
        self.ports
            .card_transactions
            .open_challenge(challenge, expiry, (event, delivery))
            .await?;
        self.work_queued();
        Ok(())
    }

    /// A fresh OTP for the card's pending challenge of exactly `amount`
    /// kobo (the last one read is the one that counts); `NoPendingOtp`
    /// otherwise, for an amount of 0 too.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_otp_message(
        &self,
        caller: &Caller,
        card: &CardId,
        amount: &str,
    ) -> Result<Secret<String>, CardError> {
        let amount = Amount::parse_positive("amount", amount).map_err(|_| CardError::NoPendingOtp)?;
        self.card_in(caller, card, Currency::Ngn).await?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let challenge = self
            .ports
            .card_transactions
            .challenge_for_amount(&caller.account_id, caller.mode, card, amount, now)
            .await?
            .ok_or(CardError::NoPendingOtp)?;
        let otp = three_ds::otp(self.ports.ids.fraction());
        self.ports
            .card_transactions
            .set_challenge_otp(&challenge.id, &self.ports.vault.keyed_hash(&otp, &challenge.id))
            .await?;
        Ok(Secret::new(otp))
    }

    /// Answers the caller's challenge `reference` on its Naira card with
    /// `otp` (sandbox; live challenges are answered by the processor).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn complete_3ds(
        &self,
        caller: &Caller,
        (card_id, reference, otp): (&Option<String>, &Option<String>, &Option<String>),
    ) -> Result<(CardId, String), CardError> {
        if caller.mode != Mode::Test {
            return Err(CardError::Request(crate::RequestError::SandboxOnly));
        }
        let card = CardId::new(required(card_id, "card_id")?);
        let reference = required(reference, "transaction_reference")?;
        let otp = required(otp, "otp")?;
        let owner = self.card_in(caller, &card, Currency::Ngn).await?;
        let holder = (&caller.account_id, caller.mode, &owner.cardholder_id);
        match self.answer_challenge(holder, &card, reference, otp).await? {
            ChallengeAnswer::Decided { decision, .. } => match decision {
                Decision::Approve => Ok((card, reference.to_string())),
                Decision::Decline(reason) => Err(CardError::Declined(reason)),
            },
            ChallengeAnswer::Wrong { attempts_left } => Err(CardError::WrongOtp(attempts_left)),
        }
    }

    /// Answers the challenge `reference` on `card` (of `account` and
    /// `mode`, held by `cardholder`) with `otp`: the domain decides the
    /// attempt; a right one posts the debit, the failing one reports it
    /// declined.
    pub(crate) async fn answer_challenge(
        &self,
        (account, mode, cardholder): (&AccountId, Mode, &CardholderId),
        card: &CardId,
        reference: &str,
        otp: &str,
    ) -> Result<ChallengeAnswer, CardError> {
        let challenge = self
            .ports
            .card_transactions
            .challenge(account, mode, card, reference)
            .await?
            .filter(|c| c.state == ChallengeState::Pending)
            .ok_or(CardError::ChallengeNotFound)?;
        let now = self.now_for(account, mode).await?;
        let failed = challenge.failed_attempts;
        // A card deleted while its challenge waited takes no debit.
        let deleted = self
            .ports
            .cards
            .rule_state(card)
            .await?
            .is_none_or(|s| s.deleted.is_some());
        let expected = challenge.otp_hash.as_deref();
        let attempt = Attempt {
            card_deleted: deleted,
            right: expected.is_some_and(|hash| hash == self.ports.vault.keyed_hash(otp, &challenge.id)),
            failed_attempts: failed,
            expires_at: challenge.expires_at,
        };
        let answer = three_ds::answer(attempt, now);
        let next = answer.next(failed);
        // Conditional on what was read: of two answers at once, one counts.
        if !self
            .ports
            .card_transactions
            .decide_challenge(&challenge.id, failed, next)
            .await?
        {
            return Err(InvalidInput::new(
                "otp",
                "another answer to this challenge came first; read the challenge again",
            )
            .into());
        }
        let (id, debit) = (challenge.id.clone(), held_debit(challenge));
        Ok(match answer {
            OtpAnswer::Complete => {
                let (outcome, id) = self.post_debit(account, mode, debit).await?;
                ChallengeAnswer::Decided {
                    decision: outcome.decision,
                    id,
                }
            }
            OtpAnswer::Wrong { attempts_left } => ChallengeAnswer::Wrong { attempts_left },
            OtpAnswer::Fail(reason) => {
                let failed = (id.as_str(), cardholder, now);
                self.report_failed_challenge((account, mode), &debit, failed, reason)
                    .await?;
                ChallengeAnswer::Decided {
                    decision: Decision::Decline(reason),
                    id,
                }
            }
        })
    }

    /// The expiry job of a challenge (`<card id> <reference>`): declines it
    /// if it is still unanswered. `Err` carries why the attempt failed, for
    /// the job to retry on.
    pub(crate) async fn expire_challenge(
        &self,
        (account, mode): (&AccountId, Mode),
        subject: &str,
    ) -> Result<(), String> {
        let Some((card, reference)) = subject.split_once(' ') else {
            return Err(format!("an expiry job's subject is not <card> <reference>: {subject}"));
        };
        let card = CardId::new(card);
        self.expire(account, mode, &card, reference)
            .await
            .map_err(|e| e.to_string())
    }

    async fn expire(&self, account: &AccountId, mode: Mode, card: &CardId, reference: &str) -> Result<(), StoreError> {
        let transactions = &self.ports.card_transactions;
        let Some(challenge) = transactions.challenge(account, mode, card, reference).await? else {
            return Ok(());
        };
        let now = self.now_for(account, mode).await?;
        if challenge.state != ChallengeState::Pending || now < challenge.expires_at {
            return Ok(());
        }
        self.fail_challenge((account, mode), challenge, now).await.map(drop)
    }

    /// Declines a challenge seen pending (expired, or voided by the
    /// processor) and reports it; false when an answer decided it first.
    pub(super) async fn fail_challenge(
        &self,
        (account, mode): (&AccountId, Mode),
        challenge: Challenge,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let failed = challenge.failed_attempts;
        let next = (ChallengeState::Failed, failed);
        if !self
            .ports
            .card_transactions
            .decide_challenge(&challenge.id, failed, next)
            .await?
        {
            return Ok(false);
        }
        let Some(state) = self.ports.cards.rule_state(&challenge.card_id).await? else {
            return Ok(true);
        };
        let (id, debit) = (challenge.id.clone(), held_debit(challenge));
        let failed = (id.as_str(), &state.cardholder_id, now);
        self.report_failed_challenge((account, mode), &debit, failed, DeclineReason::ThreeDsFailed)
            .await?;
        Ok(true)
    }

    /// `card_debit_event.declined` for a failed challenge (`three_ds_failed`,
    /// or `card_deleted`).
    async fn report_failed_challenge(
        &self,
        (account, mode): (&AccountId, Mode),
        debit: &Debit,
        (challenge, cardholder, now): (&str, &CardholderId, Timestamp),
        reason: DeclineReason,
    ) -> Result<(), StoreError> {
        let reason = (now, Some(reason));
        let owner = (account, mode);
        let payload = debit_payload(debit, owner, (cardholder, Currency::Ngn), challenge, reason, None);
        self.emit(account, mode, Event::CardDebitDeclined(payload)).await?;
        Ok(())
    }
}

//! 3-D Secure on Naira cards: `mock_debit_naira_card` with `three_ds`
//! opens a challenge instead of posting; the relay's
//! `GET /naira_cards/get_otp_message` reads its OTP (stored only hashed);
//! `POST /sandbox/naira_cards/complete_3ds` answers it. A right OTP in time
//! posts the debit through the authorization engine; three wrong ones, or
//! its expiry (a job, at the end of its five minutes on the mode's clock),
//! decline it with `card_debit_event.declined`.

use super::CardError;
use super::debit::{Debit, declined_payload};
use crate::{App, Caller};
use domain::cards::authorization::{Decision, DeclineReason};
use domain::cards::three_ds::{self, CHALLENGE_SECS, ChallengeState, OtpAnswer};
use domain::events::payloads::Event;
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
        reference: challenge.reference,
        currency: Some(Currency::Ngn),
        forced: false,
        reference_held: true,
    }
}

/// How a sandbox debit ended: posted and approved, or waiting for its OTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    Approved,
    AwaitingOtp,
}

impl App {
    /// Opens the challenge of `debit` on the caller's Naira card: nothing
    /// posts until its OTP is answered.
    pub(crate) async fn open_challenge(&self, caller: &Caller, debit: Debit) -> Result<(), CardError> {
        let clock = self.clock_for(&caller.account_id, caller.mode).await?;
        let now = clock.now;
        let expires_at = now.plus(CHALLENGE_SECS);
        let subject = format!("{} {}", debit.card, debit.reference);
        let expiry = self.job_at(JobKind::ExpireChallenge, subject, clock, expires_at);
        let challenge = Challenge {
            id: format!("tds_{}", self.ports.ids.unique()),
            account_id: caller.account_id.clone(),
            mode: caller.mode,
            card_id: debit.card,
            amount: debit.amount,
            reference: debit.reference,
            descriptor: debit.descriptor,
            merchant_category_code: debit.mcc,
            failed_attempts: 0,
            created_at: now,
            expires_at,
            state: ChallengeState::Pending,
            otp_hash: None,
        };
        self.ports
            .card_transactions
            .open_challenge(challenge, expiry)
            .await
            .map_err(CardError::from)
    }

    /// A fresh OTP for the card's pending challenge of exactly `amount`
    /// kobo (the last one read is the one that counts); `NoPendingOtp`
    /// otherwise, for an amount of 0 too.
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
            .set_challenge_otp(&challenge.id, &self.ports.vault.lookup_hash(&otp))
            .await?;
        Ok(Secret::new(otp))
    }

    /// Answers the card's challenge `reference` with `otp` (sandbox; the
    /// network answers live challenges itself).
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
        let challenge = self
            .ports
            .card_transactions
            .challenge(&caller.account_id, caller.mode, &card, reference)
            .await?
            .filter(|c| c.state == ChallengeState::Pending)
            .ok_or_else(|| {
                InvalidInput::new(
                    "transaction_reference",
                    "no 3-D Secure challenge awaits an OTP under this reference",
                )
            })?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let right = challenge.otp_hash.as_deref() == Some(self.ports.vault.lookup_hash(otp).as_str());
        let failed = challenge.failed_attempts;
        let answer = three_ds::answer(right, failed, challenge.expires_at, now);
        let next = match answer {
            OtpAnswer::Complete => (ChallengeState::Completed, failed),
            OtpAnswer::Wrong { .. } => (ChallengeState::Pending, failed.saturating_add(1)),
            OtpAnswer::Fail => (ChallengeState::Failed, failed.saturating_add(1)),
        };
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
        match answer {
            OtpAnswer::Complete => {
                let (outcome, _) = self.post_debit(&caller.account_id, caller.mode, debit.clone()).await?;
                match outcome.decision {
                    Decision::Approve => Ok((card, debit.reference)),
                    Decision::Decline(reason) => Err(CardError::Declined(reason)),
                }
            }
            OtpAnswer::Wrong { attempts_left } => {
                let attempts = if attempts_left == 1 { "attempt" } else { "attempts" };
                Err(InvalidInput::new("otp", format!("is wrong; {attempts_left} {attempts} left")).into())
            }
            OtpAnswer::Fail => {
                let failed = (id.as_str(), &owner.cardholder_id, now);
                self.report_failed_challenge((&caller.account_id, caller.mode), &debit, failed)
                    .await?;
                Err(CardError::Declined(DeclineReason::ThreeDsFailed))
            }
        }
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
        let failed = challenge.failed_attempts;
        let next = (ChallengeState::Failed, failed);
        // An answer that came first decided it already.
        if !transactions.decide_challenge(&challenge.id, failed, next).await? {
            return Ok(());
        }
        let Some(state) = self.ports.cards.rule_state(card).await? else {
            return Ok(());
        };
        let (id, debit) = (challenge.id.clone(), held_debit(challenge));
        self.report_failed_challenge((account, mode), &debit, (&id, &state.cardholder_id, now))
            .await
    }

    /// `card_debit_event.declined` for a failed challenge (`three_ds_failed`).
    async fn report_failed_challenge(
        &self,
        (account, mode): (&AccountId, Mode),
        debit: &Debit,
        (challenge, cardholder, now): (&str, &CardholderId, Timestamp),
    ) -> Result<(), StoreError> {
        let reason = (now, DeclineReason::ThreeDsFailed);
        let payload = declined_payload(debit, (account, mode), (cardholder, Currency::Ngn), challenge, reason);
        self.emit(account, mode, Event::CardDebitDeclined(payload)).await?;
        Ok(())
    }
}

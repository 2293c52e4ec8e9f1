//! 3-D Secure on Naira cards: a debit that asks for it does not post. It
//! waits as a challenge, for its exact amount, until the OTP the
//! cardholder reads on the relay completes it, or three wrong OTPs or its
//! expiry fail it.

use crate::cards::authorization::DeclineReason;
use crate::cards::spending_controls::Channel;
use crate::{Currency, InvalidInput, Timestamp};

/// How long a challenge waits for its OTP.
pub const CHALLENGE_SECS: i64 = 300;

/// Wrong OTPs a challenge takes before it fails.
pub const MAX_OTP_ATTEMPTS: u32 = 3;

/// An OTP's digits.
pub const OTP_DIGITS: usize = 6;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeState {
    /// Waiting for its OTP.
    Pending,
    /// The OTP was right: the debit went to the authorization engine.
    Completed,
    /// Three wrong OTPs, or expired: declined.
    Failed,
}

impl ChallengeState {
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeState::Pending => "pending",
            ChallengeState::Completed => "completed",
            ChallengeState::Failed => "failed",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::Pending, Self::Completed, Self::Failed]
            .into_iter()
            .find(|s| s.as_str() == value)
    }
}

/// One OTP attempt on a pending challenge, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    /// The card was deleted while the challenge waited.
    pub card_deleted: bool,
    /// The OTP matches the last one read.
    pub right: bool,
    /// Wrong OTPs before this one.
    pub failed_attempts: u32,
    pub expires_at: Timestamp,
}

/// What one OTP attempt on a pending challenge decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtpAnswer {
    /// Right and in time: the debit goes to the engine.
    Complete,
    /// Wrong; this many attempts are left.
    Wrong { attempts_left: u32 },
    /// Declined: `three_ds_failed` (the last wrong attempt, or too late),
    /// or `card_deleted`.
    Fail(DeclineReason),
}

impl OtpAnswer {
    /// The challenge's state and wrong attempts after this answer, from
    /// `failed` before (an attempt on a deleted card counts as none).
    pub fn next(self, failed: u32) -> (ChallengeState, u32) {
        match self {
            OtpAnswer::Complete => (ChallengeState::Completed, failed),
            OtpAnswer::Wrong { .. } => (ChallengeState::Pending, failed.saturating_add(1)),
            OtpAnswer::Fail(DeclineReason::CardDeleted) => (ChallengeState::Failed, failed),
            OtpAnswer::Fail(_) => (ChallengeState::Failed, failed.saturating_add(1)),
        }
    }
}

/// Decides an attempt at `now`. A deleted card fails it whatever the OTP;
/// expiry wins over a right OTP.
pub fn answer(attempt: Attempt, now: Timestamp) -> OtpAnswer {
    let failed = OtpAnswer::Fail(DeclineReason::ThreeDsFailed);
    if attempt.card_deleted {
        return OtpAnswer::Fail(DeclineReason::CardDeleted);
    }
    if now >= attempt.expires_at {
        return failed;
    }
    if attempt.right {
        return OtpAnswer::Complete;
    }
    match MAX_OTP_ATTEMPTS.saturating_sub(attempt.failed_attempts.saturating_add(1)) {
        0 => failed,
        attempts_left => OtpAnswer::Wrong { attempts_left },
    }
}

/// Whether a debit on a card of `currency` made on `channel` may wait for
/// an OTP: Naira cards' online debits may, unless forced (a forced post was
/// authorized elsewhere already).
pub fn may_challenge(currency: Currency, forced: bool, channel: Option<Channel>) -> Result<(), InvalidInput> {
    if currency != Currency::Ngn {
        return Err(InvalidInput::new("three_ds", "is for Naira card debits"));
    }
    if forced {
        return Err(InvalidInput::new("three_ds", "cannot be asked of a forced debit"));
    }
    if channel.is_some_and(|c| c != Channel::Online) {
        let rule = "must be online (or left out) with three_ds: 3-D Secure is for paying online";
        return Err(InvalidInput::new("channel", rule));
    }
    Ok(())
}

/// An OTP from a uniform random `fraction` in `[0, 1)`: six digits.
pub fn otp(fraction: f64) -> String {
    let n = (fraction.clamp(0.0, 1.0) * 1_000_000.0) as u32 % 1_000_000;
    format!("{n:06}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const T: Timestamp = Timestamp::from_unix(1_000);

    fn attempt(right: bool, failed_attempts: u32) -> Attempt {
        Attempt {
            card_deleted: false,
            right,
            failed_attempts,
            expires_at: T.plus(CHALLENGE_SECS),
        }
    }

    const FAILED: OtpAnswer = OtpAnswer::Fail(DeclineReason::ThreeDsFailed);

    #[test]
    fn three_wrong_otps_or_expiry_fail_and_a_right_one_in_time_completes() {
        let expires = T.plus(CHALLENGE_SECS);
        assert_eq!(answer(attempt(true, 0), T), OtpAnswer::Complete);
        assert_eq!(answer(attempt(true, 2), T), OtpAnswer::Complete);
        assert_eq!(answer(attempt(false, 0), T), OtpAnswer::Wrong { attempts_left: 2 });
        assert_eq!(answer(attempt(false, 1), T), OtpAnswer::Wrong { attempts_left: 1 });
        assert_eq!(answer(attempt(false, 2), T), FAILED);
        assert_eq!(answer(attempt(true, 0), expires), FAILED);
        assert_eq!(answer(attempt(false, u32::MAX), T), FAILED);
    }

    #[test]
    fn a_deleted_card_fails_its_challenge_whatever_the_otp_counting_no_attempt() {
        for right in [true, false] {
            let gone = Attempt {
                card_deleted: true,
                ..attempt(right, 1)
            };
            assert_eq!(answer(gone, T), OtpAnswer::Fail(DeclineReason::CardDeleted));
            assert_eq!(answer(gone, T).next(1), (ChallengeState::Failed, 1));
        }
        assert_eq!(FAILED.next(2), (ChallengeState::Failed, 3));
        assert_eq!(OtpAnswer::Complete.next(2), (ChallengeState::Completed, 2));
        assert_eq!(
            OtpAnswer::Wrong { attempts_left: 1 }.next(1),
            (ChallengeState::Pending, 2)
        );
    }

    #[test]
    fn only_unforced_naira_debits_may_be_challenged() {
        assert!(may_challenge(Currency::Ngn, false, None).is_ok());
        assert!(may_challenge(Currency::Ngn, false, Some(Channel::Online)).is_ok());
        assert_eq!(may_challenge(Currency::Usd, false, None).unwrap_err().field, "three_ds");
        assert_eq!(may_challenge(Currency::Ngn, true, None).unwrap_err().field, "three_ds");
        let at_pos = may_challenge(Currency::Ngn, false, Some(Channel::Pos));
        assert_eq!(at_pos.unwrap_err().field, "channel");
    }

    proptest! {
        #[test]
        fn otps_are_six_digits(fraction in 0.0f64..1.0) {
            let otp = otp(fraction);
            prop_assert_eq!(otp.len(), OTP_DIGITS);
            prop_assert!(otp.bytes().all(|b| b.is_ascii_digit()));
        }

        #[test]
        fn a_wrong_otp_at_or_past_the_last_attempt_fails(failed in (MAX_OTP_ATTEMPTS - 1)..u32::MAX) {
            prop_assert_eq!(answer(attempt(false, failed), T), FAILED);
        }
    }
}

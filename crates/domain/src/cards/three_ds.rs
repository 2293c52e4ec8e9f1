//! 3-D Secure on Naira cards: a debit that asks for it does not post. It
//! waits as a challenge, for its exact amount, until the OTP the
//! cardholder reads on the relay completes it, or three wrong OTPs or its
//! expiry fail it.

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

/// What one OTP attempt on a pending challenge decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtpAnswer {
    /// Right and in time: the debit goes to the engine.
    Complete,
    /// Wrong; this many attempts are left.
    Wrong { attempts_left: u32 },
    /// The last wrong attempt, or too late: the debit is declined.
    Fail,
}

/// Decides an attempt: `right` whether the OTP matches, after
/// `failed_attempts` wrong ones, at `now` for a challenge expiring at
/// `expires_at`. Expiry wins over a right OTP.
pub fn answer(right: bool, failed_attempts: u32, expires_at: Timestamp, now: Timestamp) -> OtpAnswer {
    if now >= expires_at {
        return OtpAnswer::Fail;
    }
    if right {
        return OtpAnswer::Complete;
    }
    match MAX_OTP_ATTEMPTS.saturating_sub(failed_attempts.saturating_add(1)) {
        0 => OtpAnswer::Fail,
        attempts_left => OtpAnswer::Wrong { attempts_left },
    }
}

/// Whether a debit on a card of `currency` may wait for an OTP: Naira
/// cards' debits may, unless forced (a forced post was authorized
/// elsewhere already).
pub fn may_challenge(currency: Currency, forced: bool) -> Result<(), InvalidInput> {
    if currency != Currency::Ngn {
        return Err(InvalidInput::new("three_ds", "is for Naira card debits"));
    }
    if forced {
        return Err(InvalidInput::new("three_ds", "cannot be asked of a forced debit"));
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

    #[test]
    fn three_wrong_otps_or_expiry_fail_and_a_right_one_in_time_completes() {
        let expires = T.plus(CHALLENGE_SECS);
        assert_eq!(answer(true, 0, expires, T), OtpAnswer::Complete);
        assert_eq!(answer(true, 2, expires, T), OtpAnswer::Complete);
        assert_eq!(answer(false, 0, expires, T), OtpAnswer::Wrong { attempts_left: 2 });
        assert_eq!(answer(false, 1, expires, T), OtpAnswer::Wrong { attempts_left: 1 });
        assert_eq!(answer(false, 2, expires, T), OtpAnswer::Fail);
        assert_eq!(answer(true, 0, expires, expires), OtpAnswer::Fail);
        assert_eq!(answer(false, u32::MAX, expires, T), OtpAnswer::Fail);
    }

    #[test]
    fn only_unforced_naira_debits_may_be_challenged() {
        assert!(may_challenge(Currency::Ngn, false).is_ok());
        assert_eq!(may_challenge(Currency::Usd, false).unwrap_err().field, "three_ds");
        assert_eq!(may_challenge(Currency::Ngn, true).unwrap_err().field, "three_ds");
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
            prop_assert_eq!(answer(false, failed, T.plus(1), T), OtpAnswer::Fail);
        }
    }
}

//! The sandbox KYC verifier: the outcome is chosen by the last four digits
//! of the identity number (the BVN on the BVN route, the ID number
//! otherwise), like test card numbers. It stands in for a real provider in
//! both modes until one is integrated behind the same port.
//!
//! | ends in | outcome |
//! |---|---|
//! | 0000 | the BVN or ID could not be verified |
//! | 1111 | manual review |
//! | 2222 | name mismatch |
//! | 3333 | ID number does not match the uploaded ID |
//! | 4444 | OTP could not be sent |
//! | 5555 | phone tied to several BVNs |
//! | 6666 | BVN profile blacklisted |
//! | 7777 | name on the ID does not match the BVN name |
//! | 9999 | individual blacklisted (451) |
//! | anything else | verified |

use domain::Mode;
use domain::cardholders::Registration;
use domain::cardholders::kyc::{KycFailure, KycOutcome};
use ports::kyc::{CallbackRefused, KycUnavailable, KycVerifier, Submission};

pub struct SandboxKyc;

/// Why the sandbox sends a case to manual review.
pub const MANUAL_REVIEW_REASON: &str =
    "the sandbox sends identity numbers ending in 1111 to manual review (the selfie could not be matched)";

pub fn outcome_for(identity_number: &str) -> KycOutcome {
    let tail = identity_number
        .get(identity_number.len().saturating_sub(4)..)
        .unwrap_or_default();
    match tail {
        "0000" => KycOutcome::Failed(KycFailure::NotVerifiable),
        "1111" => KycOutcome::ManualReview(MANUAL_REVIEW_REASON),
        "2222" => KycOutcome::Failed(KycFailure::NameMismatch),
        "3333" => KycOutcome::Failed(KycFailure::IdMismatch),
        "4444" => KycOutcome::Failed(KycFailure::OtpNotSent),
        "5555" => KycOutcome::Failed(KycFailure::PhoneOnSeveralBvns),
        "6666" => KycOutcome::Failed(KycFailure::BlacklistedProfile),
        "7777" => KycOutcome::Failed(KycFailure::IdNameMismatch),
        "9999" => KycOutcome::Failed(KycFailure::Blacklisted),
        _ => KycOutcome::Verified,
    }
}

#[async_trait::async_trait]
impl KycVerifier for SandboxKyc {
    async fn verify(&self, _mode: Mode, _job: &str, registration: &Registration) -> Result<KycOutcome, KycUnavailable> {
        Ok(outcome_for(registration.identity.number()))
    }

    async fn submit(&self, _mode: Mode, _job: &str, registration: &Registration) -> Result<Submission, KycUnavailable> {
        Ok(Submission::Decided(outcome_for(registration.identity.number())))
    }

    fn callback_job(&self, _body: &[u8]) -> Result<(Mode, String), CallbackRefused> {
        Err(CallbackRefused("the sandbox verifier sends no callbacks"))
    }

    /// Never asked: it decides every job when submitted.
    async fn outcome(
        &self,
        _mode: Mode,
        _job: &str,
        _registration: &Registration,
    ) -> Result<Option<KycOutcome>, KycUnavailable> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suffix_decides() {
        assert_eq!(
            outcome_for("22212340000"),
            KycOutcome::Failed(KycFailure::NotVerifiable)
        );
        assert_eq!(outcome_for("A1111"), KycOutcome::ManualReview(MANUAL_REVIEW_REASON));
        assert_eq!(outcome_for("22212349999"), KycOutcome::Failed(KycFailure::Blacklisted));
        assert_eq!(outcome_for("22212345678"), KycOutcome::Verified);
        assert_eq!(outcome_for("99"), KycOutcome::Verified);
    }
}

//! Cardholders: who may be issued cards, after identity verification (KYC)
//! in Nigeria, Ghana, Uganda or Kenya.

pub mod country;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod identity;
pub mod kyc;
pub mod registration;

pub use country::Country;
pub use identity::{IdType, Identity};
pub use registration::{Address, Registration};

/// Where a cardholder's verification stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardholderStatus {
    /// Registered asynchronously; the automated check is queued.
    Pending,
    /// The automated check could not decide; a person reviews the case.
    ManualReview,
    /// Verified: active, cards can be issued.
    Verified,
    /// Verification failed or review rejected: no card can be issued.
    Failed,
}

impl CardholderStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CardholderStatus::Pending => "pending",
            CardholderStatus::ManualReview => "manual_review",
            CardholderStatus::Verified => "verified",
            CardholderStatus::Failed => "failed",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::Pending, Self::ManualReview, Self::Verified, Self::Failed]
            .into_iter()
            .find(|s| s.as_str() == value)
    }

    /// Active and identity-verified go together: only a verified
    /// cardholder can be issued cards.
    pub fn is_active(self) -> bool {
        self == CardholderStatus::Verified
    }

    /// The one transition function of verification: `pending` becomes
    /// `verified`, `manual_review` or `failed`; `manual_review` becomes
    /// `verified` or `failed`; a decided cardholder stays decided. (Any
    /// cardholder can be deleted: that is not a decision.) The store
    /// applies an allowed decision only while the status is still `self`.
    pub fn decide(self, to: CardholderStatus) -> Result<CardholderStatus, TransitionRefused> {
        use CardholderStatus::*;
        match (self, to) {
            (Pending, Verified | ManualReview | Failed) | (ManualReview, Verified | Failed) => Ok(to),
            _ => Err(TransitionRefused { from: self, to }),
        }
    }
}

/// A verification decision the cardholder's status does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a cardholder in status {} cannot become {}", from.as_str(), to.as_str())]
pub struct TransitionRefused {
    pub from: CardholderStatus,
    pub to: CardholderStatus,
}

#[cfg(test)]
mod tests {
    use super::CardholderStatus::{self, *};

    const ALL: [CardholderStatus; 4] = [Pending, ManualReview, Verified, Failed];

    #[test]
    fn only_undecided_cardholders_are_decided_and_never_back_to_pending() {
        for from in ALL {
            for to in ALL {
                let allowed = from.decide(to).is_ok();
                let expected = matches!(
                    (from, to),
                    (Pending, Verified | ManualReview | Failed) | (ManualReview, Verified | Failed)
                );
                assert_eq!(allowed, expected, "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn every_sequence_of_decisions_ends_in_at_most_one_final_status() {
        // Any order of attempted decisions: once verified or failed, no
        // later decision changes it, and no cardholder returns to pending.
        for a in ALL {
            for b in ALL {
                for c in ALL {
                    let mut status = Pending;
                    let mut finals = 0;
                    for to in [a, b, c] {
                        if let Ok(next) = status.decide(to) {
                            assert!(!matches!(status, Verified | Failed), "{status:?} changed");
                            status = next;
                            finals += usize::from(matches!(next, Verified | Failed));
                        }
                    }
                    assert!(finals <= 1, "{a:?} {b:?} {c:?}");
                    assert_eq!(status == Pending, [a, b, c] == [Pending; 3], "{a:?} {b:?} {c:?}");
                }
            }
        }
    }
}

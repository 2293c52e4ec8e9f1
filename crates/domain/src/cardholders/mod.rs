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
}

use domain::Mode;
use domain::cardholders::Registration;
use domain::cardholders::kyc::KycOutcome;

#[derive(Debug, thiserror::Error)]
#[error("identity verification is unavailable: {0}")]
pub struct KycUnavailable(pub String);

/// Identity verification (BVN, national IDs) by a KYC provider.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait KycVerifier: Send + Sync {
    async fn verify(&self, mode: Mode, registration: &Registration) -> Result<KycOutcome, KycUnavailable>;
}

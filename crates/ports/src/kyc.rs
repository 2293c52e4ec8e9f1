use domain::Mode;
use domain::cardholders::Registration;
use domain::cardholders::kyc::KycOutcome;

#[derive(Debug, thiserror::Error)]
#[error("identity verification is unavailable: {0}")]
pub struct KycUnavailable(pub String);

/// Where an asynchronous verification stands once submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submission {
    /// Decided at once (the sandbox verifier).
    Decided(KycOutcome),
    /// The provider took the job; its outcome arrives by callback.
    Awaiting,
}

/// A callback the provider did not sign, or one that names no job.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CallbackRefused(pub &'static str);

/// Identity verification (BVN, national IDs) by a KYC provider. `job` is
/// the reference the provider's job is known by: the cardholder's id.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait KycVerifier: Send + Sync {
    /// Verifies on the spot (synchronous registration).
    async fn verify(&self, mode: Mode, job: &str, registration: &Registration) -> Result<KycOutcome, KycUnavailable>;

    /// Submits the verification of asynchronous registration. Submitting
    /// a job again is harmless: a provider that has it already says
    /// `Awaiting`.
    async fn submit(&self, mode: Mode, job: &str, registration: &Registration) -> Result<Submission, KycUnavailable>;

    /// Authenticates a callback's raw body as the provider's own and
    /// names the job it reports on, and the mode whose credentials signed
    /// it. Its claims are not trusted beyond that: the outcome is asked of
    /// the provider ([`KycVerifier::outcome`]).
    fn callback_job(&self, body: &[u8]) -> Result<(Mode, String), CallbackRefused>;

    /// The outcome of `job` (the verification of `registration`), asked
    /// of the provider; `None` while it has not decided.
    async fn outcome(
        &self,
        mode: Mode,
        job: &str,
        registration: &Registration,
    ) -> Result<Option<KycOutcome>, KycUnavailable>;
}

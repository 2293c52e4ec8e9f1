//! Connectors to real providers, one module per provider, each behind the
//! port of the capability it serves; nothing outside its module knows the
//! provider. [`ByMode`] gives each mode its own connector (a provider's
//! sandbox for the sandbox, say, or the simulators).

pub mod http;
pub mod smileid;

use domain::Mode;
use domain::cardholders::Registration;
use domain::cardholders::kyc::KycOutcome;
use ports::kyc::{CallbackRefused, KycUnavailable, KycVerifier, Submission};
use std::sync::Arc;

/// One connector per mode.
pub struct ByMode<T: ?Sized> {
    pub live: Arc<T>,
    pub test: Arc<T>,
}

impl<T: ?Sized> ByMode<T> {
    fn of(&self, mode: Mode) -> &T {
        match mode {
            Mode::Live => &self.live,
            Mode::Test => &self.test,
        }
    }
}

#[async_trait::async_trait]
impl KycVerifier for ByMode<dyn KycVerifier> {
    async fn verify(&self, mode: Mode, job: &str, registration: &Registration) -> Result<KycOutcome, KycUnavailable> {
        self.of(mode).verify(mode, job, registration).await
    }

    async fn submit(&self, mode: Mode, job: &str, registration: &Registration) -> Result<Submission, KycUnavailable> {
        self.of(mode).submit(mode, job, registration).await
    }

    /// The live connector's signature first, then the sandbox's: each
    /// says which mode signed.
    fn callback_job(&self, body: &[u8]) -> Result<(Mode, String), CallbackRefused> {
        self.live.callback_job(body).or_else(|_| self.test.callback_job(body))
    }

    async fn outcome(
        &self,
        mode: Mode,
        job: &str,
        registration: &Registration,
    ) -> Result<Option<KycOutcome>, KycUnavailable> {
        self.of(mode).outcome(mode, job, registration).await
    }
}

//! Connectors to real providers, one module per provider, each behind the
//! port of the capability it serves; nothing outside its module knows the
//! provider. [`ByMode`] gives each mode its own connector (a provider's
//! sandbox for the sandbox, say, or the simulators).

pub mod http;
pub mod smileid;
pub mod sudo;

use domain::cardholders::Registration;
use domain::cardholders::kyc::KycOutcome;
use domain::cards::CardBrand;
use domain::ids::CardId;
use domain::{Amount, Currency, Mode, Timestamp};
use ports::card_network::{
    BookedAuthorization, Books, CardNetwork, CardToIssue, IssuedCard, NetworkCardState, NetworkDecline,
    NetworkUnavailable, PinChange, PinSwap, VaultedDetails,
};
use ports::cardholders::CardholderRecord;
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

#[async_trait::async_trait]
impl CardNetwork for ByMode<dyn CardNetwork> {
    fn keeps_customers(&self, mode: Mode) -> bool {
        self.of(mode).keeps_customers(mode)
    }

    fn issues_physical(&self, mode: Mode) -> bool {
        self.of(mode).issues_physical(mode)
    }

    fn brand(&self, mode: Mode, currency: Currency) -> CardBrand {
        self.of(mode).brand(mode, currency)
    }

    async fn create_customer(&self, mode: Mode, cardholder: &CardholderRecord) -> Result<String, NetworkUnavailable> {
        self.of(mode).create_customer(mode, cardholder).await
    }

    async fn issue<'a>(&self, mode: Mode, card: CardToIssue<'a>) -> Result<IssuedCard, NetworkUnavailable> {
        self.of(mode).issue(mode, card).await
    }

    async fn load(&self, mode: Mode, card: &CardId, amount: Amount) -> Result<(), NetworkDecline> {
        self.of(mode).load(mode, card, amount).await
    }

    async fn unload(&self, mode: Mode, card: &CardId, amount: Amount) -> Result<(), NetworkDecline> {
        self.of(mode).unload(mode, card, amount).await
    }

    async fn set_state(&self, mode: Mode, card: &str, state: NetworkCardState) -> Result<(), NetworkUnavailable> {
        self.of(mode).set_state(mode, card, state).await
    }

    async fn change_pin<'a>(&self, mode: Mode, card: &str, pins: PinSwap<'a>) -> Result<PinChange, NetworkUnavailable> {
        self.of(mode).change_pin(mode, card, pins).await
    }

    async fn reveal(&self, mode: Mode, card: &str) -> Result<VaultedDetails, NetworkUnavailable> {
        self.of(mode).reveal(mode, card).await
    }

    async fn state(&self, mode: Mode, card: &str) -> Result<Option<NetworkCardState>, NetworkUnavailable> {
        self.of(mode).state(mode, card).await
    }

    async fn books(&self, mode: Mode, from: Timestamp, to: Timestamp) -> Result<Option<Books>, NetworkUnavailable> {
        self.of(mode).books(mode, from, to).await
    }

    async fn booked(&self, mode: Mode, authorization: &str) -> Result<Option<BookedAuthorization>, NetworkUnavailable> {
        self.of(mode).booked(mode, authorization).await
    }
}

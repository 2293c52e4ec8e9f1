//! Use cases of the card issuing service. Each lives in a file named after
//! its endpoint or command and adds its method to [`App`]. `App` holds the
//! ports; it never holds a connection or a transaction.

pub mod accounts;
pub mod cardholders;
pub mod cards;
pub mod console;
mod error;
pub mod events;
pub mod fx;
pub mod health;
pub mod idempotency;
pub mod jobs;
mod money_requests;
mod one_at_a_time;
pub mod rewards;
pub mod test_clock;
mod ttl_cache;
pub mod wallets;
mod webhook;

pub use error::RequestError;

use domain::cardholders::registration::Regions;
use domain::fx::FxRates;
use domain::ids::AccountId;
use domain::{Amount, Mode, Secret, Timestamp};
use ports::StoreError;
use ports::accounts::AccountStore;
use ports::card_network::CardNetwork;
use ports::card_transactions::CardTransactionStore;
use ports::cardholders::CardholderStore;
use ports::cards::CardStore;
use ports::clock::Clock;
use ports::console::{ConsoleStore, Passwords, Totp};
use ports::events::EventStore;
use ports::field_cipher::FieldCipher;
use ports::health::Health;
use ports::idempotency::IdempotencyKeys;
use ports::ids::Ids;
use ports::jobs::JobStore;
use ports::kyc::KycVerifier;
use ports::kyc_images::KycImages;
use ports::merchants::MerchantCatalogue;
use ports::processor_auth::ProcessorAuth;
use ports::processor_gateway::ProcessorGateway;
use ports::rate_limits::RateLimits;
use ports::reconciliation::ReconciliationStore;
use ports::rewards::RewardStore;
use ports::spending_controls::SpendingControlStore;
use ports::test_clocks::TestClocks;
use ports::vault::Vault;
use ports::wallets::WalletStore;
use ports::webhooks::WebhookSender;
use std::sync::Arc;

/// The outside world, as the use cases see it.
#[derive(Clone)]
pub struct Ports {
    pub accounts: Arc<dyn AccountStore>,
    pub cardholders: Arc<dyn CardholderStore>,
    pub kyc: Arc<dyn KycVerifier>,
    pub cards: Arc<dyn CardStore>,
    pub card_transactions: Arc<dyn CardTransactionStore>,
    pub merchants: Arc<dyn MerchantCatalogue>,
    pub processor_auth: Arc<dyn ProcessorAuth>,
    pub network: Arc<dyn CardNetwork>,
    /// The live connectors' processor gateway (Sudo's funding source).
    pub gateway: Arc<dyn ProcessorGateway>,
    pub field_cipher: Arc<dyn FieldCipher>,
    pub wallets: Arc<dyn WalletStore>,
    pub rate_limits: Arc<dyn RateLimits>,
    pub idempotency: Arc<dyn IdempotencyKeys>,
    pub events: Arc<dyn EventStore>,
    pub jobs: Arc<dyn JobStore>,
    pub test_clocks: Arc<dyn TestClocks>,
    pub webhooks: Arc<dyn WebhookSender>,
    pub health: Arc<dyn Health>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn Ids>,
    pub vault: Arc<dyn Vault>,
    pub rewards: Arc<dyn RewardStore>,
    pub spending_controls: Arc<dyn SpendingControlStore>,
    /// The dashboard's users, sessions and audit log.
    pub console: Arc<dyn ConsoleStore>,
    pub passwords: Arc<dyn Passwords>,
    pub totp: Arc<dyn Totp>,
    /// A KYC case's images, for the operator's review.
    pub kyc_images: Arc<dyn KycImages>,
    /// Reconciliation with a processor that keeps books: its runs and
    /// their audit trail.
    pub reconciliation: Arc<dyn ReconciliationStore>,
}

/// Settings the use cases read.
#[derive(Debug, Clone)]
pub struct Settings {
    pub fx_rates: FxRates,
    /// States and LGAs that addresses are checked against.
    pub regions: Arc<Regions>,
    /// The most an issuing wallet may hold, in minor units of its currency.
    pub max_wallet: Amount,
    /// Whether webhook URLs may point at non-public addresses, and use
    /// http:// in live mode (local development and tests).
    pub webhook_allow_private: bool,
    /// How long a process trusts an API key it looked up: a revoked key
    /// keeps working in a running process for at most this long (0: every
    /// request looks its key up).
    pub key_cache_secs: i64,
    /// What live mode runs on (reported by `/health`).
    pub live_connectors: health::LiveConnectors,
    /// How long an authorization's hold lasts uncaptured before it expires.
    pub hold_secs: i64,
    /// How long a card processor's real-time gateway call may take: a
    /// decision not recorded within it is declined and never recorded.
    pub gateway_budget: std::time::Duration,
}

#[derive(Clone)]
pub struct App {
    ports: Ports,
    settings: Settings,
    /// Each account's reward switch per mode, read at most once every
    /// few seconds per process: approved debits consult it.
    reward_switches: rewards::Switches,
    /// The owner of each API key this process looked up lately, by the
    /// key's lookup hash: most requests need no key lookup.
    key_owners: ttl_cache::TtlCache<String, ports::accounts::KeyOwner>,
    /// Each account's webhook deliveries in flight and endpoint breakers,
    /// in this process.
    delivery_gate: Arc<events::DeliveryGate>,
    /// Wakes one of this process's idle job runners when a request queued
    /// work due now, so it does not wait for its next poll.
    work: Arc<tokio::sync::Notify>,
    /// Fundings, unloadings and debits in flight: job runners yield to them.
    money_requests: money_requests::MoneyRequests,
    /// Each account's sandbox clock offset this process read lately, to
    /// stamp money requests without a read ([`App::stamped`]).
    clock_offsets: ttl_cache::TtlCache<AccountId, i64>,
    /// Card creations under one reference, one at a time in this process:
    /// the next finds the reference taken, and asks no processor for a card.
    card_creations: Arc<one_at_a_time::OneAtATime>,
}

/// How long an account's sandbox clock offset stamps money requests
/// without a read. Any length is correct, as each batch checks the stamp;
/// this only lets idle accounts' offsets go.
const STAMP_OFFSET_SECS: i64 = 60;

/// How many times a money request is stamped and checked. One its batches
/// sent back this often (its account's clock advanced again and again) is
/// stamped once more from a fresh read and not checked: it keeps the clock
/// as read just before it queued, as every request did before stamps were
/// checked, so a storm of advances cannot hold it back, nor leave a 3-D
/// Secure completion without its debit.
const CHECKED_STAMPINGS: usize = 2;

impl App {
    pub fn new(ports: Ports, settings: Settings) -> Self {
        Self {
            ports,
            key_owners: ttl_cache::TtlCache::new(settings.key_cache_secs),
            settings,
            reward_switches: rewards::Switches::new(rewards::SWITCH_CACHE_SECS),
            delivery_gate: Arc::default(),
            work: Arc::default(),
            money_requests: Default::default(),
            clock_offsets: ttl_cache::TtlCache::new(STAMP_OFFSET_SECS),
            card_creations: Default::default(),
        }
    }

    /// Tells an idle job runner of this process that work is due now (one
    /// runner: a second would find nothing; if none is idle, the next to
    /// look finds it at once).
    pub(crate) fn work_queued(&self) {
        self.work.notify_one();
    }

    /// Resolves when a request of this process queued work due now; job
    /// runners wait for it, or their poll, when they found nothing to do.
    pub async fn work_arrived(&self) {
        self.work.notified().await;
    }

    /// Resolves at a moment when no money request of this process is in
    /// flight, or after `at_most`: job runners wait for it before they
    /// claim, so that a burst of requests is answered first.
    pub async fn money_requests_answered(&self, at_most: std::time::Duration) {
        self.money_requests.none_in_flight(at_most).await;
    }

    /// Now, as the caller's mode sees it: real time in live mode, the
    /// account's test clock in the sandbox. Every time rule reads this.
    pub(crate) async fn now_for(&self, account: &AccountId, mode: Mode) -> Result<Timestamp, StoreError> {
        Ok(self.clock_for(account, mode).await?.now)
    }

    /// One reading of the mode's clock, for a use case that also plans
    /// jobs at times of that clock.
    pub(crate) async fn clock_for(&self, account: &AccountId, mode: Mode) -> Result<ModeClock, StoreError> {
        let ahead_secs = match mode {
            Mode::Live => 0,
            Mode::Test => self.ports.test_clocks.offset(account).await?,
        };
        Ok(ModeClock::at(self.ports.clock.now(), ahead_secs))
    }

    /// Records a money request stamped with the mode's clock: in the
    /// sandbox, first from the offset this process read lately, with no
    /// read. The request's batch checks the stamp against the account's
    /// clock in its transaction; a request stamped before an advance
    /// (through another process) is sent back (`moved`), and stamped again
    /// from a fresh read ([`CHECKED_STAMPINGS`]).
    pub(crate) async fn stamped<T, E: From<StoreError>>(
        &self,
        (account, mode): (&AccountId, Mode),
        record: impl AsyncFn(Stamp) -> Result<T, E>,
        moved: impl Fn(&E) -> bool,
    ) -> Result<T, E> {
        let mut sent_back = 0;
        loop {
            let real = self.ports.clock.now();
            let first_in_sandbox = mode == Mode::Test && sent_back == 0;
            let kept = first_in_sandbox
                .then(|| self.clock_offsets.get(account, real))
                .flatten();
            let clock = match kept {
                Some(ahead_secs) => ModeClock::at(real, ahead_secs),
                None => {
                    let clock = self.clock_for(account, mode).await?;
                    if mode == Mode::Test {
                        self.clock_offsets.put(account.clone(), clock.ahead_secs, real);
                    }
                    clock
                }
            };
            let checked = mode == Mode::Test && sent_back < CHECKED_STAMPINGS;
            let stamp = Stamp {
                clock,
                checked_ahead_secs: checked.then_some(clock.ahead_secs),
            };
            match record(stamp).await {
                Err(e) if moved(&e) && checked => sent_back += 1,
                answered => return answered,
            }
        }
    }
}

/// The time a money request is stamped with, and the sandbox clock offset
/// its batch checks it by (`None`: not checked).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp {
    pub clock: ModeClock,
    pub checked_ahead_secs: Option<i64>,
}

/// A mode's time, read once: `now` on the mode's clock, and how far that
/// clock runs ahead of the real one (0 in live mode). The only place a
/// sandbox time becomes a real one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeClock {
    pub now: Timestamp,
    pub ahead_secs: i64,
}

impl ModeClock {
    /// The mode's clock when the real one reads `real`, `ahead_secs` ahead.
    pub fn at(real: Timestamp, ahead_secs: i64) -> ModeClock {
        ModeClock {
            now: real.plus(ahead_secs),
            ahead_secs,
        }
    }

    /// When the real clock, which the job runner reads, reaches `at` of
    /// this mode's clock.
    pub fn real_time_of(self, at: Timestamp) -> Timestamp {
        at.minus(self.ahead_secs)
    }
}

/// An authenticated caller: the account, the mode its key is for, and the
/// key itself (the passphrase of its encrypted PIN fields).
#[derive(Debug, Clone)]
pub struct Caller {
    pub account_id: AccountId,
    pub mode: Mode,
    pub secret_key: Secret<String>,
}

impl Caller {
    /// The dashboard acting for an account in a mode: it holds no key,
    /// so it sends no encrypted PIN (the console never takes one).
    pub fn console(account_id: AccountId, mode: Mode) -> Caller {
        Caller {
            account_id,
            mode,
            secret_key: Secret::new(String::new()),
        }
    }
}

#[cfg(any(test, feature = "mocks"))]
pub mod testing {
    //! An `App` over mocked ports, for the tests of this crate and of the
    //! HTTP layer: each test sets expectations only on the ports it should
    //! touch; any other call panics.

    use super::*;
    pub use domain::cardholders::fixtures::{nigerian, regions};
    use ports::accounts::MockAccountStore;
    use ports::card_network::MockCardNetwork;
    use ports::card_transactions::MockCardTransactionStore;
    use ports::cardholders::MockCardholderStore;
    use ports::cards::MockCardStore;
    use ports::clock::MockClock;
    use ports::console::{MockConsoleStore, MockPasswords, MockTotp};
    use ports::events::MockEventStore;
    use ports::field_cipher::MockFieldCipher;
    use ports::health::MockHealth;
    use ports::idempotency::MockIdempotencyKeys;
    use ports::ids::MockIds;
    use ports::jobs::MockJobStore;
    use ports::kyc::MockKycVerifier;
    use ports::kyc_images::MockKycImages;
    use ports::merchants::MockMerchantCatalogue;
    use ports::processor_auth::MockProcessorAuth;
    use ports::processor_gateway::MockProcessorGateway;
    use ports::rate_limits::MockRateLimits;
    use ports::reconciliation::MockReconciliationStore;
    use ports::rewards::MockRewardStore;
    use ports::spending_controls::MockSpendingControlStore;
    use ports::test_clocks::MockTestClocks;
    use ports::vault::MockVault;
    use ports::wallets::MockWalletStore;
    use ports::webhooks::MockWebhookSender;

    #[derive(Default)]
    pub struct Mocks {
        pub accounts: MockAccountStore,
        pub cardholders: MockCardholderStore,
        pub kyc: MockKycVerifier,
        pub cards: MockCardStore,
        pub card_transactions: MockCardTransactionStore,
        pub merchants: MockMerchantCatalogue,
        pub processor_auth: MockProcessorAuth,
        pub network: MockCardNetwork,
        pub gateway: MockProcessorGateway,
        pub field_cipher: MockFieldCipher,
        pub wallets: MockWalletStore,
        pub rate_limits: MockRateLimits,
        pub idempotency: MockIdempotencyKeys,
        pub events: MockEventStore,
        pub jobs: MockJobStore,
        pub test_clocks: MockTestClocks,
        pub webhooks: MockWebhookSender,
        pub health: MockHealth,
        pub clock: MockClock,
        pub ids: MockIds,
        pub vault: MockVault,
        pub rewards: MockRewardStore,
        pub spending_controls: MockSpendingControlStore,
        pub console: MockConsoleStore,
        pub passwords: MockPasswords,
        pub totp: MockTotp,
        pub kyc_images: MockKycImages,
        pub reconciliation: MockReconciliationStore,
        /// `Settings::key_cache_secs`: 0, every request looks its key up.
        pub key_cache_secs: i64,
    }

    impl Mocks {
        pub fn app(self) -> App {
            let ports = Ports {
                accounts: Arc::new(self.accounts),
                cardholders: Arc::new(self.cardholders),
                kyc: Arc::new(self.kyc),
                cards: Arc::new(self.cards),
                card_transactions: Arc::new(self.card_transactions),
                merchants: Arc::new(self.merchants),
                processor_auth: Arc::new(self.processor_auth),
                network: Arc::new(self.network),
                gateway: Arc::new(self.gateway),
                field_cipher: Arc::new(self.field_cipher),
                wallets: Arc::new(self.wallets),
                rate_limits: Arc::new(self.rate_limits),
                idempotency: Arc::new(self.idempotency),
                events: Arc::new(self.events),
                jobs: Arc::new(self.jobs),
                test_clocks: Arc::new(self.test_clocks),
                webhooks: Arc::new(self.webhooks),
                health: Arc::new(self.health),
                clock: Arc::new(self.clock),
                ids: Arc::new(self.ids),
                vault: Arc::new(self.vault),
                rewards: Arc::new(self.rewards),
                spending_controls: Arc::new(self.spending_controls),
                console: Arc::new(self.console),
                passwords: Arc::new(self.passwords),
                totp: Arc::new(self.totp),
                kyc_images: Arc::new(self.kyc_images),
                reconciliation: Arc::new(self.reconciliation),
            };
            let fx_rates = FxRates {
                ngn_usd: Amount::from_minor(160_000).unwrap(),
                usd_ngn: Amount::from_minor(155_000).unwrap(),
            };
            App::new(
                ports,
                Settings {
                    fx_rates,
                    regions: Arc::new(regions()),
                    max_wallet: domain::ledger::DEFAULT_MAX_WALLET,
                    webhook_allow_private: false,
                    key_cache_secs: self.key_cache_secs,
                    live_connectors: crate::health::LiveConnectors::Simulated,
                    hold_secs: domain::cards::hold::DEFAULT_HOLD_SECS,
                    gateway_budget: std::time::Duration::from_millis(2_500),
                },
            )
        }
    }

    /// A live USD card of `ch_1` of `acct_1`, active, holding 300.
    pub fn card(id: &str) -> ports::cards::CardRecord {
        use domain::cards::{CardLimit, CardType};
        ports::cards::CardRecord {
            id: domain::ids::CardId::new(id),
            account_id: AccountId::new("acct_1"),
            mode: Mode::Live,
            cardholder_id: domain::ids::CardholderId::new("ch_1"),
            card_type: CardType::Virtual,
            currency: domain::Currency::Usd,
            name: "Adaeze Okafor".into(),
            details: ports::cards::SealedDetails {
                pan: vec![],
                cvv: vec![],
                expiry_month: vec![],
                expiry_year: vec![],
            },
            last_4: "6789".into(),
            limit: CardLimit::Usd5k,
            fee_hold: domain::Amount::from_const(300),
            state: domain::cards::state::CardState::Active,
            pin_3ds_activated: false,
            meta_data: None,
            created_at: domain::Timestamp::from_unix(1),
            balance: 300,
            held: 0,
        }
    }

    pub fn caller(mode: Mode) -> Caller {
        Caller {
            account_id: AccountId::new("acct_1"),
            mode,
            secret_key: Secret::new("sk_test_x".into()),
        }
    }
}

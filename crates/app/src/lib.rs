//! Use cases of the card issuing service. Each lives in a file named after
//! its endpoint or command and adds its method to [`App`]. `App` holds the
//! ports; it never holds a connection or a transaction.

pub mod accounts;
pub mod fx;
pub mod health;
pub mod wallets;

use domain::fx::FxRates;
use domain::ids::AccountId;
use domain::{Mode, Secret};
use ports::accounts::AccountStore;
use ports::clock::Clock;
use ports::health::Health;
use ports::ids::Ids;
use ports::rate_limits::RateLimits;
use ports::vault::Vault;
use ports::wallets::WalletStore;
use std::sync::Arc;

/// The outside world, as the use cases see it.
#[derive(Clone)]
pub struct Ports {
    pub accounts: Arc<dyn AccountStore>,
    pub wallets: Arc<dyn WalletStore>,
    pub rate_limits: Arc<dyn RateLimits>,
    pub health: Arc<dyn Health>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn Ids>,
    pub vault: Arc<dyn Vault>,
}

/// Settings the use cases read.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub fx_rates: FxRates,
}

#[derive(Clone)]
pub struct App {
    ports: Ports,
    settings: Settings,
}

impl App {
    pub fn new(ports: Ports, settings: Settings) -> Self {
        Self { ports, settings }
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

#[cfg(any(test, feature = "mocks"))]
pub mod testing {
    //! An `App` over mocked ports, for the tests of this crate and of the
    //! HTTP layer: each test sets expectations only on the ports it should
    //! touch; any other call panics.

    use super::*;
    use domain::Amount;
    use ports::accounts::MockAccountStore;
    use ports::clock::MockClock;
    use ports::health::MockHealth;
    use ports::ids::MockIds;
    use ports::rate_limits::MockRateLimits;
    use ports::vault::MockVault;
    use ports::wallets::MockWalletStore;

    #[derive(Default)]
    pub struct Mocks {
        pub accounts: MockAccountStore,
        pub wallets: MockWalletStore,
        pub rate_limits: MockRateLimits,
        pub health: MockHealth,
        pub clock: MockClock,
        pub ids: MockIds,
        pub vault: MockVault,
    }

    impl Mocks {
        pub fn app(self) -> App {
            let ports = Ports {
                accounts: Arc::new(self.accounts),
                wallets: Arc::new(self.wallets),
                rate_limits: Arc::new(self.rate_limits),
                health: Arc::new(self.health),
                clock: Arc::new(self.clock),
                ids: Arc::new(self.ids),
                vault: Arc::new(self.vault),
            };
            let fx_rates = FxRates {
                ngn_usd: Amount::from_minor(160_000).unwrap(),
                usd_ngn: Amount::from_minor(155_000).unwrap(),
            };
            App::new(ports, Settings { fx_rates })
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

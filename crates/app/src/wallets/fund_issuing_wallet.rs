//! `PATCH /v1/issuing/sandbox/cards/fund_issuing_wallet?currency=`: the
//! sandbox faucet. In production wallets are funded through the dashboard.

use crate::{App, Caller};
use domain::{Amount, Currency, DomainError, ErrorKind, Mode};
use ports::StoreError;
use ports::wallets::FundWalletError;

#[derive(Debug, thiserror::Error)]
pub enum FundIssuingWalletError {
    #[error(
        "issuing wallets are funded through the dashboard in production; this helper is sandbox only"
    )]
    SandboxOnly,
    #[error("amount: the wallet balance would exceed the largest amount it can hold")]
    BalanceLimit,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<FundWalletError> for FundIssuingWalletError {
    fn from(e: FundWalletError) -> Self {
        match e {
            FundWalletError::BalanceLimit => FundIssuingWalletError::BalanceLimit,
            FundWalletError::Store(e) => FundIssuingWalletError::Store(e),
        }
    }
}

impl DomainError for FundIssuingWalletError {
    fn kind(&self) -> ErrorKind {
        match self {
            FundIssuingWalletError::SandboxOnly => ErrorKind::Forbidden,
            FundIssuingWalletError::BalanceLimit => ErrorKind::InvalidRequest,
            FundIssuingWalletError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            FundIssuingWalletError::SandboxOnly => "sandbox_only",
            FundIssuingWalletError::BalanceLimit => "wallet_balance_limit",
            FundIssuingWalletError::Store(e) => e.code(),
        }
    }
}

impl App {
    /// Credits the issuing wallet of `currency`; returns its new balance.
    pub async fn fund_issuing_wallet(
        &self,
        caller: &Caller,
        currency: Currency,
        amount: Amount,
    ) -> Result<Amount, FundIssuingWalletError> {
        if caller.mode != Mode::Test {
            return Err(FundIssuingWalletError::SandboxOnly);
        }
        let now = self.ports.clock.now();
        let balance = self
            .ports
            .wallets
            .fund_from_faucet(&caller.account_id, caller.mode, currency, amount, now)
            .await?;
        Ok(balance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, caller};

    fn amount(n: i64) -> Amount {
        Amount::from_minor(n).unwrap()
    }

    #[tokio::test]
    async fn funds_the_wallet_of_the_currency() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(5i64);
        m.wallets
            .expect_fund_from_faucet()
            .withf(|acct, mode, cur, amt, now| {
                acct.as_str() == "acct_1"
                    && *mode == Mode::Test
                    && *cur == Currency::Ngn
                    && amt.minor() == 700
                    && *now == 5
            })
            .return_once(|_, _, _, _, _| Ok(Amount::from_minor(1_700).unwrap()));
        let balance = m
            .app()
            .fund_issuing_wallet(&caller(Mode::Test), Currency::Ngn, amount(700))
            .await
            .unwrap();
        assert_eq!(balance.minor(), 1_700);
    }

    #[tokio::test]
    async fn live_mode_is_refused_without_touching_the_store() {
        let e = Mocks::default()
            .app()
            .fund_issuing_wallet(&caller(Mode::Live), Currency::Usd, amount(1))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Forbidden);
    }

    #[tokio::test]
    async fn a_balance_past_the_limit_is_a_bad_request() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(5i64);
        m.wallets
            .expect_fund_from_faucet()
            .return_once(|_, _, _, _, _| Err(FundWalletError::BalanceLimit));
        let e = m
            .app()
            .fund_issuing_wallet(&caller(Mode::Test), Currency::Usd, amount(1))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert!(e.to_string().starts_with("amount:"));
    }
}

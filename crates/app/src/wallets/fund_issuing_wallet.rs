//! `PATCH /v1/issuing/sandbox/cards/fund_issuing_wallet?currency=`: the
//! sandbox faucet. In production wallets are funded through the dashboard.

use crate::{App, Caller, RequestError};
use domain::{Amount, Currency, Mode};
use ports::wallets::FundWalletError;

impl App {
    /// Credits the issuing wallet of `currency`; returns its new balance.
    /// No amount above the most a wallet may hold is taken.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn fund_issuing_wallet(
        &self,
        caller: &Caller,
        currency: Currency,
        amount: Amount,
    ) -> Result<Amount, RequestError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly);
        }
        let max_wallet = self.settings.max_wallet;
        amount.at_most("amount", max_wallet, "the most an issuing wallet may hold")?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let funded = self
            .ports
            .wallets
            .fund_from_faucet(&caller.account_id, caller.mode, currency, amount, max_wallet, now)
            .await;
        match funded {
            Ok(balance) => Ok(balance),
            Err(FundWalletError::BalanceLimit) => Err(RequestError::SandboxFull(max_wallet)),
            Err(FundWalletError::UnknownAccount) => {
                Err(ports::StoreError::new(format!("the caller's account {} is unknown", caller.account_id)).into())
            }
            Err(FundWalletError::Store(e)) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, caller};
    use domain::{DomainError, ErrorKind};

    fn amount(n: i64) -> Amount {
        Amount::from_minor(n).unwrap()
    }

    #[tokio::test]
    async fn funds_the_wallet_of_the_currency_at_sandbox_time() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(5));
        m.test_clocks.expect_offset().returning(|_| Ok(10));
        m.wallets
            .expect_fund_from_faucet()
            .withf(|acct, mode, cur, amt, max, now| {
                acct.as_str() == "acct_1"
                    && *mode == Mode::Test
                    && *cur == Currency::Ngn
                    && amt.minor() == 700
                    && *max == domain::ledger::DEFAULT_MAX_WALLET
                    && now.unix() == 15
            })
            .return_once(|_, _, _, _, _, _| Ok(Amount::from_minor(1_700).unwrap()));
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
        assert_eq!(e.kind(), ErrorKind::NotFound);
    }

    #[tokio::test]
    async fn a_balance_past_the_limit_is_a_bad_request_naming_the_amount() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(5));
        m.test_clocks.expect_offset().returning(|_| Ok(0));
        m.wallets
            .expect_fund_from_faucet()
            .return_once(|_, _, _, _, _, _| Err(FundWalletError::BalanceLimit));
        let e = m
            .app()
            .fund_issuing_wallet(&caller(Mode::Test), Currency::Usd, amount(1))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert_eq!(
            e.code(),
            "wallet_balance_limit",
            "the wallet's state, not the request's shape"
        );
        assert!(e.to_string().starts_with("amount:"));
    }

    #[tokio::test]
    async fn an_amount_above_the_wallet_maximum_is_refused_before_the_store() {
        let too_much = domain::ledger::DEFAULT_MAX_WALLET.checked_add(amount(1)).unwrap();
        let e = Mocks::default()
            .app()
            .fund_issuing_wallet(&caller(Mode::Test), Currency::Usd, too_much)
            .await
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "amount: must be at most 10000000000000 (the most an issuing wallet may hold)"
        );
    }
}

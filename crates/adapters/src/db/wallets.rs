use super::ledger::{LedgerCode, ledger_account_id, post_transfer, transfer_rows};
use super::schema::ledger_accounts;
use super::{Db, DbError, with_conn};
use diesel::{ExpressionMethods, QueryDsl};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ids::AccountId;
use domain::{Amount, Currency, Mode, Timestamp};
use ports::StoreError;
use ports::wallets::{FundWalletError, WalletBalances, WalletStore};

#[async_trait::async_trait]
impl WalletStore for Db {
    async fn fund_from_faucet(
        &self,
        account: &AccountId,
        mode: Mode,
        currency: Currency,
        amount: Amount,
        max_wallet: Amount,
        now: Timestamp,
    ) -> Result<Amount, FundWalletError> {
        let now = now.unix();
        let faucet = &ledger_account_id(account, mode, LedgerCode::Faucet, currency);
        let wallet = &ledger_account_id(account, mode, LedgerCode::IssuingWallet, currency);
        let rows = &transfer_rows(account, mode, "wallet_funding", (faucet, wallet), currency, amount, now)?;
        let result = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, DbError, _>(async |conn| {
                if !post_transfer!(
                    conn,
                    rows,
                    faucet,
                    wallet,
                    amount,
                    keep = -max_wallet.minor(),
                    cap = max_wallet.minor()
                )? {
                    return Err(DbError::Refused);
                }
                ledger_accounts::table
                    .filter(ledger_accounts::id.eq(wallet))
                    .select(ledger_accounts::balance)
                    .first::<i64>(conn)
                    .await
                    .map_err(DbError::from)
            })
            .await
        });
        match result {
            Ok(balance) => Amount::from_minor(balance)
                .ok_or_else(|| StoreError::new(format!("wallet {wallet} holds a negative balance")).into()),
            Err(DbError::Refused) => Err(FundWalletError::BalanceLimit),
            Err(e) => Err(StoreError::from(e).into()),
        }
    }

    async fn balances(&self, account: &AccountId, mode: Mode) -> Result<WalletBalances, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            ledger_accounts::table
                .filter(ledger_accounts::account_id.eq(account.as_str()))
                .filter(ledger_accounts::livemode.eq(mode.is_live()))
                .filter(ledger_accounts::id.eq_any([
                    ledger_account_id(account, mode, LedgerCode::IssuingWallet, Currency::Usd),
                    ledger_account_id(account, mode, LedgerCode::IssuingWallet, Currency::Ngn),
                ]))
                .select((ledger_accounts::currency, ledger_accounts::balance))
                .load::<(String, i64)>(conn)
                .await
        })?;
        let balance_of = |currency: Currency| {
            let minor = rows.iter().find(|(c, _)| c == currency.code()).map_or(0, |(_, b)| *b);
            Amount::from_minor(minor)
                .ok_or_else(|| StoreError::new(format!("negative {} wallet balance", currency.code())))
        };
        Ok(WalletBalances {
            usd: balance_of(Currency::Usd)?,
            ngn: balance_of(Currency::Ngn)?,
        })
    }
}

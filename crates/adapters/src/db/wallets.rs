use super::ledger::{LedgerCode, entry_rows, ledger_account_id};
use super::schema::{ledger_accounts, ledger_entries, ledger_postings};
use super::{Db, DbError, with_conn};
use diesel::{ExpressionMethods, OptionalExtension, QueryDsl};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ids::{AccountId, EntryId};
use domain::ledger::Entry;
use domain::{Amount, Currency, Mode};
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
        now: i64,
    ) -> Result<Amount, FundWalletError> {
        let faucet = &ledger_account_id(account, mode, LedgerCode::Faucet, currency);
        let wallet = &ledger_account_id(account, mode, LedgerCode::IssuingWallet, currency);
        let entry = Entry::transfer(faucet.clone(), wallet.clone(), currency, amount)
            .map_err(|e| StoreError(format!("refused to post a wallet funding: {e}")))?;
        let entry_id = EntryId::with_suffix(&uuid::Uuid::new_v4().simple().to_string());
        let (entry_row, posting_rows) = &entry_rows(&entry_id, account, mode, "wallet_funding", &entry, now);
        let a = amount.minor();
        let result = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, DbError, _>(async |conn| {
                diesel::insert_into(ledger_entries::table)
                    .values(entry_row)
                    .execute(conn)
                    .await?;
                // Row by row: diesel-async cannot batch-insert on SQLite.
                for row in posting_rows {
                    diesel::insert_into(ledger_postings::table)
                        .values(row)
                        .execute(conn)
                        .await?;
                }
                let debited = diesel::update(ledger_accounts::table)
                    .filter(ledger_accounts::id.eq(faucet))
                    .filter(ledger_accounts::balance.ge(i64::MIN + a))
                    .set(ledger_accounts::balance.eq(ledger_accounts::balance - a))
                    .execute(conn)
                    .await?;
                if debited != 1 {
                    return Err(DbError::Refused);
                }
                // The wallet is the hot row: touched last, once.
                diesel::update(ledger_accounts::table)
                    .filter(ledger_accounts::id.eq(wallet))
                    .filter(ledger_accounts::balance.le(i64::MAX - a))
                    .set(ledger_accounts::balance.eq(ledger_accounts::balance + a))
                    .returning(ledger_accounts::balance)
                    .get_result::<i64>(conn)
                    .await
                    .optional()?
                    .ok_or(DbError::Refused)
            })
            .await
        });
        match result {
            Ok(balance) => Amount::from_minor(balance)
                .ok_or_else(|| StoreError(format!("wallet {wallet} holds a negative balance")).into()),
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
            Amount::from_minor(minor).ok_or_else(|| StoreError(format!("negative {} wallet balance", currency.code())))
        };
        Ok(WalletBalances {
            usd: balance_of(Currency::Usd)?,
            ngn: balance_of(Currency::Ngn)?,
        })
    }
}

use crate::db::money::ledger::{LedgerCode, ledger_account_id, post_transfer, transfer_rows};
use crate::db::money::steps::{TxError, violates};
use crate::db::schema::{ledger_accounts, wallet_credits};
use crate::db::{Db, DbError, with_conn};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::{ExpressionMethods, QueryDsl};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ids::AccountId;
use domain::ledger::AccountKind;
use domain::{Amount, Currency, Mode, Timestamp};
use ports::StoreError;
use ports::wallets::{CreditOutcome, FundWalletError, WalletBalances, WalletCredit, WalletStore};

/// Why a credit's transaction was rolled back.
enum Refusal {
    UnknownAccount,
    BalanceLimit,
    /// A credit holds the reference (read again after the rollback).
    ReferenceUsed,
}

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

    async fn credit_from_deposits(
        &self,
        credit: &WalletCredit,
        max_wallet: Amount,
        now: Timestamp,
    ) -> Result<CreditOutcome, FundWalletError> {
        let (account, mode, currency, amount) = (&credit.account, credit.mode, credit.currency, credit.amount);
        let now = now.unix();
        let deposits = &ledger_account_id(account, mode, LedgerCode::Deposits, currency);
        let wallet = &ledger_account_id(account, mode, LedgerCode::IssuingWallet, currency);
        let rows = &transfer_rows(
            account,
            mode,
            "wallet_credit",
            (deposits, wallet),
            currency,
            amount,
            now,
        )?;
        let floor = *AccountKind::Deposits.allowed(currency, max_wallet).start();
        let result = with_conn!(self.pool(), |conn| {
            let result = conn
                .transaction::<_, TxError<Refusal>, _>(async |conn| {
                    // The reference first: a write, so SQLite takes its one
                    // writer's lock at once; on PostgreSQL a twin inserting
                    // the same reference waits here for this one's outcome.
                    // A retry finds its credit whatever the wallet holds now.
                    diesel::insert_into(wallet_credits::table)
                        .values((
                            wallet_credits::account_id.eq(account.as_str()),
                            wallet_credits::livemode.eq(mode.is_live()),
                            wallet_credits::reference.eq(&credit.reference),
                            wallet_credits::currency.eq(currency.code()),
                            wallet_credits::amount.eq(amount.minor()),
                            wallet_credits::note.eq(&credit.note),
                            wallet_credits::entry_id.eq(rows.0.id()),
                            wallet_credits::created_at.eq(now),
                        ))
                        .execute(conn)
                        .await
                        .map_err(|e| match e {
                            _ if violates(&e, "wallet_credits") => TxError::Refused(Refusal::ReferenceUsed),
                            DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _) => {
                                TxError::Refused(Refusal::UnknownAccount)
                            }
                            e => TxError::from(e),
                        })?;
                    if !post_transfer!(
                        conn,
                        rows,
                        deposits,
                        wallet,
                        amount,
                        keep = floor,
                        cap = max_wallet.minor()
                    )? {
                        return Err(TxError::Refused(Refusal::BalanceLimit));
                    }
                    let balance = ledger_accounts::table
                        .filter(ledger_accounts::id.eq(wallet))
                        .select(ledger_accounts::balance)
                        .first::<i64>(conn)
                        .await?;
                    Ok(balance)
                })
                .await;
            let earlier = match result {
                Err(TxError::Refused(Refusal::ReferenceUsed)) => Some(
                    wallet_credits::table
                        .filter(wallet_credits::account_id.eq(account.as_str()))
                        .filter(wallet_credits::livemode.eq(mode.is_live()))
                        .filter(wallet_credits::reference.eq(&credit.reference))
                        .select((
                            wallet_credits::currency,
                            wallet_credits::amount,
                            wallet_credits::created_at,
                        ))
                        .first::<(String, i64, i64)>(conn)
                        .await?,
                ),
                _ => None,
            };
            Ok::<_, DbError>((result, earlier))
        })
        .map_err(StoreError::from)?;
        match result {
            (Ok(balance), _) => Ok(CreditOutcome::Credited {
                balance: Amount::from_minor(balance).ok_or_else(|| {
                    StoreError::new(format!("wallet {wallet} holds {balance}, outside 0..=Amount::MAX"))
                })?,
            }),
            (_, Some((currency, amount, created_at))) => {
                let unreadable = || StoreError::new(format!("the credit {} is unreadable", credit.reference));
                Ok(CreditOutcome::AlreadyCredited {
                    currency: Currency::parse("currency", &currency).map_err(|_| unreadable())?,
                    amount: Amount::from_minor(amount).ok_or_else(unreadable)?,
                    created_at: Timestamp::from_unix(created_at),
                })
            }
            (Err(TxError::Refused(Refusal::UnknownAccount)), _) => Err(FundWalletError::UnknownAccount),
            (Err(TxError::Refused(Refusal::BalanceLimit)), _) => Err(FundWalletError::BalanceLimit),
            // The read after the rollback finds the credit or fails above.
            (Err(TxError::Refused(Refusal::ReferenceUsed)), None) => {
                Err(StoreError::new(format!("the credit {} was not found again", credit.reference)).into())
            }
            (Err(TxError::Db(e)), _) => Err(StoreError::from(e).into()),
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

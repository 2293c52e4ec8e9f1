//! The steps every money transaction of cards and card transactions is
//! made of: the client reference, the ledger places of a card, the refund
//! of a deleted card, and how a transaction's refusal differs from a
//! failure.

use crate::db::DbError;
use crate::db::money::ledger::{CardLedger, LedgerCode, card_ledger_account_id, ledger_account_id};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use domain::cards::transfer::Place;
use domain::ids::AccountId;
use domain::{Currency, Mode};
use ports::StoreError;

/// A refusal inside a transaction (rolled back), or a database failure.
pub(in crate::db) enum TxError<R> {
    Refused(R),
    Db(DbError),
}

impl<R> From<DieselError> for TxError<R> {
    fn from(e: DieselError) -> Self {
        TxError::Db(DbError::from(e))
    }
}

impl From<TxError<()>> for DbError {
    fn from(e: TxError<()>) -> Self {
        match e {
            TxError::Db(e) => e,
            TxError::Refused(()) => DbError::Refused,
        }
    }
}

impl<R> From<StoreError> for TxError<R> {
    fn from(e: StoreError) -> Self {
        TxError::Db(DbError::Store(e))
    }
}

/// A transaction's result for the caller: a refusal as it is, a database
/// failure as a store error.
pub(in crate::db) fn refused_or_failed<T, E: From<StoreError>>(result: Result<T, TxError<E>>) -> Result<T, E> {
    result.map_err(|e| match e {
        TxError::Refused(e) => e,
        TxError::Db(e) => StoreError::from(e).into(),
    })
}

/// A transaction's result for the caller when a refusal is one of its
/// outcomes: the outcome either way, a database failure as a store error.
pub(in crate::db) fn outcome_or_failed<T>(result: Result<T, TxError<T>>) -> Result<T, StoreError> {
    match result {
        Ok(outcome) | Err(TxError::Refused(outcome)) => Ok(outcome),
        Err(TxError::Db(e)) => Err(e.into()),
    }
}

/// Whether `e` is a unique violation of an index or key whose name
/// contains `name` (SQLite names the table, PostgreSQL the constraint).
pub(in crate::db) fn violates(e: &DieselError, name: &str) -> bool {
    matches!(e, DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info)
        if info.message().contains(name) || info.constraint_name().is_some_and(|c| c.contains(name)))
}

pub(in crate::db) fn wallet(account: &AccountId, mode: Mode, currency: Currency) -> String {
    ledger_account_id(account, mode, LedgerCode::IssuingWallet, currency)
}

/// The ledger account ids of a card's money places, in its currency.
pub(in crate::db) struct Places {
    pub(in crate::db) wallet: String,
    pub(in crate::db) card: String,
    pub(in crate::db) transit: String,
}

impl Places {
    pub(in crate::db) fn of(account: &AccountId, mode: Mode, card: &str, currency: Currency) -> Self {
        Places {
            wallet: wallet(account, mode, currency),
            card: card_ledger_account_id(card, CardLedger::Balance),
            transit: card_ledger_account_id(card, CardLedger::Transit),
        }
    }

    pub(in crate::db) fn id(&self, place: Place) -> &str {
        match place {
            Place::Wallet => &self.wallet,
            Place::Card => &self.card,
            Place::Transit => &self.transit,
        }
    }
}

/// The live (not deleted) cards of an account and mode.
macro_rules! mine {
    ($account:expr, $mode:expr) => {
        cards::table
            .filter(cards::account_id.eq($account.as_str()))
            .filter(cards::livemode.eq($mode.is_live()))
            .filter(cards::deleted_at.is_null())
    };
}
pub(in crate::db) use mine;

/// Inside a transaction: takes `$reference` for the account and mode, or
/// refuses with `$refusal` when it was used (fundings, unloadings and
/// debits share the clients' namespace, held by a primary key; the
/// service's own steps never take a reference there).
macro_rules! take_reference {
    ($conn:expr, $account:expr, $mode:expr, $reference:expr, $now:expr, $refusal:expr) => {
        diesel::insert_into(transaction_references::table)
            .values((
                transaction_references::account_id.eq($account.as_str()),
                transaction_references::livemode.eq($mode.is_live()),
                transaction_references::reference.eq($reference),
                transaction_references::created_at.eq($now),
            ))
            .execute($conn)
            .await
            .map_err(|e| match violates(&e, "transaction_references") {
                true => TxError::Refused($refusal),
                false => TxError::from(e),
            })?
    };
}
pub(in crate::db) use take_reference;

/// Inside a deletion's transaction, after the card row is marked deleted:
/// clears the card's balance as [`domain::ledger::DeletedBalance`] decides. Money on it
/// (its held fee included) goes to the issuing wallet of its currency; a
/// negative balance (a forced post) is written off to the account's
/// losses, never past zero. Returns what went to the wallet.
macro_rules! clear_deleted_balance {
    ($conn:expr, $account:expr, $mode:expr, $card:expr, $now:expr) => {{
        let card_account = &card_ledger_account_id($card, CardLedger::Balance);
        let (balance, currency) = ledger_accounts::table
            .filter(ledger_accounts::id.eq(card_account))
            .select((ledger_accounts::balance, ledger_accounts::currency))
            .first::<(i64, String)>($conn)
            .await?;
        let currency = Currency::parse("currency", &currency).map_err(|_| TxError::Db(DbError::Refused))?;
        // Its record, which the ledger check ties the movement to.
        {
            use $crate::db::schema::card_openings;
            diesel::update(card_openings::table.find(($account.as_str(), $card)))
                .set(card_openings::closed_with.eq(balance))
                .execute($conn)
                .await?;
        }
        // The movement, and what of it reaches the wallet.
        let (movement, refund) =
            match domain::ledger::DeletedBalance::of(balance).ok_or(TxError::Db(DbError::Refused))? {
                domain::ledger::DeletedBalance::Empty => (None, Amount::ZERO),
                domain::ledger::DeletedBalance::Refund(amount) => (
                    Some((
                        "card_deletion",
                        (card_account.clone(), 0),
                        (wallet($account, $mode, currency), Amount::MAX.minor()),
                        amount,
                    )),
                    amount,
                ),
                domain::ledger::DeletedBalance::WriteOff(amount) => (
                    Some((
                        "card_write_off",
                        (
                            $crate::db::money::ledger::ledger_account_id(
                                $account,
                                $mode,
                                $crate::db::money::ledger::LedgerCode::Losses,
                                currency,
                            ),
                            *domain::ledger::AccountKind::Losses
                                .allowed(currency, Amount::MAX)
                                .start(),
                        ),
                        (card_account.clone(), 0),
                        amount,
                    )),
                    Amount::ZERO,
                ),
            };
        if let Some((kind, (from, keep), (to, cap), amount)) = movement {
            let rows = transfer_rows($account, $mode, kind, (&from, &to), currency, amount, $now)?;
            if !post_transfer!($conn, &rows, &from, &to, amount, keep = keep, cap = cap)? {
                return Err(TxError::Db(DbError::Refused));
            }
        }
        Ok::<Amount, TxError<_>>(refund)
    }};
}
pub(in crate::db) use clear_deleted_balance;

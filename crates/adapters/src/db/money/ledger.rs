//! The double-entry ledger: ledger accounts with cached balances, entries
//! and their postings. The audit `issuing ledger check` runs is
//! [`crate::db::money::ledger_audit`].

use crate::db::schema::{ledger_accounts, ledger_entries, ledger_postings};
use diesel::Insertable;
use domain::ids::{AccountId, EntryId};
use domain::ledger::{AccountKind, Entry};
use domain::{Amount, Currency, Mode};
use ports::StoreError;

/// What a ledger account holds money for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerCode {
    /// The account's issuing wallet; never negative.
    IssuingWallet,
    /// The sandbox's source of test money; negative by design.
    Faucet,
    /// Monthly maintenance fees charged from the account's cards.
    FeeIncome,
    /// What the operator credited to the issuing wallet; negative by design.
    Deposits,
    /// Deleted cards' negative balances, written off.
    Losses,
}

impl LedgerCode {
    fn as_str(self) -> &'static str {
        match self {
            LedgerCode::IssuingWallet => AccountKind::IssuingWallet,
            LedgerCode::Faucet => AccountKind::Faucet,
            LedgerCode::FeeIncome => AccountKind::FeeIncome,
            LedgerCode::Deposits => AccountKind::Deposits,
            LedgerCode::Losses => AccountKind::Losses,
        }
        .as_str()
    }
}

/// Ledger account ids are derived, so a money step needs no lookup.
pub fn ledger_account_id(account: &AccountId, mode: Mode, code: LedgerCode, currency: Currency) -> String {
    format!("la_{account}_{}_{}_{}", mode.as_str(), code.as_str(), currency.code())
}

/// What a card's ledger accounts hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardLedger {
    /// The money on the card.
    Balance,
    /// Fundings and unloadings of the card reserved but not yet settled.
    Transit,
    /// What the card spent, settled to the network.
    Spend,
    /// What the card's pending authorizations hold.
    Held,
}

impl CardLedger {
    fn as_str(self) -> &'static str {
        match self {
            CardLedger::Balance => AccountKind::Card,
            CardLedger::Transit => AccountKind::CardTransit,
            CardLedger::Spend => AccountKind::CardSpend,
            CardLedger::Held => AccountKind::CardHeld,
        }
        .as_str()
    }
}

/// A card's ledger account id: `la_<card id>` or `la_<card id>_transit`.
pub fn card_ledger_account_id(card: &str, which: CardLedger) -> String {
    match which {
        CardLedger::Balance => format!("la_{card}"),
        CardLedger::Transit => format!("la_{card}_transit"),
        CardLedger::Spend => format!("la_{card}_spend"),
        CardLedger::Held => format!("la_{card}_held"),
    }
}

/// The balance and transit accounts of each of `cards`, in their order:
/// what a batch that moves money on cards reads.
pub(in crate::db) fn balance_and_transit<'a>(cards: impl IntoIterator<Item = &'a str>) -> impl Iterator<Item = String> {
    cards.into_iter().flat_map(|id| {
        [
            card_ledger_account_id(id, CardLedger::Balance),
            card_ledger_account_id(id, CardLedger::Transit),
        ]
    })
}

#[derive(Insertable)]
#[diesel(table_name = ledger_accounts)]
pub struct LedgerAccountRow {
    id: String,
    account_id: String,
    livemode: bool,
    code: String,
    currency: &'static str,
    balance: i64,
    created_at: i64,
}

impl LedgerAccountRow {
    pub fn new(account: &AccountId, mode: Mode, code: LedgerCode, currency: Currency, now: i64) -> Self {
        Self {
            id: ledger_account_id(account, mode, code, currency),
            account_id: account.to_string(),
            livemode: mode.is_live(),
            code: code.as_str().to_string(),
            currency: currency.code(),
            balance: 0,
            created_at: now,
        }
    }

    /// One of a card's accounts, in USD; its code is `card:<card id>`,
    /// `card_transit:<card id>`, `card_spend:<card id>` or
    /// `card_held:<card id>`.
    pub fn card(account: &AccountId, mode: Mode, card: &str, which: CardLedger, currency: Currency, now: i64) -> Self {
        Self {
            id: card_ledger_account_id(card, which),
            account_id: account.to_string(),
            livemode: mode.is_live(),
            code: format!("{}:{card}", which.as_str()),
            currency: currency.code(),
            balance: 0,
            created_at: now,
        }
    }
}

#[derive(Insertable)]
#[diesel(table_name = ledger_entries)]
pub struct EntryRow {
    pub(in crate::db) id: String,
    pub(in crate::db) account_id: String,
    pub(in crate::db) livemode: bool,
    pub(in crate::db) kind: &'static str,
    pub(in crate::db) created_at: i64,
}

impl EntryRow {
    pub fn id(&self) -> &str {
        &self.id
    }
}

#[derive(Insertable)]
#[diesel(table_name = ledger_postings)]
pub struct PostingRow {
    pub(in crate::db) account_id: String,
    pub(in crate::db) entry_id: String,
    pub(in crate::db) seq: i32,
    pub(in crate::db) ledger_account_id: String,
    pub(in crate::db) currency: &'static str,
    pub(in crate::db) amount: i64,
}

/// The rows that record `entry`: one entry row and one row per posting.
pub fn entry_rows(
    id: &EntryId,
    account: &AccountId,
    mode: Mode,
    kind: &'static str,
    entry: &Entry<String>,
    now: i64,
) -> (EntryRow, Vec<PostingRow>) {
    let postings = entry
        .postings()
        .iter()
        .zip(0..)
        .map(|(p, seq)| PostingRow {
            account_id: account.to_string(),
            entry_id: id.to_string(),
            seq,
            ledger_account_id: p.account.clone(),
            currency: p.currency.code(),
            amount: p.amount,
        })
        .collect();
    let row = EntryRow {
        id: id.to_string(),
        account_id: account.to_string(),
        livemode: mode.is_live(),
        kind,
        created_at: now,
    };
    (row, postings)
}

/// The rows of a two-posting entry moving `amount` from one ledger account
/// to another.
pub fn transfer_rows(
    account: &AccountId,
    mode: Mode,
    kind: &'static str,
    (from, to): (&str, &str),
    currency: Currency,
    amount: Amount,
    now: i64,
) -> Result<(EntryRow, Vec<PostingRow>), StoreError> {
    let entry = Entry::transfer(from.to_string(), to.to_string(), currency, amount)
        .map_err(|e| StoreError::new(format!("refused to post a {kind}: {e}")))?;
    let id = EntryId::with_suffix(&uuid::Uuid::new_v4().simple().to_string());
    Ok(entry_rows(&id, account, mode, kind, &entry, now))
}

/// Posts an entry from [`transfer_rows`] inside the caller's transaction:
/// inserts it, credits `$to` (never past `$cap`), then debits `$from`
/// (leaving at least `$keep`: below zero only for the faucet and a
/// network-forced post). `$amount` is an [`Amount`], so at most
/// [`Amount::MAX`]; the guards compare `balance + amount` and
/// `balance - amount` in SQL, where balances within their ranges cannot
/// overflow (no sum is computed in Rust, where it could wrap). Yields
/// `Ok(false)` when a guard refused; the caller must then roll back.
macro_rules! post_transfer {
    ($conn:expr, $rows:expr, $from:expr, $to:expr, $amount:expr, keep = $keep:expr, cap = $cap:expr) => {{
        use $crate::db::schema::{ledger_accounts as la, ledger_entries, ledger_postings};
        let (entry_row, posting_rows) = $rows;
        let a: i64 = domain::Amount::minor($amount);
        let (keep, cap): (i64, i64) = ($keep, $cap);
        // Every posting's ledger account is the entry's account's.
        let account = entry_row.account_id.clone();
        diesel::insert_into(ledger_entries::table)
            .values(entry_row)
            .execute($conn)
            .await?;
        // Row by row: diesel-async cannot batch-insert on SQLite.
        for row in posting_rows {
            diesel::insert_into(ledger_postings::table)
                .values(row)
                .execute($conn)
                .await?;
        }
        let credited = diesel::update(la::table)
            .filter(la::account_id.eq(&account))
            .filter(la::id.eq($to))
            .filter((la::balance + a).le(cap))
            .set(la::balance.eq(la::balance + a))
            .execute($conn)
            .await?;
        let debited = if credited == 1 {
            diesel::update(la::table)
                .filter(la::account_id.eq(&account))
                .filter(la::id.eq($from))
                .filter((la::balance - a).ge(keep))
                .set(la::balance.eq(la::balance - a))
                .execute($conn)
                .await?
        } else {
            0
        };
        Ok::<bool, diesel::result::Error>(credited == 1 && debited == 1)
    }};
}
pub(crate) use post_transfer;

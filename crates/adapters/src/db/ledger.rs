//! The double-entry ledger: ledger accounts with cached balances, entries
//! and their postings, and the audit that `issuing ledger check` runs.

use super::schema::{jobs, ledger_accounts, ledger_entries, ledger_postings};
use super::{Db, with_conn};
use diesel::sql_types::{BigInt, Bool, Text};
use diesel::{ExpressionMethods, Insertable, QueryDsl, QueryableByName};
use diesel_async::RunQueryDsl;
use domain::ids::{AccountId, EntryId};
use domain::ledger::{AccountKind, Breach, Entry};
use domain::{Amount, Currency, Mode};
use ports::StoreError;
use ports::ledger::LedgerTotal;
use std::collections::BTreeMap;

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
    pub(super) id: String,
    pub(super) account_id: String,
    pub(super) livemode: bool,
    pub(super) kind: &'static str,
    pub(super) created_at: i64,
}

impl EntryRow {
    pub fn id(&self) -> &str {
        &self.id
    }
}

#[derive(Insertable)]
#[diesel(table_name = ledger_postings)]
pub struct PostingRow {
    pub(super) account_id: String,
    pub(super) entry_id: String,
    pub(super) seq: i32,
    pub(super) ledger_account_id: String,
    pub(super) currency: &'static str,
    pub(super) amount: i64,
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

#[derive(QueryableByName)]
struct UnbalancedRow {
    #[diesel(sql_type = Text)]
    entry_id: String,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    total: i64,
}

#[derive(QueryableByName)]
struct ShortEntryRow {
    #[diesel(sql_type = Text)]
    entry_id: String,
    #[diesel(sql_type = BigInt)]
    postings: i64,
}

#[derive(QueryableByName)]
struct MismatchRow {
    #[diesel(sql_type = Text)]
    ledger_account: String,
    #[diesel(sql_type = BigInt)]
    cached: i64,
    #[diesel(sql_type = BigInt)]
    postings: i64,
}

#[derive(QueryableByName)]
struct EntryAccountRow {
    #[diesel(sql_type = Text)]
    entry_id: String,
    #[diesel(sql_type = Text)]
    ledger_account: String,
}

// The audit queries are plain SQL that both dialects accept: aggregates
// with HAVING read more clearly here than through the query builder.
const UNBALANCED: &str = "SELECT entry_id, currency, CAST(SUM(amount) AS BIGINT) AS total \
     FROM ledger_postings GROUP BY entry_id, currency HAVING SUM(amount) <> 0 ORDER BY entry_id";
const SHORT_ENTRIES: &str = "SELECT e.id AS entry_id, CAST(COUNT(p.seq) AS BIGINT) AS postings \
     FROM ledger_entries e LEFT JOIN ledger_postings p ON p.account_id = e.account_id AND p.entry_id = e.id \
     GROUP BY e.id HAVING COUNT(p.seq) < 2 ORDER BY e.id";
const MISMATCHED: &str = "SELECT a.id AS ledger_account, a.balance AS cached, \
     CAST(COALESCE(SUM(p.amount), 0) AS BIGINT) AS postings \
     FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.account_id AND p.ledger_account_id = a.id \
     GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(p.amount), 0) ORDER BY a.id";
const CURRENCY_MISMATCH: &str = "SELECT p.entry_id, p.ledger_account_id AS ledger_account \
     FROM ledger_postings p JOIN ledger_accounts a ON a.account_id = p.account_id AND a.id = p.ledger_account_id \
     WHERE p.currency <> a.currency ORDER BY p.entry_id";

/// A card and two amounts the books must agree on.
#[derive(QueryableByName)]
struct CardAmountsRow {
    #[diesel(sql_type = Text)]
    card_id: String,
    #[diesel(sql_type = BigInt)]
    held: i64,
    #[diesel(sql_type = BigInt)]
    expected: i64,
}

// Money moves within one account and one mode: no ledger account is
// shared between accounts or modes, the system's own included.
const CROSS_BOOKS: &str = "SELECT p.entry_id, p.ledger_account_id AS ledger_account \
     FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id \
     JOIN ledger_accounts a ON a.id = p.ledger_account_id \
     WHERE a.account_id <> e.account_id OR a.livemode <> e.livemode ORDER BY p.entry_id, p.seq";
const DELETED_CARDS_HOLDING: &str = "SELECT c.id AS card_id, a.balance AS held, CAST(0 AS BIGINT) AS expected \
     FROM cards c JOIN ledger_accounts a ON a.account_id = c.account_id AND a.id = 'la_' || c.id \
     WHERE c.deleted_at IS NOT NULL AND a.balance <> 0 ORDER BY c.id";
const TRANSIT_MISMATCHED: &str = "SELECT c.id AS card_id, a.balance AS held, \
     CAST(COALESCE(SUM(t.amount), 0) AS BIGINT) AS expected \
     FROM cards c JOIN ledger_accounts a ON a.account_id = c.account_id AND a.id = 'la_' || c.id || '_transit' \
     LEFT JOIN card_transfers t ON t.account_id = c.account_id AND t.card_id = c.id AND t.state = 'pending' \
     GROUP BY c.id, a.balance HAVING a.balance <> COALESCE(SUM(t.amount), 0) ORDER BY c.id";
const UNRECORDED_DEPOSITS: &str = "SELECT p.entry_id, p.ledger_account_id AS ledger_account \
     FROM ledger_postings p JOIN ledger_accounts a ON a.account_id = p.account_id AND a.id = p.ledger_account_id \
     LEFT JOIN wallet_credits w ON w.account_id = p.account_id AND w.entry_id = p.entry_id AND w.amount = -p.amount \
     WHERE a.code = 'deposits' AND w.entry_id IS NULL ORDER BY p.entry_id";
// What a card's held account holds, against its pending holds
// (authorizations and their increments) less what reversals released of
// them.
const HELD_MISMATCHED: &str = "SELECT card_id, held, expected FROM (SELECT c.id AS card_id, a.balance AS held, \
     CAST(COALESCE((SELECT SUM(t.amount) FROM card_transactions t \
         WHERE t.account_id = c.account_id AND t.card_id = c.id AND t.status = 'pending'), 0) \
       - COALESCE((SELECT SUM(r.amount) FROM card_reversals r JOIN card_transactions t ON t.account_id = r.account_id AND t.id = r.transaction_id \
         WHERE r.account_id = c.account_id AND r.card_id = c.id AND t.status = 'pending'), 0) AS BIGINT) AS expected \
     FROM cards c JOIN ledger_accounts a ON a.account_id = c.account_id AND a.id = 'la_' || c.id || '_held') books \
     WHERE held <> expected ORDER BY card_id";
// What left a card for its spend account or as a fee, against its
// approved transactions (debits and fees alike) less what the processor
// gave back of them (refunds, reversals).
const SPEND_MISMATCHED: &str = "SELECT card_id, held, expected FROM (SELECT c.id AS card_id, \
     CAST(s.balance + COALESCE((SELECT -SUM(p.amount) FROM ledger_postings p \
         JOIN ledger_entries e ON e.account_id = p.account_id AND e.id = p.entry_id \
         WHERE p.account_id = c.account_id AND p.ledger_account_id = 'la_' || c.id AND e.kind = 'maintenance_fee'), 0) AS BIGINT) AS held, \
     CAST(COALESCE((SELECT SUM(t.amount) FROM card_transactions t \
         WHERE t.account_id = c.account_id AND t.card_id = c.id AND t.status = 'approved'), 0) \
       - COALESCE((SELECT SUM(r.amount) FROM card_reversals r JOIN card_transactions t ON t.account_id = r.account_id AND t.id = r.transaction_id \
         WHERE r.account_id = c.account_id AND r.card_id = c.id AND t.kind IN ('debit', 'capture')), 0) AS BIGINT) AS expected \
     FROM cards c JOIN ledger_accounts s ON s.account_id = c.account_id AND s.id = 'la_' || c.id || '_spend') books \
     WHERE held <> expected ORDER BY card_id";

#[derive(QueryableByName)]
struct BalanceRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Bool)]
    livemode: bool,
    #[diesel(sql_type = Text)]
    code: String,
    #[diesel(sql_type = Text)]
    currency: String,
    #[diesel(sql_type = BigInt)]
    balance: i64,
}

const BALANCES: &str = "SELECT id, livemode, code, currency, balance FROM ledger_accounts ORDER BY id";

impl BalanceRow {
    /// A card's account codes carry its id (`card:<id>`); the kind is
    /// what precedes it.
    fn kind(&self) -> &str {
        self.code.split_once(':').map_or(self.code.as_str(), |(kind, _)| kind)
    }
}

/// What the books must agree on beyond each entry and balance: one
/// account and mode per entry, and the tables that describe the money.
struct Books {
    cross: Vec<EntryAccountRow>,
    deleted: Vec<CardAmountsRow>,
    transit: Vec<CardAmountsRow>,
    deposits: Vec<EntryAccountRow>,
    spend: Vec<CardAmountsRow>,
    held: Vec<CardAmountsRow>,
}

impl Books {
    fn breaches(self) -> impl Iterator<Item = Breach> {
        let cross = self.cross.into_iter().map(|r| Breach::CrossBooks {
            entry_id: r.entry_id,
            ledger_account: r.ledger_account,
        });
        let deleted = self.deleted.into_iter().map(|r| Breach::DeletedCardHolds {
            card_id: r.card_id,
            balance: r.held,
        });
        let transit = self.transit.into_iter().map(|r| Breach::TransitMismatch {
            card_id: r.card_id,
            transit: r.held,
            pending: r.expected,
        });
        let deposits = self.deposits.into_iter().map(|r| Breach::UnrecordedDeposit {
            entry_id: r.entry_id,
            ledger_account: r.ledger_account,
        });
        let spend = self.spend.into_iter().map(|r| Breach::SpendMismatch {
            card_id: r.card_id,
            posted: r.held,
            recorded: r.expected,
        });
        let held = self.held.into_iter().map(|r| Breach::HeldMismatch {
            card_id: r.card_id,
            held: r.held,
            pending: r.expected,
        });
        cross
            .chain(deleted)
            .chain(transit)
            .chain(deposits)
            .chain(spend)
            .chain(held)
    }
}

#[async_trait::async_trait]
impl ports::ledger::LedgerAudit for Db {
    async fn totals(&self) -> Result<Vec<LedgerTotal>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            diesel::sql_query(BALANCES).load::<BalanceRow>(conn).await
        })?;
        let mut totals = BTreeMap::<(bool, String, String), i128>::new();
        for row in rows {
            *totals
                .entry((row.livemode, row.kind().to_string(), row.currency.clone()))
                .or_default() += i128::from(row.balance);
        }
        Ok(totals
            .into_iter()
            .map(|((live, kind, currency), balance)| LedgerTotal {
                mode: if live { Mode::Live } else { Mode::Test },
                kind,
                currency,
                balance,
            })
            .collect())
    }

    async fn breaches(&self, max_wallet: Amount) -> Result<Vec<Breach>, StoreError> {
        let (unbalanced, short, mismatched, balances, currency, parked, books) = with_conn!(self.pool(), |conn| {
            let unbalanced = diesel::sql_query(UNBALANCED).load::<UnbalancedRow>(conn).await?;
            let short = diesel::sql_query(SHORT_ENTRIES).load::<ShortEntryRow>(conn).await?;
            let mismatched = diesel::sql_query(MISMATCHED).load::<MismatchRow>(conn).await?;
            let balances = diesel::sql_query(BALANCES).load::<BalanceRow>(conn).await?;
            let currency = diesel::sql_query(CURRENCY_MISMATCH)
                .load::<EntryAccountRow>(conn)
                .await?;
            let parked = jobs::table
                .filter(jobs::state.eq(super::jobs::FAILED))
                .filter(jobs::kind.eq_any(super::jobs::money_kinds()))
                .order(jobs::id)
                .select((jobs::id, jobs::kind, jobs::subject, jobs::last_error))
                .load::<(String, String, String, Option<String>)>(conn)
                .await?;
            let books = Books {
                cross: diesel::sql_query(CROSS_BOOKS).load::<EntryAccountRow>(conn).await?,
                deleted: diesel::sql_query(DELETED_CARDS_HOLDING)
                    .load::<CardAmountsRow>(conn)
                    .await?,
                transit: diesel::sql_query(TRANSIT_MISMATCHED)
                    .load::<CardAmountsRow>(conn)
                    .await?,
                deposits: diesel::sql_query(UNRECORDED_DEPOSITS)
                    .load::<EntryAccountRow>(conn)
                    .await?,
                spend: diesel::sql_query(SPEND_MISMATCHED).load::<CardAmountsRow>(conn).await?,
                held: diesel::sql_query(HELD_MISMATCHED).load::<CardAmountsRow>(conn).await?,
            };
            Ok::<_, diesel::result::Error>((unbalanced, short, mismatched, balances, currency, parked, books))
        })?;
        // An account of no known kind may hold nothing.
        let out_of_range = balances.into_iter().filter_map(|row| {
            // An account in no known currency may hold nothing either.
            let kind = AccountKind::parse(row.kind()).zip(Currency::parse("currency", &row.currency).ok());
            let allowed = kind.map_or(0..=0, |(kind, currency)| kind.allowed(currency, max_wallet));
            (!allowed.contains(&row.balance)).then_some(Breach::OutOfRange {
                ledger_account: row.id,
                balance: row.balance,
                allowed,
            })
        });
        let breaches = unbalanced
            .into_iter()
            .map(|r| Breach::Unbalanced {
                entry_id: r.entry_id,
                currency: r.currency,
                sum: r.total,
            })
            .chain(short.into_iter().map(|r| Breach::TooFewPostings {
                entry_id: r.entry_id,
                postings: r.postings,
            }))
            .chain(mismatched.into_iter().map(|r| Breach::BalanceMismatch {
                ledger_account: r.ledger_account,
                cached: r.cached,
                postings: r.postings,
            }))
            .chain(out_of_range)
            .chain(currency.into_iter().map(|r| Breach::CurrencyMismatch {
                entry_id: r.entry_id,
                ledger_account: r.ledger_account,
            }))
            .chain(books.breaches())
            .chain(
                parked
                    .into_iter()
                    .map(|(job_id, kind, subject, error)| Breach::ParkedMoneyJob {
                        job_id,
                        kind,
                        subject,
                        error: error.unwrap_or_default(),
                    }),
            )
            .collect();
        Ok(breaches)
    }
}

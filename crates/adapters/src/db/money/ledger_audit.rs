//! `issuing ledger check`: every invariant that ties the books to the
//! records ([`ports::ledger::LedgerAudit`]). Balanced is not enough, so
//! besides each entry and each cached balance it checks that every entry
//! is the kind of move its record makes, and that what each card's entries
//! of a kind posted equals what its records of that kind total; since every
//! posting to a card's accounts belongs to one of those kinds, a card's
//! balance is then the sum of its records, not only of its postings.
//!
//! The audit queries are plain SQL that both dialects accept (aggregates
//! with HAVING read more clearly here than through the query builder),
//! each answering only what is broken; the balances are read in pages, so
//! the check runs in bounded memory whatever the size of the books.
//! Over 400 lines as one thing: the check's tables of invariants, read
//! best whole.

use crate::db::rows::MAINTENANCE_FEE_ENRICHMENT;
use crate::db::schema::jobs;
use crate::db::{Db, with_conn};
use diesel::sql_types::{BigInt, Bool, Text};
use diesel::{ExpressionMethods, QueryDsl, QueryableByName};
use diesel_async::RunQueryDsl;
use domain::cards::hold::OVER_CAPTURE_BPS;
use domain::ledger::{AccountKind, Breach, Direction, EntryKind};
use domain::{Amount, Currency, Mode};
use ports::StoreError;
use ports::ledger::LedgerTotal;
use std::collections::BTreeMap;

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

#[derive(QueryableByName)]
struct StrayRow {
    #[diesel(sql_type = Text)]
    ledger_account: String,
    #[diesel(sql_type = Text)]
    code: String,
}

#[derive(QueryableByName)]
struct MispostedRow {
    #[diesel(sql_type = Text)]
    entry_id: String,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = Text)]
    ledger_account: String,
}

/// A card (or transaction) and two amounts the books must agree on.
#[derive(QueryableByName)]
struct AmountsRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = BigInt)]
    posted: i64,
    #[diesel(sql_type = BigInt)]
    recorded: i64,
}

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
// Money moves within one account and one mode: no ledger account is
// shared between accounts or modes, the system's own included.
const CROSS_BOOKS: &str = "SELECT p.entry_id, p.ledger_account_id AS ledger_account \
     FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id \
     JOIN ledger_accounts a ON a.id = p.ledger_account_id \
     WHERE a.account_id <> e.account_id OR a.livemode <> e.livemode ORDER BY p.entry_id, p.seq";
// A posting whose entry its account does not have (deleted, or never
// written): money moved that no entry explains.
const ORPHAN_POSTINGS: &str = "SELECT p.entry_id, p.ledger_account_id AS ledger_account \
     FROM ledger_postings p LEFT JOIN ledger_entries e ON e.account_id = p.account_id AND e.id = p.entry_id \
     WHERE e.id IS NULL ORDER BY p.entry_id, p.seq";
const DELETED_CARDS_HOLDING: &str = "SELECT c.id AS id, a.balance AS posted, CAST(0 AS BIGINT) AS recorded \
     FROM cards c JOIN ledger_accounts a ON a.account_id = c.account_id AND a.id = 'la_' || c.id \
     WHERE c.deleted_at IS NOT NULL AND a.balance <> 0 ORDER BY c.id";
const TRANSIT_MISMATCHED: &str = "SELECT c.id AS id, a.balance AS posted, \
     CAST(COALESCE(SUM(t.amount), 0) AS BIGINT) AS recorded \
     FROM cards c JOIN ledger_accounts a ON a.account_id = c.account_id AND a.id = 'la_' || c.id || '_transit' \
     LEFT JOIN card_transfers t ON t.account_id = c.account_id AND t.card_id = c.id AND t.state = 'pending' \
     GROUP BY c.id, a.balance HAVING a.balance <> COALESCE(SUM(t.amount), 0) ORDER BY c.id";
// A ledger account that is neither one of a card's, named after it, nor
// one of an account's, named after its account, mode, kind and currency:
// postings to it would move money no record explains.
const STRAY_ACCOUNTS: &str = "WITH kinds (kind, suffix) AS (VALUES ('card', ''), ('card_transit', '_transit'), \
     ('card_spend', '_spend'), ('card_held', '_held')) \
     SELECT a.id AS ledger_account, a.code AS code FROM ledger_accounts a \
     LEFT JOIN kinds k ON a.code LIKE k.kind || ':%' \
     LEFT JOIN cards c ON c.account_id = a.account_id AND c.id = substr(a.code, length(k.kind) + 2) \
     WHERE CASE WHEN k.kind IS NULL \
       THEN a.id <> 'la_' || a.account_id || '_' || CASE WHEN a.livemode THEN 'live' ELSE 'test' END \
            || '_' || a.code || '_' || a.currency \
       ELSE c.id IS NULL OR c.livemode <> a.livemode OR a.id <> 'la_' || c.id || k.suffix END \
     ORDER BY a.id";
// A card with no record of its opening, or whose record of its closing
// disagrees with its deletion.
const UNRECORDED_CARDS: &str = "SELECT c.id AS id, CAST(0 AS BIGINT) AS posted, CAST(0 AS BIGINT) AS recorded \
     FROM cards c LEFT JOIN card_openings o ON o.account_id = c.account_id AND o.card_id = c.id \
     WHERE o.card_id IS NULL OR (c.deleted_at IS NULL) <> (o.closed_with IS NULL) ORDER BY c.id";
const UNRECORDED_DEPOSITS: &str = "SELECT p.entry_id, p.ledger_account_id AS ledger_account \
     FROM ledger_postings p JOIN ledger_accounts a ON a.account_id = p.account_id AND a.id = p.ledger_account_id \
     LEFT JOIN wallet_credits w ON w.account_id = p.account_id AND w.entry_id = p.entry_id AND w.amount = -p.amount \
     WHERE a.code = 'deposits' AND w.entry_id IS NULL ORDER BY p.entry_id";
// What a card's held account holds, against its pending holds
// (authorizations and their increments) less what reversals released of
// them.
const HELD_MISMATCHED: &str = "SELECT id, posted, recorded FROM (SELECT c.id AS id, a.balance AS posted, \
     CAST(COALESCE((SELECT SUM(t.amount) FROM card_transactions t \
         WHERE t.account_id = c.account_id AND t.card_id = c.id AND t.status = 'pending'), 0) \
       - COALESCE((SELECT SUM(r.amount) FROM card_reversals r JOIN card_transactions t ON t.account_id = r.account_id AND t.id = r.transaction_id \
         WHERE r.account_id = c.account_id AND r.card_id = c.id AND t.status = 'pending'), 0) AS BIGINT) AS recorded \
     FROM cards c JOIN ledger_accounts a ON a.account_id = c.account_id AND a.id = 'la_' || c.id || '_held') books \
     WHERE posted <> recorded ORDER BY id";

/// A rule tying one card's entries of some kinds, posted to one of its
/// ledger accounts, to its records: what the entries posted there
/// (`sign` `-` counts what left the account) equals what the records
/// total.
struct CardRule {
    /// Named in the breach.
    rule: &'static str,
    /// The card's ledger account: `la_<card>` and this suffix.
    account: &'static str,
    sign: &'static str,
    /// Which postings count, on `p` (the posting) and `e` (its entry).
    entries: &'static str,
    /// What the records total, on `c` (the card); `{fee}` is the
    /// maintenance fee's enrichment.
    records: &'static str,
    /// Which cards the rule holds for.
    cards: &'static str,
}

const TRANSACTIONS: &str = "FROM card_transactions t WHERE t.account_id = c.account_id AND t.card_id = c.id";
const GIVEN_BACK: &str = "FROM card_reversals r JOIN card_transactions t ON t.account_id = r.account_id \
     AND t.id = r.transaction_id WHERE r.account_id = c.account_id AND r.card_id = c.id AND t.kind IN ('debit', 'capture')";
const TRANSFERS: &str = "FROM card_transfers x WHERE x.account_id = c.account_id AND x.card_id = c.id";
const OPENING: &str = "FROM card_openings o WHERE o.account_id = c.account_id AND o.card_id = c.id";
// Each authorization of the card (not declined): what it held less what
// reversals released of it (`lft`), those reversals (`rev`), what its
// capture took (`cap`), and its state.
const AUTHORIZATIONS: &str = "FROM (SELECT a.status, \
     COALESCE((SELECT SUM(h.amount) FROM card_transactions h WHERE h.account_id = a.account_id \
         AND (h.id = a.id OR h.authorization_id = a.id) AND h.kind IN ('authorization', 'increment') \
         AND h.status <> 'declined'), 0) \
       - COALESCE((SELECT SUM(r.amount) FROM card_reversals r WHERE r.account_id = a.account_id \
         AND r.transaction_id = a.id), 0) AS lft, \
     COALESCE((SELECT SUM(r.amount) FROM card_reversals r WHERE r.account_id = a.account_id \
         AND r.transaction_id = a.id), 0) AS rev, \
     COALESCE((SELECT SUM(k.amount) FROM card_transactions k WHERE k.account_id = a.account_id \
         AND k.authorization_id = a.id AND k.kind = 'capture'), 0) AS cap \
     FROM card_transactions a WHERE a.account_id = c.account_id AND a.card_id = c.id \
     AND a.kind = 'authorization' AND a.status <> 'declined') x";
// What an authorization released of its hold: its reversals, then what
// its capture left (closed) or all that was left (expired).
const RELEASED: &str = "x.rev + CASE x.status WHEN 'closed' THEN x.lft - (CASE WHEN x.cap < x.lft THEN x.cap ELSE x.lft END) \
     WHEN 'expired' THEN x.lft ELSE 0 END";

const CARD_RULES: [CardRule; 16] = [
    CardRule {
        rule: "approved debits",
        account: "",
        sign: "-",
        entries: "e.kind = 'card_debit'",
        records: "SELECT SUM(t.amount) {TRANSACTIONS} AND t.kind = 'debit' AND t.status = 'approved' AND t.enriched_data <> {fee}",
        cards: "1 = 1",
    },
    CardRule {
        rule: "maintenance fees",
        account: "",
        sign: "-",
        entries: "e.kind = 'maintenance_fee'",
        records: "SELECT SUM(t.amount) {TRANSACTIONS} AND t.kind = 'debit' AND t.status = 'approved' AND t.enriched_data = {fee}",
        cards: "1 = 1",
    },
    CardRule {
        rule: "holds placed (authorizations and increments)",
        account: "",
        sign: "-",
        entries: "e.kind = 'card_hold'",
        records: "SELECT SUM(t.amount) {TRANSACTIONS} AND t.kind IN ('authorization', 'increment') AND t.status <> 'declined'",
        cards: "1 = 1",
    },
    CardRule {
        rule: "captures",
        account: "_spend",
        sign: "",
        entries: "e.kind = 'card_capture'",
        records: "SELECT SUM(t.amount) {TRANSACTIONS} AND t.kind = 'capture' AND t.status = 'approved'",
        cards: "1 = 1",
    },
    CardRule {
        rule: "refunds and reversals",
        account: "_spend",
        sign: "-",
        entries: "e.kind = 'card_reversal'",
        records: "SELECT SUM(r.amount) {GIVEN_BACK}",
        cards: "1 = 1",
    },
    CardRule {
        rule: "refunds and reversals credited to the card",
        account: "",
        sign: "",
        entries: "e.kind = 'card_reversal'",
        records: "SELECT SUM(r.amount) {GIVEN_BACK} AND r.credited_to = 'card'",
        cards: "1 = 1",
    },
    CardRule {
        rule: "fundings and unloadings reserved",
        account: "_transit",
        sign: "",
        entries: "e.kind = 'card_transfer_reserve'",
        records: "SELECT SUM(x.amount) {TRANSFERS}",
        cards: "1 = 1",
    },
    CardRule {
        rule: "fundings and unloadings settled",
        account: "_transit",
        sign: "-",
        entries: "e.kind = 'card_transfer_settle'",
        records: "SELECT SUM(x.amount) {TRANSFERS} AND x.state <> 'pending'",
        cards: "1 = 1",
    },
    CardRule {
        rule: "unloadings reserved from the card",
        account: "",
        sign: "-",
        entries: "e.kind = 'card_transfer_reserve'",
        records: "SELECT SUM(x.amount) {TRANSFERS} AND x.kind = 'unload'",
        cards: "1 = 1",
    },
    // A card deleted before a failed unloading settled gave it to the
    // wallet: the split holds for live cards.
    CardRule {
        rule: "fundings completed and unloadings failed onto the card",
        account: "",
        sign: "",
        entries: "e.kind = 'card_transfer_settle'",
        records: "SELECT SUM(x.amount) {TRANSFERS} AND ((x.kind = 'fund' AND x.state = 'succeeded') \
                  OR (x.kind = 'unload' AND x.state = 'failed'))",
        cards: "c.deleted_at IS NULL",
    },
    CardRule {
        rule: "the creation's funding",
        account: "",
        sign: "",
        entries: "e.kind = 'card_funding' AND p.amount > 0",
        records: "SELECT o.opened_with {OPENING}",
        cards: "1 = 1",
    },
    // Each side on its own: a write-off and a deletion of one amount
    // would cancel out in a sum.
    CardRule {
        rule: "what the deletion gave (to the wallet, or a migrated card's successor)",
        account: "",
        sign: "-",
        entries: "(e.kind = 'card_deletion' OR (e.kind = 'card_funding' AND p.amount < 0))",
        records: "SELECT CASE WHEN o.closed_with > 0 THEN o.closed_with ELSE 0 END {OPENING}",
        cards: "1 = 1",
    },
    CardRule {
        rule: "what the deletion wrote off",
        account: "",
        sign: "",
        entries: "e.kind = 'card_write_off'",
        records: "SELECT CASE WHEN o.closed_with < 0 THEN -o.closed_with ELSE 0 END {OPENING}",
        cards: "1 = 1",
    },
    CardRule {
        rule: "captures taken from the card beyond their hold",
        account: "",
        sign: "-",
        entries: "e.kind = 'card_capture'",
        records: "SELECT SUM(CASE WHEN x.cap > x.lft THEN x.cap - x.lft ELSE 0 END) {AUTHORIZATIONS}",
        cards: "1 = 1",
    },
    CardRule {
        rule: "holds released (reversals, what captures left, expiries)",
        account: "_held",
        sign: "-",
        entries: "e.kind = 'card_hold_release'",
        records: "SELECT SUM({RELEASED}) {AUTHORIZATIONS}",
        cards: "1 = 1",
    },
    // A card deleted with a hold pending had what was left released to
    // the wallet: the split holds for live cards.
    CardRule {
        rule: "holds released onto the card",
        account: "",
        sign: "",
        entries: "e.kind = 'card_hold_release'",
        records: "SELECT SUM({RELEASED}) {AUTHORIZATIONS}",
        cards: "c.deleted_at IS NULL",
    },
];

impl CardRule {
    /// The query answering each card that breaks the rule.
    fn sql(&self) -> String {
        let fee = format!("'{}'", MAINTENANCE_FEE_ENRICHMENT.replace('\'', "''"));
        let records = self
            .records
            .replace("{TRANSACTIONS}", TRANSACTIONS)
            .replace("{GIVEN_BACK}", GIVEN_BACK)
            .replace("{TRANSFERS}", TRANSFERS)
            .replace("{OPENING}", OPENING)
            .replace("{AUTHORIZATIONS}", AUTHORIZATIONS)
            .replace("{RELEASED}", RELEASED)
            .replace("{fee}", &fee);
        format!(
            "SELECT id, posted, recorded FROM (SELECT c.id AS id, \
             CAST(COALESCE((SELECT SUM({sign}p.amount) FROM ledger_postings p \
                 JOIN ledger_entries e ON e.account_id = p.account_id AND e.id = p.entry_id \
                 WHERE p.account_id = c.account_id AND p.ledger_account_id = 'la_' || c.id || '{account}' \
                 AND {entries}), 0) AS BIGINT) AS posted, \
             CAST(COALESCE(({records}), 0) AS BIGINT) AS recorded \
             FROM cards c WHERE {cards}) books WHERE posted <> recorded ORDER BY id",
            sign = self.sign,
            account = self.account,
            entries = self.entries,
            cards = self.cards,
        )
    }
}

/// Each card rule's query, for the tests of its plan.
#[cfg(test)]
pub(in crate::db) fn card_rule_sqls() -> Vec<String> {
    CARD_RULES.iter().map(CardRule::sql).collect()
}

/// Each posting an entry's kind never makes ([`EntryKind::may_post`]), by
/// a table of the domain's rules: kind, kind of account (its code, or
/// its code's prefix before `:` for a card's), direction, live.
fn misposted_sql() -> String {
    let rules: Vec<String> = EntryKind::ALL
        .iter()
        .flat_map(|kind| {
            kind.moves.iter().map(move |(account, direction)| {
                let direction = match direction {
                    Direction::Out => -1,
                    Direction::In => 1,
                };
                format!(
                    "('{}', '{}', {direction}, {})",
                    kind.name,
                    account.as_str(),
                    i32::from(kind.live)
                )
            })
        })
        .collect();
    format!(
        "WITH allowed (kind, account_kind, direction, live) AS (VALUES {}) \
         SELECT p.entry_id, e.kind, p.ledger_account_id AS ledger_account \
         FROM ledger_postings p JOIN ledger_entries e ON e.account_id = p.account_id AND e.id = p.entry_id \
         JOIN ledger_accounts a ON a.account_id = p.account_id AND a.id = p.ledger_account_id \
         WHERE NOT EXISTS (SELECT 1 FROM allowed k WHERE k.kind = e.kind \
             AND (a.code = k.account_kind OR a.code LIKE k.account_kind || ':%') \
             AND k.direction = CASE WHEN p.amount < 0 THEN -1 WHEN p.amount > 0 THEN 1 ELSE 0 END \
             AND (k.live = 1 OR NOT e.livemode)) \
         ORDER BY p.entry_id, p.seq",
        rules.join(", ")
    )
}

// A debit or capture given back beyond its amount, or a transaction given
// back that was never approved (a decline) or never went to the
// processor (a fee).
fn over_given_sql() -> String {
    format!(
        "SELECT t.id AS id, t.amount AS posted, CAST(SUM(r.amount) AS BIGINT) AS recorded \
         FROM card_reversals r JOIN card_transactions t ON t.account_id = r.account_id AND t.id = r.transaction_id \
         WHERE t.kind IN ('debit', 'capture') \
         GROUP BY t.id, t.amount, t.status, t.enriched_data \
         HAVING SUM(r.amount) > t.amount OR t.status <> 'approved' OR t.enriched_data = '{}' ORDER BY t.id",
        MAINTENANCE_FEE_ENRICHMENT.replace('\'', "''")
    )
}

// Each repair reconciliation applied, and what its record holds: a
// debit of exactly its amount under its reference, or a give-back of at
// most its amount under its id.
const UNRECORDED_REPAIRS: &str = "SELECT id, posted, recorded FROM (SELECT CAST(r.id AS TEXT) AS id, r.repair, \
     r.amount AS posted, CAST(COALESCE(CASE r.repair \
       WHEN 'debit' THEN (SELECT SUM(t.amount) FROM card_transactions t WHERE t.account_id = r.account_id \
         AND t.livemode = r.livemode AND t.client_reference = r.applied_as AND t.kind = 'debit' \
         AND t.status = 'approved') \
       ELSE (SELECT SUM(v.amount) FROM card_reversals v WHERE v.account_id = r.account_id \
         AND v.livemode = r.livemode AND v.reference = r.applied_as) END, 0) AS BIGINT) AS recorded \
     FROM reconciliation_repairs r WHERE r.outcome = 'applied') repairs \
     WHERE (repair = 'debit' AND recorded <> posted) OR recorded = 0 OR recorded > posted ORDER BY id";

// An authorization whose capture and reversals took more than it held
// (itself and its increments) plus the over-capture tolerance.
fn over_captured_sql() -> String {
    format!(
        "SELECT id, posted, recorded FROM (SELECT a.id AS id, \
         CAST(COALESCE((SELECT SUM(h.amount) FROM card_transactions h WHERE h.account_id = a.account_id \
             AND (h.id = a.id OR h.authorization_id = a.id) AND h.kind IN ('authorization', 'increment') \
             AND h.status <> 'declined'), 0) AS BIGINT) AS posted, \
         CAST(COALESCE((SELECT SUM(k.amount) FROM card_transactions k WHERE k.account_id = a.account_id \
             AND k.authorization_id = a.id AND k.kind = 'capture'), 0) \
           + COALESCE((SELECT SUM(r.amount) FROM card_reversals r WHERE r.account_id = a.account_id \
             AND r.transaction_id = a.id), 0) AS BIGINT) AS recorded \
         FROM card_transactions a WHERE a.kind = 'authorization') books \
         WHERE recorded > posted + posted * {OVER_CAPTURE_BPS} / 10000 ORDER BY id"
    )
}

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

/// How many ledger accounts one read of the balances takes.
const PAGE: i64 = 10_000;

impl BalanceRow {
    /// A card's account codes carry its id (`card:<id>`); the kind is
    /// what precedes it.
    fn kind(&self) -> &str {
        self.code.split_once(':').map_or(self.code.as_str(), |(kind, _)| kind)
    }
}

impl Db {
    /// Every ledger account's balance, a page at a time, after `after`
    /// (by id).
    async fn balances_after(&self, after: &str) -> Result<Vec<BalanceRow>, StoreError> {
        let page = diesel::sql_query(
            "SELECT id, livemode, code, currency, balance FROM ledger_accounts WHERE id > $1 ORDER BY id LIMIT $2",
        )
        .bind::<Text, _>(after)
        .bind::<BigInt, _>(PAGE);
        Ok(with_conn!(self.pool(), |conn| page
            .clone()
            .load::<BalanceRow>(conn)
            .await)?)
    }

    /// Feeds every ledger account's balance to `each`, in pages: bounded
    /// memory however many accounts there are.
    async fn each_balance(&self, mut each: impl FnMut(BalanceRow)) -> Result<(), StoreError> {
        let mut after = String::new();
        loop {
            let page = self.balances_after(&after).await?;
            let last = page.len() < usize::try_from(PAGE).unwrap_or(usize::MAX);
            if let Some(row) = page.last() {
                after = row.id.clone();
            }
            page.into_iter().for_each(&mut each);
            if last {
                return Ok(());
            }
        }
    }

    /// The rows `sql` answers, each made a breach by `breach`.
    async fn broken<R, F>(&self, sql: &str, breach: F) -> Result<Vec<Breach>, StoreError>
    where
        R: QueryableByName<diesel::pg::Pg> + QueryableByName<diesel::sqlite::Sqlite> + Send + 'static,
        F: Fn(R) -> Breach,
    {
        let rows = with_conn!(self.pool(), |conn| diesel::sql_query(sql).load::<R>(conn).await)?;
        Ok(rows.into_iter().map(breach).collect())
    }
}

fn entry_account(make: fn(String, String) -> Breach) -> impl Fn(EntryAccountRow) -> Breach {
    move |r| make(r.entry_id, r.ledger_account)
}

#[async_trait::async_trait]
impl ports::ledger::LedgerAudit for Db {
    async fn totals(&self) -> Result<Vec<LedgerTotal>, StoreError> {
        let mut totals = BTreeMap::<(bool, String, String), i128>::new();
        self.each_balance(|row| {
            *totals
                .entry((row.livemode, row.kind().to_string(), row.currency.clone()))
                .or_default() += i128::from(row.balance);
        })
        .await?;
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
        let mut breaches = vec![];
        breaches.extend(
            self.broken(UNBALANCED, |r: UnbalancedRow| Breach::Unbalanced {
                entry_id: r.entry_id,
                currency: r.currency,
                sum: r.total,
            })
            .await?,
        );
        breaches.extend(
            self.broken(SHORT_ENTRIES, |r: ShortEntryRow| Breach::TooFewPostings {
                entry_id: r.entry_id,
                postings: r.postings,
            })
            .await?,
        );
        breaches.extend(
            self.broken(MISMATCHED, |r: MismatchRow| Breach::BalanceMismatch {
                ledger_account: r.ledger_account,
                cached: r.cached,
                postings: r.postings,
            })
            .await?,
        );
        // An account of no known kind, or in no known currency, may hold
        // nothing.
        self.each_balance(|row| {
            let kind = AccountKind::parse(row.kind()).zip(Currency::parse("currency", &row.currency).ok());
            let allowed = kind.map_or(0..=0, |(kind, currency)| kind.allowed(currency, max_wallet));
            if !allowed.contains(&row.balance) {
                breaches.push(Breach::OutOfRange {
                    ledger_account: row.id,
                    balance: row.balance,
                    allowed,
                });
            }
        })
        .await?;
        let entry_checks: [(&str, fn(String, String) -> Breach); 4] = [
            (CURRENCY_MISMATCH, |entry_id, ledger_account| Breach::CurrencyMismatch {
                entry_id,
                ledger_account,
            }),
            (CROSS_BOOKS, |entry_id, ledger_account| Breach::CrossBooks {
                entry_id,
                ledger_account,
            }),
            (ORPHAN_POSTINGS, |entry_id, ledger_account| Breach::OrphanPosting {
                entry_id,
                ledger_account,
            }),
            (UNRECORDED_DEPOSITS, |entry_id, ledger_account| {
                Breach::UnrecordedDeposit {
                    entry_id,
                    ledger_account,
                }
            }),
        ];
        for (sql, make) in entry_checks {
            breaches.extend(self.broken(sql, entry_account(make)).await?);
        }
        breaches.extend(
            self.broken(&misposted_sql(), |r: MispostedRow| Breach::Misposted {
                entry_id: r.entry_id,
                kind: r.kind,
                ledger_account: r.ledger_account,
            })
            .await?,
        );
        breaches.extend(
            self.broken(STRAY_ACCOUNTS, |r: StrayRow| Breach::StrayAccount {
                ledger_account: r.ledger_account,
                code: r.code,
            })
            .await?,
        );
        // Each a card or a transaction, and two amounts the books must
        // agree on.
        let amount_checks: [(String, fn(String, i64, i64) -> Breach); 7] = [
            (UNRECORDED_CARDS.into(), |card_id, _, _| Breach::UnrecordedCard {
                card_id,
            }),
            (DELETED_CARDS_HOLDING.into(), |card_id, balance, _| {
                Breach::DeletedCardHolds { card_id, balance }
            }),
            (TRANSIT_MISMATCHED.into(), |card_id, transit, pending| {
                Breach::TransitMismatch {
                    card_id,
                    transit,
                    pending,
                }
            }),
            (HELD_MISMATCHED.into(), |card_id, held, pending| Breach::HeldMismatch {
                card_id,
                held,
                pending,
            }),
            (over_given_sql(), |transaction_id, amount, given| Breach::OverGiven {
                transaction_id,
                amount,
                given,
            }),
            (UNRECORDED_REPAIRS.into(), |repair_id, asked, recorded| {
                Breach::UnrecordedRepair {
                    repair_id,
                    asked,
                    recorded,
                }
            }),
            (over_captured_sql(), |authorization_id, held, taken| {
                Breach::OverCaptured {
                    authorization_id,
                    held,
                    taken,
                }
            }),
        ];
        for (sql, make) in amount_checks {
            breaches.extend(
                self.broken(&sql, move |r: AmountsRow| make(r.id, r.posted, r.recorded))
                    .await?,
            );
        }
        for rule in &CARD_RULES {
            let name = rule.rule;
            breaches.extend(
                self.broken(&rule.sql(), move |r: AmountsRow| Breach::RecordMismatch {
                    card_id: r.id,
                    rule: name,
                    posted: r.posted,
                    recorded: r.recorded,
                })
                .await?,
            );
        }
        let parked = with_conn!(self.pool(), |conn| {
            jobs::table
                .filter(jobs::state.eq(crate::db::jobs::queue::FAILED))
                .filter(jobs::kind.eq_any(crate::db::jobs::queue::money_kinds()))
                .order(jobs::id)
                .select((jobs::id, jobs::kind, jobs::subject, jobs::last_error))
                .load::<(String, String, String, Option<String>)>(conn)
                .await
        })?;
        breaches.extend(
            parked
                .into_iter()
                .map(|(job_id, kind, subject, error)| Breach::ParkedMoneyJob {
                    job_id,
                    kind,
                    subject,
                    error: error.unwrap_or_default(),
                }),
        );
        Ok(breaches)
    }
}

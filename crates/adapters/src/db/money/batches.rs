//! What every kind of group-committed request shares ([`crate::db::money::committer`]
//! queues them): a batch is one transaction, recorded by its kind's
//! PostgreSQL or SQLite plan; if the database fails it, each request is
//! recorded again alone, so one bad request cannot fail the others. And
//! the client references a batch takes, all at once. Over 400 lines as
//! one thing: the plan every batched kind shares, and the statements all
//! of them run.

use crate::db::money::committer::{Committer, Record, Written};
use crate::db::money::ledger::{CardLedger, EntryRow, PostingRow, card_ledger_account_id};
use crate::db::money::steps::TxError;
use crate::db::money::unnest::{InsertEntries, InsertPostings, MoveBalances, TakeReferences};
use crate::db::schema::{cards, ledger_entries, ledger_postings, transaction_references};
use crate::db::{DbError, DbPool, SqliteAsync};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, TransactionManager};
use domain::Mode;
use domain::ids::AccountId;
use ports::StoreError;
use std::collections::HashSet;
use std::future::Future;

/// The client reference a request is made under, and its sandbox clock.
pub(in crate::db) struct Made<'a> {
    pub(in crate::db) account: &'a AccountId,
    pub(in crate::db) mode: Mode,
    pub(in crate::db) reference: &'a str,
    /// When it was made (unix seconds).
    pub(in crate::db) at: i64,
    /// The request holds its reference already: the batch takes none.
    pub(in crate::db) held: bool,
    /// The sandbox clock it was stamped with; `None`: not checked.
    pub(in crate::db) clock_ahead_secs: Option<i64>,
}

impl<'a> Made<'a> {
    pub(in crate::db) fn new(
        (account, mode): (&'a AccountId, Mode),
        reference: &'a str,
        at: domain::Timestamp,
        held: bool,
        clock_ahead_secs: Option<i64>,
    ) -> Self {
        Made {
            account,
            mode,
            reference,
            at: at.unix(),
            held,
            clock_ahead_secs,
        }
    }
}

/// The committers' key: two requests made under one client reference
/// never share a batch. (A kind made under none, a settlement, is
/// recorded through `record`, never a committer.)
fn by_reference<B: Batched>(b: &B) -> String {
    b.made()
        .map(|m| format!("{}:{}:{}", m.account, m.mode.as_str(), m.reference))
        .unwrap_or_default()
}

/// A kind of request recorded in batches.
pub(in crate::db) trait Batched: Sized + Send + Sync + 'static {
    type Answer: Send + 'static;

    /// The kind's name in the committer's metrics.
    const NAME: &'static str;

    /// The client reference the request is made under. `None`: it is
    /// made under none (a settlement).
    fn made(&self) -> Option<Made<'_>>;

    /// The client reference the batch takes for the request: account,
    /// mode, reference, time. `None`: none (it holds its own already).
    fn reference(&self) -> Option<(&AccountId, Mode, &str, i64)> {
        self.made()
            .filter(|m| !m.held)
            .map(|m| (m.account, m.mode, m.reference, m.at))
    }

    /// The sandbox clock the request was stamped with, for the batch to
    /// check. `None`: not checked.
    fn stamp(&self) -> Stamp<'_> {
        self.made()
            .and_then(|m| Some((m.account.as_str(), m.clock_ahead_secs?)))
    }

    /// The answer of a request the database failed.
    fn failed(e: StoreError) -> Self::Answer;

    fn record_pg<'a>(
        conn: &'a mut AsyncPgConnection,
        batch: &'a [&'a Self],
    ) -> impl Future<Output = Result<Vec<Self::Answer>, TxError<()>>> + Send + 'a;

    fn record_sqlite<'a>(
        conn: &'a mut SqliteAsync,
        batch: &'a [&'a Self],
    ) -> impl Future<Output = Result<Vec<Self::Answer>, TxError<()>>> + Send + 'a;
}

/// A kind's two plans, `Batched::record_pg` and `record_sqlite`: its
/// module's own `record_pg` and `record_sqlite` functions, as every kind
/// writes them. With `failed: $store`, also `Batched::failed` of a kind
/// whose answer is a `Result`: `Err($store(e))`.
macro_rules! plans_of_this_module {
    (failed: $store:path) => {
        fn failed(e: ports::StoreError) -> Self::Answer {
            Err($store(e))
        }

        $crate::db::money::batches::plans_of_this_module!();
    };
    () => {
        fn record_pg<'a>(
            conn: &'a mut diesel_async::AsyncPgConnection,
            batch: &'a [&'a Self],
        ) -> impl std::future::Future<
            Output = Result<Vec<Self::Answer>, $crate::db::money::steps::TxError<()>>,
        > + Send
        + 'a {
            record_pg(conn, batch)
        }

        fn record_sqlite<'a>(
            conn: &'a mut $crate::db::SqliteAsync,
            batch: &'a [&'a Self],
        ) -> impl std::future::Future<
            Output = Result<Vec<Self::Answer>, $crate::db::money::steps::TxError<()>>,
        > + Send
        + 'a {
            record_sqlite(conn, batch)
        }
    };
}
pub(in crate::db) use plans_of_this_module;

/// The committer of a pool's requests of one kind. Two requests made under
/// one client reference never share a batch.
pub(in crate::db) fn committer<B: Batched>(pool: DbPool) -> Committer<B, B::Answer> {
    let record: Record<B, B::Answer> = Box::new(move |batch, written| {
        let pool = pool.clone();
        Box::pin(async move { record(&pool, &batch, Some(written)).await })
    });
    Committer::start(B::NAME, by_reference, record)
}

/// Records `batch` in one transaction, telling `written` (if any) before
/// its `COMMIT`; if the database fails it, each request alone.
pub(in crate::db) async fn record<B: Batched>(pool: &DbPool, batch: &[B], written: Option<Written>) -> Vec<B::Answer> {
    let all: Vec<&B> = batch.iter().collect();
    match record_batch(pool, &all, written).await {
        Ok(answers) => answers,
        Err(e) if batch.len() == 1 => vec![B::failed(e.into())],
        Err(e) => {
            tracing::warn!(error = %e, requests = batch.len(), "a batch failed; recording each request alone");
            let mut answers = Vec::with_capacity(batch.len());
            for one in batch {
                answers.push(match record_batch(pool, &[one], None).await {
                    Ok(mut answer) => answer.remove(0),
                    Err(e) => B::failed(e.into()),
                });
            }
            answers
        }
    }
}

/// Records `batch` in one transaction of its own.
async fn record_batch<B: Batched>(
    pool: &DbPool,
    batch: &[&B],
    written: Option<Written>,
) -> Result<Vec<B::Answer>, DbError> {
    let recorded = match pool {
        DbPool::Pg(pool) => {
            let mut conn = pool.get().await.map_err(DbError::pool)?;
            transaction_begun_by(&mut conn, PG_BATCH_BEGIN, async |conn| {
                let answers = B::record_pg(conn, batch).await;
                drop(written);
                answers
            })
            .await
        }
        DbPool::Sqlite(pool) => {
            let mut conn = pool.get().await.map_err(DbError::pool)?;
            conn.transaction(async |conn| B::record_sqlite(conn, batch).await).await
        }
    };
    recorded.map_err(DbError::from)
}

/// How a batch's transaction begins on PostgreSQL, in one round trip.
///
/// Left to choose, PostgreSQL planned the batch's statements over arrays
/// anew at nearly every batch (a custom plan for the arrays' lengths looks
/// cheaper than a generic one planned for ten rows): 60 to 70 µs a
/// statement, a quarter of their time. They run on generic plans instead,
/// planned once per connection. A generic plan is made from the
/// statistics of its first run and kept until the table is analyzed
/// again, so one made while a table looked empty must not scan it as it
/// grows: every statement of a batch names the keys it reaches in each
/// table (`= ANY($n)`), and with sequential scans off those keys are an
/// index condition, whatever the statistics. Joins (of a batch's rows to
/// the rows they update) are hashed: a nested loop planned for one row a
/// side went through all of one side for each row of the other, 28 ms for
/// a settlement batch of 250 (`tests_batch_plans` checks each plan).
pub(in crate::db) const PG_BATCH_BEGIN: &str = "BEGIN; SET LOCAL plan_cache_mode = force_generic_plan; \
     SET LOCAL enable_seqscan = off; SET LOCAL enable_nestloop = off; SET LOCAL enable_mergejoin = off";

/// Runs `plan` in a transaction begun by `begin`: committed when it
/// succeeds, rolled back when it fails, as diesel's own `transaction` does
/// (which begins with a bare `BEGIN`).
///
/// A query cancel or a lost connection can fail `begin` after its `BEGIN`
/// ran (a `SET LOCAL` refused leaves the transaction open and aborted), or
/// fail `COMMIT` before it ran. diesel-async would count the connection as
/// outside any transaction and the pool would lend it again, every
/// statement on it refused (found by a review under a cancel storm). So
/// such a connection is marked broken, and the pool drops it.
pub(in crate::db) async fn transaction_begun_by<R>(
    conn: &mut AsyncPgConnection,
    begin: &str,
    plan: impl AsyncFnOnce(&mut AsyncPgConnection) -> Result<R, TxError<()>>,
) -> Result<R, TxError<()>> {
    type Manager = diesel_async::AnsiTransactionManager;
    let broken = |conn: &mut AsyncPgConnection, e: diesel::result::Error| {
        Manager::transaction_manager_status_mut(conn).set_in_error();
        TxError::from(e)
    };
    if let Err(e) = Manager::begin_transaction_sql(conn, begin).await {
        return Err(broken(conn, e));
    }
    match plan(conn).await {
        Ok(answers) => match Manager::commit_transaction(conn).await {
            Ok(()) => Ok(answers),
            Err(e) => Err(broken(conn, e)),
        },
        Err(failed) => match Manager::rollback_transaction(conn).await {
            Ok(()) | Err(diesel::result::Error::BrokenTransactionManager) => Err(failed),
            Err(e) => Err(e.into()),
        },
    }
}

/// A client reference: account, live, reference.
pub(in crate::db) type Reference = (String, bool, String);

/// The references `batch` takes, in one order, so two batches waiting on
/// each other's references (a client sending two of them twice at once)
/// cannot deadlock.
fn references<'a, B: Batched>(batch: &[&'a B]) -> Vec<(&'a str, bool, &'a str, i64)> {
    let mut rows: Vec<_> = batch
        .iter()
        .filter_map(|b| b.reference())
        .map(|(account, mode, reference, at)| (account.as_str(), mode.is_live(), reference, at))
        .collect();
    rows.sort_unstable();
    rows
}

/// Per request, whether it holds its reference: taken now (among `got`),
/// or before.
fn holding<B: Batched>(batch: &[&B], got: &HashSet<Reference>) -> Vec<bool> {
    batch
        .iter()
        .map(|b| match b.reference() {
            None => true,
            Some((account, mode, reference, _)) => {
                got.contains(&(account.to_string(), mode.is_live(), reference.to_string()))
            }
        })
        .collect()
}

/// PostgreSQL: takes the batch's references in one statement; yields,
/// per request, whether it holds its reference.
pub(in crate::db) async fn take_references_pg<B: Batched>(
    conn: &AsyncPgConnection,
    batch: &[&B],
) -> QueryResult<Vec<bool>> {
    let rows = references(batch);
    if rows.is_empty() {
        return Ok(vec![true; batch.len()]);
    }
    let got = TakeReferences::of(&rows).get_results::<Reference>(&mut &*conn).await?;
    Ok(holding(batch, &got.into_iter().collect()))
}

/// SQLite: the same, reference by reference.
pub(in crate::db) async fn take_references_sqlite<B: Batched>(
    conn: &mut SqliteAsync,
    batch: &[&B],
) -> QueryResult<Vec<bool>> {
    use transaction_references as tr;
    let mut got = HashSet::new();
    for (account, live, reference, at) in references(batch) {
        let taken = diesel::insert_into(tr::table)
            .values((
                tr::account_id.eq(account),
                tr::livemode.eq(live),
                tr::reference.eq(reference),
                tr::created_at.eq(at),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await?;
        if taken == 1 {
            got.insert((account.to_string(), live, reference.to_string()));
        }
    }
    Ok(holding(batch, &got))
}

/// The sandbox clock a request was stamped with, to check: its account,
/// and how far ahead of the real clock it ran. `None`: not checked.
pub(in crate::db) type Stamp<'a> = Option<(&'a str, i64)>;

/// The stamp of each request of `batch`.
pub(in crate::db) fn stamps<'a, B: Batched>(batch: &[&'a B]) -> Vec<Stamp<'a>> {
    batch.iter().map(|b| b.stamp()).collect()
}

/// The sandbox accounts of `stamps`, sorted, each once.
pub(in crate::db) fn sandbox_accounts<'a>(stamps: &[Stamp<'a>]) -> Vec<&'a str> {
    let mut accounts: Vec<&str> = stamps.iter().flatten().map(|(account, _)| *account).collect();
    accounts.sort_unstable();
    accounts.dedup();
    accounts
}

/// Reads the clock offsets of the sandbox accounts of `$stamps` (a future;
/// none when there are none): an account without a row runs on real time.
macro_rules! clock_offsets {
    ($conn:expr, $stamps:expr) => {
        async {
            use $crate::db::schema::test_clocks;
            let accounts = $crate::db::money::batches::sandbox_accounts($stamps);
            if accounts.is_empty() {
                return Ok(vec![]);
            }
            test_clocks::table
                .filter(test_clocks::account_id.eq_any(&accounts))
                .select((test_clocks::account_id, test_clocks::offset_secs))
                .load::<(String, i64)>($conn)
                .await
        }
    };
}
pub(in crate::db) use clock_offsets;

/// Per request, whether the sandbox clock that stamped it has been
/// advanced since: its account's offset, read in the batch's transaction,
/// is no longer the one it was stamped with. Such a request is sent back
/// to be stamped again (its process stamps from offsets it read lately).
pub(in crate::db) fn clocks_moved(stamps: &[Stamp<'_>], offsets: &[(String, i64)]) -> Vec<bool> {
    stamps
        .iter()
        .map(|s| {
            s.is_some_and(|(account, ahead)| {
                let now = offsets.iter().find(|(a, _)| a == account).map_or(0, |(_, o)| *o);
                now != ahead
            })
        })
        .collect()
}

/// Gives back the references of requests refused after taking them (a
/// refusal is a decision, and leaves no trace). Rare: one statement each.
macro_rules! release_references {
    ($conn:expr, $released:expr) => {{
        use $crate::db::schema::transaction_references as tr;
        for (account, live, reference) in $released {
            diesel::delete(
                tr::table
                    .filter(tr::account_id.eq(account))
                    .filter(tr::livemode.eq(live))
                    .filter(tr::reference.eq(reference)),
            )
            .execute($conn)
            .await?;
        }
        Ok::<usize, diesel::result::Error>(0)
    }};
}
pub(in crate::db) use release_references;

/// Runs `statement` unless it has no rows to write (a future of
/// diesel-async sends nothing until it is polled).
pub(in crate::db) async fn unless_empty<T: Default>(
    empty: bool,
    statement: impl Future<Output = QueryResult<T>>,
) -> QueryResult<T> {
    match empty {
        true => Ok(T::default()),
        false => statement.await,
    }
}

/// Whose a locked card is: the head of every batch's locked row
/// (`#[diesel(embed)]`), and what each request is checked against.
#[derive(Queryable, Selectable)]
#[diesel(table_name = cards)]
pub(in crate::db) struct CardOwner {
    pub(in crate::db) id: String,
    pub(in crate::db) account_id: String,
    pub(in crate::db) livemode: bool,
    pub(in crate::db) cardholder_id: String,
}

impl CardOwner {
    /// The card is `account`'s in `mode`: a request made by any other
    /// finds no such card.
    pub(in crate::db) fn is(&self, account: &AccountId, mode: Mode) -> bool {
        self.account_id == account.as_str() && self.livemode == mode.is_live()
    }
}

/// Locks the live cards among `$ids` (sorted) and reads each into `$row`
/// (`Selectable` from `cards`): on PostgreSQL in id order (`FOR UPDATE`,
/// pipelined: a future to join); on SQLite by a no-op update, which takes
/// the one writer's lock.
macro_rules! lock_cards {
    (pg, $conn:expr, $ids:expr, $row:ty) => {
        cards::table
            .filter(cards::id.eq_any($ids))
            .filter(cards::deleted_at.is_null())
            .order(cards::id)
            .for_update()
            .select(<$row>::as_select())
            .load::<$row>($conn)
    };
    (sqlite, $conn:expr, $ids:expr, $row:ty) => {
        diesel::update(
            cards::table
                .filter(cards::id.eq_any($ids))
                .filter(cards::deleted_at.is_null()),
        )
        .set(cards::consecutive_declines.eq(cards::consecutive_declines))
        .returning(<$row>::as_returning())
        .get_results::<$row>($conn)
    };
}
pub(in crate::db) use lock_cards;

/// Locks the wallets (ledger accounts) `$ids`, sorted, in id order and
/// reads their balances (a future; none when `$ids` is empty).
macro_rules! lock_wallets {
    ($conn:expr, $ids:expr) => {
        async {
            if $ids.is_empty() {
                return Ok(vec![]);
            }
            ledger_accounts::table
                .filter(ledger_accounts::id.eq_any($ids))
                .order(ledger_accounts::id)
                .for_update()
                .select((ledger_accounts::id, ledger_accounts::balance))
                .load::<(String, i64)>($conn)
                .await
        }
    };
}
pub(in crate::db) use lock_wallets;

/// The balances of the ledger accounts `$ids`, by id (a future).
macro_rules! balances_of {
    ($conn:expr, $ids:expr) => {
        ledger_accounts::table
            .filter(ledger_accounts::id.eq_any($ids))
            .select((ledger_accounts::id, ledger_accounts::balance))
            .load::<(String, i64)>($conn)
    };
}
pub(in crate::db) use balances_of;

/// What a batch writes to the ledger: its entries, their postings, and
/// the balances they move.
#[derive(Default)]
pub(in crate::db) struct LedgerWrites {
    entries: Vec<EntryRow>,
    postings: Vec<PostingRow>,
    pub(in crate::db) moves: Vec<Move>,
}

impl LedgerWrites {
    /// Records an entry and its postings, as [`transfer_rows`] makes them.
    pub(in crate::db) fn post(&mut self, (entry, postings): (EntryRow, Vec<PostingRow>)) {
        self.entries.push(entry);
        self.postings.extend(postings);
    }

    /// Moves ledger account `id` from `before` to exactly `after`: see
    /// [`to_exactly`].
    pub(in crate::db) fn land(&mut self, id: String, before: i64, after: i64) -> Result<(), StoreError> {
        self.moves.extend(to_exactly(id, before, after)?);
        Ok(())
    }

    /// Moves a card's balance and transit accounts from `before` to
    /// exactly `after`, each `(balance, transit)`.
    pub(in crate::db) fn land_card(
        &mut self,
        card: &str,
        before: (i64, i64),
        after: (i64, i64),
    ) -> Result<(), StoreError> {
        self.land(card_ledger_account_id(card, CardLedger::Balance), before.0, after.0)?;
        self.land(card_ledger_account_id(card, CardLedger::Transit), before.1, after.1)
    }

    /// PostgreSQL: writes the entries, their postings and the moves,
    /// pipelined in that order; resolves to whether every balance moved
    /// (one that would leave its range does not).
    pub(in crate::db) async fn write_pg(&self, c: &AsyncPgConnection) -> QueryResult<bool> {
        let (entries, postings, moves) = (&self.entries, &self.postings, &self.moves);
        let entries = unless_empty(entries.is_empty(), InsertEntries::of(entries).execute(&mut &*c));
        let postings = unless_empty(postings.is_empty(), InsertPostings::of(postings).execute(&mut &*c));
        let moved = unless_empty(moves.is_empty(), MoveBalances::of(moves).execute(&mut &*c));
        let (_, _, moved) = tokio::try_join!(entries, postings, moved)?;
        Ok(moved == moves.len())
    }

    /// SQLite: the same row by row; a balance that would leave its range
    /// fails the batch.
    pub(in crate::db) async fn write_sqlite(&self, conn: &mut SqliteAsync) -> Result<(), TxError<()>> {
        use crate::db::schema::ledger_accounts as la;
        for row in &self.entries {
            diesel::insert_into(ledger_entries::table)
                .values(row)
                .execute(conn)
                .await?;
        }
        for row in &self.postings {
            diesel::insert_into(ledger_postings::table)
                .values(row)
                .execute(conn)
                .await?;
        }
        for (id, delta, lo, hi) in &self.moves {
            let guarded = la::table
                .filter(la::id.eq(id))
                .filter((la::balance + *delta).between(*lo, *hi));
            let moved = diesel::update(guarded)
                .set(la::balance.eq(la::balance + *delta))
                .execute(conn)
                .await?;
            if moved != 1 {
                return Err(TxError::Db(DbError::Refused));
            }
        }
        Ok(())
    }
}

/// A ledger balance a batch moves: the account, the change, and the range
/// the new balance must land in (the guard that fails the batch).
pub(in crate::db) type Move = (String, i64, i64, i64);

/// The move of ledger account `id` from `before` to exactly `after`: the
/// balance must have held still under the batch's locks. `None` when it
/// does not move.
pub(in crate::db) fn to_exactly(id: String, before: i64, after: i64) -> Result<Option<Move>, StoreError> {
    let change = after
        .checked_sub(before)
        .ok_or_else(|| StoreError::new(format!("ledger account {id}: the batch's change overflows")))?;
    Ok((change != 0).then_some((id, change, after, after)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;
    use crate::test_db::TestDb;
    use diesel::sql_types::{BigInt, Double, Text};
    use diesel_async::SimpleAsyncConnection;
    use std::time::Duration;

    diesel::table! {
        notes (text) {
            text -> Text,
            xact -> BigInt,
        }
    }

    diesel::define_sql_function!(fn txid_current() -> BigInt);

    /// A request that notes its text, waits `pause` seconds, and notes it
    /// again, each time with the transaction it runs in.
    struct Note {
        text: &'static str,
        pause: f64,
    }

    impl Batched for Note {
        type Answer = Result<(), StoreError>;
        const NAME: &'static str = "notes";

        fn made(&self) -> Option<Made<'_>> {
            None
        }

        fn failed(e: StoreError) -> Self::Answer {
            Err(e)
        }

        async fn record_pg(conn: &mut AsyncPgConnection, batch: &[&Self]) -> Result<Vec<Self::Answer>, TxError<()>> {
            // A statement prepared once per connection, as the plans' are.
            let note =
                |text| diesel::insert_into(notes::table).values((notes::text.eq(text), notes::xact.eq(txid_current())));
            for n in batch {
                note(n.text).execute(conn).await?;
                diesel::sql_query("SELECT pg_sleep($1)")
                    .bind::<Double, _>(n.pause)
                    .execute(conn)
                    .await?;
                note(n.text).execute(conn).await?;
            }
            Ok(batch.iter().map(|_| Ok(())).collect())
        }

        async fn record_sqlite(_: &mut SqliteAsync, _: &[&Self]) -> Result<Vec<Self::Answer>, TxError<()>> {
            unreachable!("a PostgreSQL test")
        }
    }

    #[tokio::test]
    async fn a_batch_cancelled_inside_its_transaction_never_lends_it_to_the_next() {
        let Some(test_db) = TestDb::postgres_from_env().await else {
            return;
        };
        // One connection: the next batch gets the one the first had, or a new one.
        let db = Db::connect(test_db.url(), 1).await.unwrap();
        let DbPool::Pg(pool) = db.pool() else {
            unreachable!("a PostgreSQL test database");
        };
        let mut conn = pool.get().await.unwrap();
        conn.batch_execute("CREATE TABLE notes (text text, xact bigint)")
            .await
            .unwrap();
        drop(conn);
        let cancelled = Note {
            text: "cancelled",
            pause: 3.0,
        };
        let waited = tokio::time::timeout(Duration::from_millis(500), record(db.pool(), &[cancelled], None)).await;
        assert!(waited.is_err(), "the batch was still inside its transaction");
        // The next batches: the second finds its statements prepared.
        for text in ["next", "again"] {
            let note = Note { text, pause: 0.0 };
            let answers = tokio::time::timeout(Duration::from_secs(10), record(db.pool(), &[note], None))
                .await
                .expect("the next batch has a connection of its own at once");
            assert!(matches!(answers[..], [Ok(())]));
        }
        let mut conn = pool.get().await.unwrap();
        let notes: Vec<(String, i64)> =
            diesel::sql_query("SELECT text, count(DISTINCT xact) AS n FROM notes GROUP BY text ORDER BY text DESC")
                .load::<Noted>(&mut *conn)
                .await
                .unwrap()
                .into_iter()
                .map(|r| (r.text, r.n))
                .collect();
        assert_eq!(
            notes,
            [("next".to_string(), 1), ("again".to_string(), 1)],
            "the cancelled batch's notes never commit; a batch's first \
             statement is in the one transaction with its last"
        );
    }

    #[derive(QueryableByName)]
    struct Noted {
        #[diesel(sql_type = Text)]
        text: String,
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
}

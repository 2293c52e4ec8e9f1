//! On PostgreSQL a batch's statements run on generic plans, made at their
//! first run on a connection and kept ([`crate::db::money::batches::PG_BATCH_BEGIN`]).
//! Made while the tables were nearly empty, each must still reach its rows
//! by key: no sequential scan, no index read without a condition on its
//! keys (either would walk the whole table as it grows), and no nested
//! loop (a batch's rows against each row they join). And a connection
//! whose batch could not begin or commit cleanly is not used again.

use super::debits::{attempt, notices, sixty_four_debits};
use crate::db::fixtures::*;
use crate::db::money::batches::{PG_BATCH_BEGIN, transaction_begun_by};
use crate::db::{Db, DbPool};
use crate::test_db::TestDb;
use diesel::sql_types::{Integer, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection, TransactionManager};
use domain::cards::transfer::{Settlement, TransferKind};
use ports::card_transactions::CardTransactionStore;
use ports::cards::{CardStore, Settled};
use ports::jobs::JobKind;

/// The tables a batch reads or writes, analyzed before any batch runs.
const TABLES: &str = "accounts, cards, card_transfers, card_transactions, events, jobs, ledger_accounts, \
                      ledger_entries, ledger_postings, test_clocks, transaction_references";

#[derive(diesel::QueryableByName)]
struct Prepared {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    statement: String,
    #[diesel(sql_type = Nullable<Integer>)]
    params: Option<i32>,
}

#[derive(diesel::QueryableByName)]
struct PlanLine {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

/// Each statement the connection runs on a generic plan, with that plan
/// as a batch's transaction shows it.
async fn generic_plans(conn: &mut AsyncPgConnection) -> Vec<(String, String)> {
    let prepared = diesel::sql_query(
        "SELECT name, statement, array_length(parameter_types, 1) AS params \
         FROM pg_prepared_statements WHERE generic_plans > 0 AND statement NOT LIKE '%pg_prepared_statements%'",
    )
    .load::<Prepared>(conn)
    .await
    .expect("the connection's prepared statements");
    let mut plans = vec![];
    for p in prepared {
        let nulls = vec!["NULL"; usize::try_from(p.params.unwrap_or(0)).unwrap()].join(", ");
        let args = if nulls.is_empty() {
            String::new()
        } else {
            format!("({nulls})")
        };
        conn.batch_execute(PG_BATCH_BEGIN).await.unwrap();
        let plan = diesel::sql_query(format!("EXPLAIN EXECUTE {}{args}", p.name))
            .load::<PlanLine>(conn)
            .await
            .unwrap_or_else(|e| panic!("{e}: {}", p.statement));
        conn.batch_execute("ROLLBACK").await.unwrap();
        let plan: Vec<String> = plan.into_iter().map(|l| l.line).collect();
        plans.push((p.statement, plan.join("\n")));
    }
    plans
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_planned_on_nearly_empty_tables_reach_their_rows_by_key() {
    let Some(t) = TestDb::postgres_from_env().await else {
        return;
    };
    let (_, card) = setup(&t, 100_000).await;
    TestDb::execute(&t, &format!("ANALYZE {TABLES}")).await;
    // One connection: every batch below plans on it.
    let db = Db::connect(t.url(), 1).await.unwrap();
    let other = card_of(&db, "card_d").await;
    fund(&db, &other, 5_000).await;
    db.reserve(
        transfer("ctr_unload", &other, TransferKind::Unload, 1_000, 10_000),
        job("s_unload", JobKind::SettleCardTransfer),
    )
    .await
    .unwrap();
    assert_eq!(settle(&db, "ctr_unload", Settlement::Reverse).await, Settled::Done);
    // Approvals, declines, the card deleted by them, and debits of a card
    // no longer there; then a reference used again.
    fund(&db, &card, 10_000).await;
    sixty_four_debits(&db, &card).await;
    let again = db.debit(attempt(&other, "ctx_again", "r0", 1), notices(99)).await;
    assert!(again.is_err(), "{again:?}");
    assert!(!card_exists(&db, &card).await);

    let DbPool::Pg(pool) = db.pool() else {
        unreachable!("a PostgreSQL test database")
    };
    let mut conn = pool.get().await.unwrap();
    let plans = generic_plans(&mut conn).await;
    for shown in [
        "UPDATE cards SET approved_count",
        "INSERT INTO card_transactions",
        "INSERT INTO card_transfers",
        "UPDATE card_transfers SET state",
        "UPDATE ledger_accounts SET balance",
        "INSERT INTO events",
        "FOR UPDATE",
    ] {
        assert!(
            plans.iter().any(|(statement, _)| statement.contains(shown)),
            "no generic plan for {shown}: {:#?}",
            plans.iter().map(|p| &p.0).collect::<Vec<_>>()
        );
    }
    let unkeyed: Vec<String> = plans
        .iter()
        .filter(|(_, plan)| {
            let index_reads = plan.matches("Index Scan").count() + plan.matches("Index Only Scan").count();
            plan.contains("Seq Scan")
                || plan.contains("Nested Loop")
                || index_reads != plan.matches("Index Cond:").count()
        })
        .map(|(statement, plan)| format!("{statement}\n{plan}"))
        .collect();
    assert!(
        unkeyed.is_empty(),
        "{} of {} batch statements read a table without keys, or join by nested loop:\n\n{}",
        unkeyed.len(),
        plans.len(),
        unkeyed.join("\n\n")
    );
}

/// Whether the pool would lend `conn` again.
fn lent_again(conn: &mut AsyncPgConnection) -> bool {
    !diesel_async::AnsiTransactionManager::is_broken_transaction_manager(conn)
}

/// A batch whose `BEGIN` ran but whose statements after it failed (as a
/// query cancel landing on a `SET LOCAL` does) leaves its transaction open
/// and aborted; one whose `COMMIT` failed may too. Neither connection is
/// lent again: the pool drops it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_whose_begin_or_commit_failed_is_not_lent_again() {
    let Some(t) = TestDb::postgres_from_env().await else {
        return;
    };
    let mut conn = AsyncPgConnection::establish(t.url()).await.unwrap();
    let begun = transaction_begun_by(&mut conn, "BEGIN; SELECT 1 / 0", async |_| Ok(())).await;
    assert!(begun.is_err());
    let refused = conn.batch_execute("SELECT 1").await;
    assert!(refused.is_err(), "the transaction is open and aborted");
    assert!(!lent_again(&mut conn));

    let mut conn = AsyncPgConnection::establish(t.url()).await.unwrap();
    conn.batch_execute("CREATE TEMPORARY TABLE once (n integer UNIQUE DEFERRABLE INITIALLY DEFERRED)")
        .await
        .unwrap();
    let committed = transaction_begun_by(&mut conn, PG_BATCH_BEGIN, async |conn| {
        Ok(conn.batch_execute("INSERT INTO once VALUES (1), (1)").await?)
    })
    .await;
    assert!(committed.is_err(), "the unique check fails the COMMIT");
    assert!(!lent_again(&mut conn));

    let mut conn = AsyncPgConnection::establish(t.url()).await.unwrap();
    let committed = transaction_begun_by(&mut conn, PG_BATCH_BEGIN, async |conn| {
        Ok(conn.batch_execute("SELECT 1").await?)
    })
    .await;
    assert!(committed.is_ok());
    assert!(
        lent_again(&mut conn),
        "a batch that committed leaves its connection to be lent"
    );
}

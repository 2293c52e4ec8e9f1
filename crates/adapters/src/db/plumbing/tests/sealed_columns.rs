//! On PostgreSQL every key of an account's table leads with `account_id`
//! (docs/scaling.md): Citus needs the distribution column in each primary
//! key, each unique index and each foreign key between distributed
//! tables, and a lookup naming the account reaches its rows by the key's
//! first column.

use crate::db::DbPool;
use crate::db::fixtures::*;
use crate::test_db::TestDb;
use diesel::sql_types::Text;
use diesel_async::RunQueryDsl;

/// Tables read before the account is known (a request's key, a card
/// details token, the processor's card id, a dashboard user's email or
/// session) or
/// unique across accounts (a reversal's reference, once per mode), or
/// service-wide (reconciliation's audit trail, read by run): reference or
/// lookup tables on Citus, keyed by what finds them.
const LOOKUPS: [&str; 7] = [
    "api_keys",
    "card_details_tokens",
    "dashboard_sessions",
    "dashboard_users",
    "processor_card_ids",
    "reconciliation_repairs",
    "reversal_references",
];

/// The unique indexes (primary keys among them) of the tables with an
/// `account_id`, each with its first column.
const UNIQUE_KEYS: &str = "SELECT c.relname::text AS table_name, i.relname::text AS key_name, \
     (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum = x.indkey[0]) AS first_column, \
     'account_id' AS referenced_first \
     FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid \
     WHERE x.indisunique AND c.relnamespace = current_schema()::regnamespace \
     AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'account_id') \
     ORDER BY 1, 2";

/// The foreign keys between tables, but for those to `accounts` itself
/// (distributed by its id, with every table of an account), each with the
/// first column on either side.
const FOREIGN_KEYS: &str = "SELECT c.conrelid::regclass::text AS table_name, c.conname::text AS key_name, \
     (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.conrelid AND a.attnum = c.conkey[1]) AS first_column, \
     (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.confrelid AND a.attnum = c.confkey[1]) \
       AS referenced_first \
     FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace \
     AND c.confrelid <> 'accounts'::regclass ORDER BY 1, 2";

#[derive(diesel::QueryableByName, Debug)]
struct Key {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    key_name: String,
    #[diesel(sql_type = Text)]
    first_column: String,
    #[diesel(sql_type = Text)]
    referenced_first: String,
}

impl Key {
    fn leads_with_the_account(&self) -> bool {
        self.first_column == "account_id" && self.referenced_first == "account_id"
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_key_of_an_accounts_table_leads_with_account_id() {
    let Some(t) = TestDb::postgres_from_env().await else {
        return;
    };
    let db = t.migrated().await;
    let DbPool::Pg(pool) = &db.pool else {
        unreachable!("a PostgreSQL test database")
    };
    let mut conn = pool.get().await.expect("a connection");
    let mut keys = diesel::sql_query(UNIQUE_KEYS).load::<Key>(&mut *conn).await.unwrap();
    let foreign = diesel::sql_query(FOREIGN_KEYS).load::<Key>(&mut *conn).await.unwrap();
    // Not a vacuous pass: the account's tables have this many keys.
    assert!(keys.len() >= 30 && foreign.len() >= 15, "{keys:?} {foreign:?}");
    keys.extend(foreign);
    let (lookups, accounts): (Vec<&Key>, Vec<&Key>) =
        keys.iter().partition(|k| LOOKUPS.contains(&k.table_name.as_str()));
    let astray: Vec<_> = accounts
        .iter()
        .filter(|k| !k.leads_with_the_account())
        .map(|k| format!("{}.{} ({})", k.table_name, k.key_name, k.first_column))
        .collect();
    assert!(astray.is_empty(), "keys not led by account_id: {astray:?}");
    // The lookup tables are keyed by what finds them, not by the account.
    assert!(lookups.iter().any(|k| !k.leads_with_the_account()), "{lookups:?}");
}

/// Each row of the tables that took their parent's account, as
/// `table key account`.
const CHILD_ROWS: &str = "SELECT 'ledger_postings ' || entry_id || '/' || seq || ' ' || account_id AS line FROM ledger_postings \
     UNION ALL SELECT 'event_deliveries ' || event_id || '/' || attempt || ' ' || account_id FROM event_deliveries \
     UNION ALL SELECT 'card_spending ' || card_id || ' ' || account_id FROM card_spending \
     UNION ALL SELECT 'processor_cards ' || card_id || ' ' || account_id FROM processor_cards \
     UNION ALL SELECT 'processor_card_ids ' || processor_card_id || ' ' || account_id || ' ' || card_id \
       FROM processor_card_ids \
     UNION ALL SELECT 'processor_customers ' || cardholder_id || ' ' || account_id FROM processor_customers \
     UNION ALL SELECT 'reversal_references ' || reference || ' ' || account_id FROM reversal_references \
     ORDER BY 1";

#[derive(diesel::QueryableByName, Debug, PartialEq)]
struct Line {
    #[diesel(sql_type = Text)]
    line: String,
}

/// The migration's backfill, run on a database holding a row in each
/// table it fills: taken down (the accounts dropped) and up again, every
/// row has its parent's account back, and the books still pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_migration_gives_each_child_row_its_parents_account() {
    use diesel_async::SimpleAsyncConnection;
    use domain::ledger::DEFAULT_MAX_WALLET;
    use ports::ledger::LedgerAudit;
    let Some(t) = TestDb::postgres_from_env().await else {
        return;
    };
    let (db, _) = crate::db::fixtures::setup(&t, 10_000).await;
    exec(
        &db,
        "INSERT INTO event_deliveries (account_id, event_id, attempt, attempted_at, url, duration_ms) \
         SELECT account_id, id, 1, 1, 'https://hooks.test/x', 5 FROM events",
    )
    .await;
    exec(
        &db,
        "INSERT INTO card_spending (account_id, card_id, day_key, day_spend, week_key, week_spend, lifetime_spend) \
         VALUES ('acct_c', 'card_c', 1, 100, 1, 100, 100)",
    )
    .await;
    exec(&db, "INSERT INTO processor_cards (account_id, card_id, livemode, processor_card_id) VALUES ('acct_c', 'card_c', FALSE, 'pc_1')")
        .await;
    exec(&db, "INSERT INTO processor_card_ids (livemode, processor_card_id, account_id, card_id) VALUES (FALSE, 'pc_1', 'acct_c', 'card_c')")
        .await;
    exec(&db, "INSERT INTO processor_customers (account_id, cardholder_id, customer_id, claimed_at) VALUES ('acct_c', 'ch_c', 'cus_1', 1)")
        .await;
    // A debit of 100 given back whole: the books still agree.
    approved_debit(&db, "ctx_1", "r1", 100).await;
    exec(
        &db,
        "INSERT INTO card_reversals (id, account_id, livemode, card_id, transaction_id, reference, kind, amount, \
         credited_to, created_at) VALUES ('crv_1', 'acct_c', FALSE, 'card_c', 'ctx_1', 'rv-1', 'refund', 100, 'card', 6)",
    )
    .await;
    exec(
        &db,
        "INSERT INTO reversal_references (livemode, reference, account_id) VALUES (FALSE, 'rv-1', 'acct_c')",
    )
    .await;
    // And their entries, as the service posts them.
    let test = ("acct_c", false);
    for sql in [
        post("le_d", test, "card_debit", "la_card_c", "la_card_c_spend", 100),
        post("le_r", test, "card_reversal", "la_card_c_spend", "la_card_c", 100),
    ]
    .concat()
    {
        exec(&db, &sql).await;
    }
    let DbPool::Pg(pool) = &db.pool else {
        unreachable!("a PostgreSQL test database")
    };
    let mut conn = pool.get().await.expect("a connection");
    let before = diesel::sql_query(CHILD_ROWS).load::<Line>(&mut *conn).await.unwrap();
    for table in [
        "ledger_postings",
        "event_deliveries",
        "card_spending",
        "processor_cards",
        "processor_card_ids",
        "processor_customers",
        "reversal_references",
    ] {
        assert!(
            before.iter().any(|l| l.line.starts_with(&format!("{table} "))),
            "{table}: {before:?}"
        );
    }
    // Undone and done again, with the later migration whose keys rest on
    // its keys (card_openings names its card by the account's key).
    let (keys, openings) = ("2026-12-08-000033_account_keys", "2026-12-11-000036_card_openings");
    for (migration, step) in [(openings, "down"), (keys, "down"), (keys, "up"), (openings, "up")] {
        let path = format!(
            "{}/../../migrations/postgres/{migration}/{step}.sql",
            env!("CARGO_MANIFEST_DIR")
        );
        let sql = std::fs::read_to_string(path).unwrap();
        conn.batch_execute(&sql)
            .await
            .unwrap_or_else(|e| panic!("{migration} {step}: {e}"));
    }
    let after = diesel::sql_query(CHILD_ROWS).load::<Line>(&mut *conn).await.unwrap();
    assert_eq!(after, before);
    assert_eq!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap(), vec![]);
}

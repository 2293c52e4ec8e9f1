//! The history of a card with 100,000 transactions is paged from an index
//! on both databases: the first page and page 5,000 alike, a range of
//! approval numbers with no sort and no offset.

use crate::db::fixtures::*;
use crate::test_db::TestDb;

const ROWS: i64 = 100_000;

/// The columns of `card_transactions`, for the tests' own inserts.
const COLUMNS: &str = "id, account_id, livemode, card_id, cardholder_id, client_reference, status, decline_reason, \
                       amount, currency, description, merchant_category_code, enriched_data, merchant_name, created_at, \
                       approved_seq";

/// The history query of `CardTransactionStore::history`, as SQL, at a page.
fn history_sql(page: i64) -> String {
    let newest = ROWS - (page - 1) * 20;
    format!(
        "SELECT id FROM card_transactions \
         WHERE card_id = 'card_c' AND status = 'approved' AND account_id = 'acct_c' AND livemode = FALSE \
         AND approved_seq BETWEEN {} AND {newest} ORDER BY approved_seq DESC",
        newest - 19
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_1_and_page_5000_of_100000_transactions_are_read_from_the_history_index() {
    for t in TestDb::all().await {
        let (db, _) = setup(&t, 1_000).await;
        let values = "'ctx_' || i, 'acct_c', FALSE, 'card_c', 'ch_c', 'r' || i, 'approved', NULL, 100, 'USD', \
                      'NETFLIX.COM', '4899', '{}', 'Netflix', i, i";
        let insert = if t.backend() == "postgres" {
            format!("INSERT INTO card_transactions ({COLUMNS}) SELECT {values} FROM generate_series(1, {ROWS}) AS i")
        } else {
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {ROWS}) \
                 INSERT INTO card_transactions ({COLUMNS}) SELECT {values} FROM n"
            )
        };
        t.execute(&insert).await;
        t.execute("ANALYZE").await;
        for page in [1, 5_000] {
            let plan = db.explain(&history_sql(page)).await.join("\n");
            assert!(
                plan.contains("card_transactions_approved_seq"),
                "{}: page {page}:\n{plan}",
                t.backend()
            );
            for sort in ["Sort", "TEMP B-TREE", "Seq Scan", "SCAN card_transactions\n"] {
                assert!(
                    !plan.contains(sort),
                    "{}: page {page} sorts or scans:\n{plan}",
                    t.backend()
                );
            }
            println!("{} page {page}:\n{plan}\n", t.backend());
        }
    }
}

/// The recurring-merchant check (`CardTransactionStore::charged_in_each`),
/// as SQL, for `card` over one month.
fn recurring_sql(card: &str) -> String {
    format!(
        "SELECT EXISTS (SELECT id FROM card_transactions WHERE card_id = '{card}' AND status = 'approved' \
         AND created_at >= 2678400 AND created_at < 5356800 AND merchant_name = 'Netflix')"
    )
}

/// With statistics of about one transaction a card (1,000 cards, one
/// each, and one card with 20,000), PostgreSQL plans the recurring-merchant
/// check on the history index, whose columns it names, never on the
/// approval-number index, which costs it the same on those statistics and
/// would have it filter every transaction of the card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recurring_check_reads_the_history_index_whatever_the_statistics() {
    let Some(t) = TestDb::postgres_from_env().await else {
        return;
    };
    let (db, _) = setup(&t, 1_000).await;
    // Transactions of cards that are not there: only the statistics count.
    t.execute("ALTER TABLE card_transactions DROP CONSTRAINT card_transactions_account_id_card_id_fkey")
        .await;
    for (card, series) in [("'card_' || i", "1, 1000"), ("'card_c'", "1001, 21000")] {
        t.execute(&format!(
            "INSERT INTO card_transactions ({COLUMNS}) SELECT 'ctx_' || i, 'acct_c', FALSE, {card}, 'ch_c', 'r' || i, \
             'approved', NULL, 100, 'USD', 'NETFLIX.COM', '4899', '{{}}', 'Netflix', i * 100, i \
             FROM generate_series({series}) AS i"
        ))
        .await;
    }
    t.execute("ANALYZE").await;
    for card in ["card_5", "card_c"] {
        let plan = db.explain(&recurring_sql(card)).await.join("\n");
        assert!(plan.contains("card_transactions_history"), "{card}:\n{plan}");
        println!("{card}:\n{plan}\n");
    }
}

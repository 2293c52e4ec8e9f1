//! The ledger check against books that balance and still are broken: each
//! state is written straight into a fresh database (no API path is known
//! to make it), and the check names the account and the rule it breaks.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::ledger::{Breach, DEFAULT_MAX_WALLET};
use ports::ledger::LedgerAudit;

async fn exec_all(db: &crate::db::Db, statements: &[String]) {
    for sql in statements {
        exec(db, sql).await;
    }
}

const TEST: (&str, bool) = ("acct_c", false);
const LIVE: (&str, bool) = ("acct_c", true);
const TEST_WALLET: &str = "la_acct_c_test_issuing_wallet_USD";
const LIVE_WALLET: &str = "la_acct_c_live_issuing_wallet_USD";

/// What a clean workload wrote beside the card's creation (300 from the
/// wallet): an approved debit of 100 (`ctx_d`, entry `e_d`) and a pending
/// authorization of 50 (`ctx_a`), each with its entry, as the service
/// writes them.
fn clean_workload() -> Vec<String> {
    let transaction = |id: &str, kind: &str, status: &str, amount: i64| {
        format!(
            "INSERT INTO card_transactions (id, account_id, livemode, card_id, cardholder_id, client_reference, \
             status, amount, currency, description, enriched_data, merchant_name, created_at, kind) VALUES \
             ('{id}', 'acct_c', FALSE, 'card_c', 'ch_c', 'ref-{id}', '{status}', {amount}, 'USD', 'x', '{{}}', 'x', 5, \
             '{kind}')"
        )
    };
    let mut sql = vec![transaction("ctx_d", "debit", "approved", 100)];
    sql.extend(post("e_d", TEST, "card_debit", "la_card_c", "la_card_c_spend", 100));
    sql.push(transaction("ctx_a", "authorization", "pending", 50));
    sql.extend(post("e_a", TEST, "card_hold", "la_card_c", "la_card_c_held", 50));
    sql.push(transaction("ctx_x", "debit", "declined", 70));
    sql.push(
        "INSERT INTO reconciliation_runs (id, livemode, since, started_at, compared, differences, repaired, \
         unresolved) VALUES ('run_1', FALSE, 0, 5, 1, 1, 1, 0)"
            .into(),
    );
    // Reconciliation's debit of the processor's authorization `ref-ctx_d`.
    sql.push(repair("debit", "ref-ctx_d", 100));
    sql
}

/// A repair reconciliation applied, of `amount`, its record made under
/// `applied_as`.
fn repair(kind: &str, applied_as: &str, amount: i64) -> String {
    format!(
        "INSERT INTO reconciliation_repairs (run_id, livemode, authorization_id, class, repair, applied_as, \
         account_id, card_id, amount, outcome, created_at) VALUES ('run_1', FALSE, 'au', 'amount_differs', \
         '{kind}', '{applied_as}', 'acct_c', 'card_c', {amount}, 'applied', 5)"
    )
}

/// A card_reversals row giving back `amount` of `transaction`.
fn given_back(id: &str, transaction: &str, amount: i64) -> String {
    format!(
        "INSERT INTO card_reversals (id, account_id, livemode, card_id, transaction_id, reference, kind, amount, \
         credited_to, created_at) VALUES ('{id}', 'acct_c', FALSE, 'card_c', '{transaction}', '{id}', 'refund', \
         {amount}, 'card', 5)"
    )
}

fn with(mut first: Vec<String>, rest: impl IntoIterator<Item = String>) -> Vec<String> {
    first.extend(rest);
    first
}

/// A broken state: what it is, the statements that write it (on the
/// database named), the breach it must raise, and the id and rule the
/// breach must name.
type Broken = (
    &'static str,
    fn(&str) -> Vec<String>,
    fn(&Breach) -> bool,
    &'static str,
    &'static str,
);

/// Each invariant class caught: books that balance (every entry sums to
/// zero, every cached balance is its postings') and still lie, written
/// straight into the tables after a clean workload the check passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn books_that_balance_but_break_a_rule_fail_the_check_naming_the_account_and_the_rule() {
    let cases: [Broken; 23] =
        [
            (
                "sandbox money moved into a live wallet",
                |_| {
                    post(
                        "e1",
                        TEST,
                        "wallet_funding",
                        "la_acct_c_test_faucet_USD",
                        LIVE_WALLET,
                        100,
                    )
                },
                |b| matches!(b, Breach::CrossBooks { .. }),
                LIVE_WALLET,
                "within one account and one mode",
            ),
            (
                "money left on a deleted card",
                |_| vec!["UPDATE cards SET deleted_at = 5, deleted_reason = 'requested' WHERE id = 'card_c'".into()],
                |b| matches!(b, Breach::DeletedCardHolds { balance: 150, .. }),
                "card_c",
                "a deleted card holds nothing",
            ),
            (
                "money in transit with no pending transfer",
                |_| {
                    post(
                        "e4",
                        TEST,
                        "card_transfer_reserve",
                        TEST_WALLET,
                        "la_card_c_transit",
                        100,
                    )
                },
                |b| {
                    matches!(
                        b,
                        Breach::TransitMismatch {
                            transit: 100,
                            pending: 0,
                            ..
                        }
                    )
                },
                "card_c",
                "transit is what pending transfers hold",
            ),
            (
                "a live wallet credited from deposits with no record",
                |_| {
                    post(
                        "e5",
                        LIVE,
                        "wallet_credit",
                        "la_acct_c_live_deposits_USD",
                        LIVE_WALLET,
                        100,
                    )
                },
                |b| matches!(b, Breach::UnrecordedDeposit { .. }),
                "la_acct_c_live_deposits_USD",
                "every deposit credit has its record",
            ),
            (
                "held money with no pending authorization",
                |_| post("e7", TEST, "card_hold", "la_card_c", "la_card_c_held", 100),
                |b| {
                    matches!(
                        b,
                        Breach::HeldMismatch {
                            held: 150,
                            pending: 50,
                            ..
                        }
                    )
                },
                "card_c",
                "held money is what pending authorizations hold",
            ),
            (
                "a card debit with no transaction behind it",
                |_| post("e6", TEST, "card_debit", "la_card_c", "la_card_c_spend", 100),
                |b| {
                    matches!(
                        b,
                        Breach::RecordMismatch {
                            rule: "approved debits",
                            posted: 200,
                            recorded: 100,
                            ..
                        }
                    )
                },
                "card_c",
                "approved debits",
            ),
            (
                "a transaction whose amount was raised",
                |_| vec!["UPDATE card_transactions SET amount = 150 WHERE id = 'ctx_d'".into()],
                |b| {
                    matches!(
                        b,
                        Breach::RecordMismatch {
                            rule: "approved debits",
                            posted: 100,
                            recorded: 150,
                            ..
                        }
                    )
                },
                "card_c",
                "every entry is its record's",
            ),
            (
                "a refund of twice its debit",
                |_| {
                    with(
                        vec![given_back("rf_1", "ctx_d", 200)],
                        post("e8", TEST, "card_reversal", "la_card_c_spend", "la_card_c", 200),
                    )
                },
                |b| {
                    matches!(
                        b,
                        Breach::OverGiven {
                            amount: 100,
                            given: 200,
                            ..
                        }
                    )
                },
                "ctx_d",
                "never exceed an approved transaction",
            ),
            (
                "a refund of a declined debit",
                |_| {
                    with(
                        vec![given_back("rf_2", "ctx_x", 70)],
                        post("e9", TEST, "card_reversal", "la_card_c_spend", "la_card_c", 70),
                    )
                },
                |b| {
                    matches!(
                        b,
                        Breach::OverGiven {
                            amount: 70,
                            given: 70,
                            ..
                        }
                    )
                },
                "ctx_x",
                "never exceed an approved transaction",
            ),
            (
                "a release larger than its hold",
                |_| {
                    let reversal = given_back("rv_1", "ctx_a", 80).replace("'refund'", "'reversal'");
                    with(
                        vec![reversal],
                        post("e10", TEST, "card_hold_release", "la_card_c_held", "la_card_c", 80),
                    )
                },
                |b| {
                    matches!(
                        b,
                        Breach::OverCaptured {
                            held: 50,
                            taken: 80,
                            ..
                        }
                    )
                },
                "ctx_a",
                "never exceed the hold",
            ),
            (
                "money moved wallet to card with no funding record",
                |_| post("e11", TEST, "card_funding", TEST_WALLET, "la_card_c", 100),
                |b| {
                    matches!(
                        b,
                        Breach::RecordMismatch {
                            rule: "the creation's funding",
                            posted: 400,
                            recorded: 300,
                            ..
                        }
                    )
                },
                "card_c",
                "the creation's funding",
            ),
            (
                "money moved wallet to card as a settlement",
                |_| post("e12", TEST, "card_transfer_settle", TEST_WALLET, "la_card_c", 100),
                |b| matches!(b, Breach::Misposted { .. }),
                TEST_WALLET,
                "moves money only between the accounts of its record",
            ),
            (
                "money moved from a losses account into a live wallet",
                |_| {
                    post(
                        "e13",
                        LIVE,
                        "card_write_off",
                        "la_acct_c_live_losses_USD",
                        LIVE_WALLET,
                        100,
                    )
                },
                |b| matches!(b, Breach::Misposted { .. }),
                LIVE_WALLET,
                "moves money only between the accounts of its record",
            ),
            (
                "a fee with no transaction",
                |_| {
                    post(
                        "e14",
                        TEST,
                        "maintenance_fee",
                        "la_card_c",
                        "la_acct_c_test_fee_income_USD",
                        10,
                    )
                },
                |b| {
                    matches!(
                        b,
                        Breach::RecordMismatch {
                            rule: "maintenance fees",
                            posted: 10,
                            recorded: 0,
                            ..
                        }
                    )
                },
                "card_c",
                "maintenance fees",
            ),
            (
                "an entry deleted with its postings kept",
                |backend| {
                    let delete = "DELETE FROM ledger_entries WHERE id = 'e_d'".to_string();
                    match backend {
                        // Past the foreign key, as one with the table's owner's rights could.
                        "postgres" => vec![
                            "ALTER TABLE ledger_postings DISABLE TRIGGER ALL".into(),
                            "ALTER TABLE ledger_entries DISABLE TRIGGER ALL".into(),
                            delete,
                            "ALTER TABLE ledger_entries ENABLE TRIGGER ALL".into(),
                            "ALTER TABLE ledger_postings ENABLE TRIGGER ALL".into(),
                        ],
                        _ => vec![
                            "PRAGMA foreign_keys = OFF".into(),
                            delete,
                            "PRAGMA foreign_keys = ON".into(),
                        ],
                    }
                },
                |b| matches!(b, Breach::OrphanPosting { .. }),
                "e_d",
                "every posting belongs to an entry",
            ),
            (
                "money from losses to the wallet through a live card (a write-off, then a deletion of as much)",
                |_| {
                    with(
                        post(
                            "e16",
                            TEST,
                            "card_write_off",
                            "la_acct_c_test_losses_USD",
                            "la_card_c",
                            100,
                        ),
                        post("e17", TEST, "card_deletion", "la_card_c", TEST_WALLET, 100),
                    )
                },
                |b| {
                    matches!(
                        b,
                        Breach::RecordMismatch {
                            rule: "what the deletion wrote off",
                            posted: 100,
                            recorded: 0,
                            ..
                        }
                    )
                },
                "card_c",
                "what the deletion wrote off",
            ),
            (
                "money through a ledger account no card opened",
                |_| {
                    with(
                    vec!["INSERT INTO ledger_accounts (id, account_id, livemode, code, currency, balance, created_at) \
                          VALUES ('la_ghost', 'acct_c', FALSE, 'card:card_ghost', 'USD', 0, 0)"
                        .into()],
                    post("e18", TEST, "card_deletion", "la_ghost", TEST_WALLET, 100),
                )
                },
                |b| matches!(b, Breach::StrayAccount { .. }),
                "la_ghost",
                "every ledger account is one a card or an account opens",
            ),
            (
                "a live card's hold released to the wallet",
                |_| {
                    with(
                        vec!["UPDATE card_transactions SET status = 'expired' WHERE id = 'ctx_a'".into()],
                        post("e19", TEST, "card_hold_release", "la_card_c_held", TEST_WALLET, 50),
                    )
                },
                |b| {
                    matches!(
                        b,
                        Breach::RecordMismatch {
                            rule: "holds released onto the card",
                            posted: 0,
                            recorded: 50,
                            ..
                        }
                    )
                },
                "card_c",
                "holds released onto the card",
            ),
            (
                "a capture within its hold taken from the card",
                |_| {
                    let capture = "INSERT INTO card_transactions (id, account_id, livemode, card_id, cardholder_id, \
                    client_reference, status, amount, currency, description, enriched_data, merchant_name, created_at, \
                    kind, authorization_id) VALUES ('ctx_c', 'acct_c', FALSE, 'card_c', 'ch_c', 'ref-ctx_a', \
                    'approved', 50, 'USD', 'x', '{}', 'x', 6, 'capture', 'ctx_a')";
                    let mut sql = vec![
                        capture.to_string(),
                        "UPDATE card_transactions SET status = 'closed' WHERE id = 'ctx_a'".into(),
                    ];
                    sql.extend(post(
                        "e20",
                        TEST,
                        "card_capture",
                        "la_card_c_held",
                        "la_card_c_spend",
                        20,
                    ));
                    sql.extend(post("e21", TEST, "card_capture", "la_card_c", "la_card_c_spend", 30));
                    sql.extend(post(
                        "e22",
                        TEST,
                        "card_hold_release",
                        "la_card_c_held",
                        "la_card_c",
                        30,
                    ));
                    sql
                },
                |b| {
                    matches!(
                        b,
                        Breach::RecordMismatch {
                            rule: "captures taken from the card beyond their hold",
                            posted: 30,
                            recorded: 0,
                            ..
                        }
                    )
                },
                "card_c",
                "captures taken from the card beyond their hold",
            ),
            (
                "a live card with a closing record",
                |_| vec!["UPDATE card_openings SET closed_with = 500 WHERE card_id = 'card_c'".into()],
                |b| matches!(b, Breach::UnrecordedCard { .. }),
                "card_c",
                "every card records what its creation and deletion moved",
            ),
            (
                "an entry with no postings",
                |_| {
                    vec![
                        "INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) \
                      VALUES ('e15', 'acct_c', FALSE, 'card_debit', 5)"
                            .into(),
                    ]
                },
                |b| matches!(b, Breach::TooFewPostings { postings: 0, .. }),
                "e15",
                "at least two are required",
            ),
            (
                "a reconciliation repair applied with no record behind it",
                |_| vec![repair("give_back", "reconcile:au", 40)],
                |b| {
                    matches!(
                        b,
                        Breach::UnrecordedRepair {
                            asked: 40,
                            recorded: 0,
                            ..
                        }
                    )
                },
                "repair 2",
                "its give-back at most that",
            ),
            (
                "a reconciliation repair's debit of another amount than its record's",
                |_| vec![repair("debit", "ref-ctx_d", 150)],
                |b| {
                    matches!(
                        b,
                        Breach::UnrecordedRepair {
                            asked: 150,
                            recorded: 100,
                            ..
                        }
                    )
                },
                "repair 2",
                "a repair's debit is its amount",
            ),
        ];
    for (what, sql, is_it, names, rule) in &cases {
        for t in TestDb::all().await {
            let (db, _) = setup(&t, 10_000).await;
            with_account(&db, "acct_z").await;
            exec_all(&db, &clean_workload()).await;
            assert_eq!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap(), vec![], "{what}: before");
            exec_all(&db, &sql(t.backend())).await;
            let breaches = db.breaches(DEFAULT_MAX_WALLET).await.unwrap();
            let found = breaches.iter().find(|b| is_it(b));
            let found = found.unwrap_or_else(|| panic!("{}, {what}: {breaches:?}", t.backend()));
            let message = found.to_string();
            assert!(message.contains(names) && message.contains(rule), "{what}: {message}");
        }
    }
}

/// Money moved between two accounts' wallets. PostgreSQL refuses the
/// postings: their keys lead with the entry's account, and the ledger
/// account must be that account's (docs/scaling.md). SQLite keeps its
/// keys (one file is never distributed): there the check names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn money_moved_between_two_accounts_is_refused_by_postgresql_and_named_by_the_check() {
    let other = "la_acct_z_test_issuing_wallet_USD";
    for t in TestDb::all().await {
        let (db, _) = setup(&t, 10_000).await;
        with_account(&db, "acct_z").await;
        // The entry, its postings, then the two balances.
        let statements = post("e2", TEST, "card_funding", TEST_WALLET, other, 100);
        exec(&db, &statements[0]).await;
        let postings = db.execute_raw(&statements[1]).await;
        if t.backend() == "postgres" {
            assert!(postings.is_err(), "postgres: {postings:?}");
            continue;
        }
        postings.unwrap();
        exec_all(&db, &statements[2..]).await;
        let breaches = db.breaches(DEFAULT_MAX_WALLET).await.unwrap();
        let cross = |b: &Breach| matches!(b, Breach::CrossBooks { .. }) && b.to_string().contains(other);
        assert!(breaches.iter().any(cross), "sqlite: {breaches:?}");
    }
}

/// A live wallet over the maximum by what its cards returned is a state
/// ordinary use reaches: the check allows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wallet_above_the_maximum_by_what_its_cards_returned_passes_the_check() {
    for t in TestDb::all().await {
        let (db, _) = setup(&t, 10_000).await;
        exec_all(&db, &post("back", TEST, "card_deletion", "la_card_c", TEST_WALLET, 300)).await;
        // The wallet holds 10,000 with a maximum of 9,800.
        let max = domain::Amount::from_const(9_800);
        let breaches = db.breaches(max).await.unwrap();
        let wallet =
            |b: &Breach| matches!(b, Breach::OutOfRange { ledger_account, .. } if ledger_account == TEST_WALLET);
        assert!(!breaches.iter().any(wallet), "{}: {breaches:?}", t.backend());
    }
}

/// A card deleted before deletions wrote off negative balances kept its
/// own: `old_write_offs` writes it off to its account's losses, and the
/// check then passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_deleted_owing_before_losses_existed_are_written_off_by_a_migration() {
    for t in TestDb::all().await {
        let (db, _) = setup(&t, 10_000).await;
        // As a forced post and the old deletion left it: -4,000 on a deleted card.
        exec_all(
            &db,
            &post("old", TEST, "card_debit", "la_card_c", "la_card_c_spend", 4_300),
        )
        .await;
        exec(&db, "UPDATE cards SET deleted_at = 5 WHERE id = 'card_c'").await;
        approved_debit(&db, "ctx_old", "old", 4300).await;
        let before = db.breaches(DEFAULT_MAX_WALLET).await.unwrap();
        assert!(
            before
                .iter()
                .any(|b| matches!(b, Breach::DeletedCardHolds { balance: -4_000, .. })),
            "{before:?}"
        );
        let migration = include_str!("../../../../../../migrations/postgres/2026-12-01-000026_old_write_offs/up.sql");
        for statement in migration
            .split(';')
            .map(str::trim)
            .filter(|s| s.contains(char::is_alphabetic))
        {
            let statement: String = statement
                .lines()
                .filter(|l| !l.starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n")
                // Replayed on today's schema, where each posting carries
                // its entry's account (`account_keys`).
                .replace(
                    "INSERT INTO ledger_postings (",
                    "INSERT INTO ledger_postings (account_id, ",
                )
                .replace(
                    "SELECT 'le_old_write_off_' || c.id, 0,",
                    "SELECT c.account_id, 'le_old_write_off_' || c.id, 0,",
                )
                .replace(
                    "SELECT 'le_old_write_off_' || c.id, 1,",
                    "SELECT c.account_id, 'le_old_write_off_' || c.id, 1,",
                );
            exec(&db, &statement).await;
        }
        // Then `card_openings` records each card's opening and closing
        // from what its entries posted, as its migration does.
        exec(&db, "DELETE FROM card_openings").await;
        let openings = include_str!("../../../../../../migrations/postgres/2026-12-11-000036_card_openings/up.sql");
        let backfill = &openings[openings.find("INSERT INTO card_openings").unwrap()..];
        exec(&db, backfill.trim().trim_end_matches(';')).await;
        assert_eq!(
            db.breaches(DEFAULT_MAX_WALLET).await.unwrap(),
            vec![],
            "{}",
            t.backend()
        );
        let losses = db.totals().await.unwrap();
        let losses = losses
            .iter()
            .find(|t| t.kind == "losses" && t.currency == "USD")
            .unwrap();
        assert_eq!(losses.balance, -4_000, "{}", t.backend());
    }
}

/// A SQLite database written to but never analyzed, as every service's
/// is: the connection that opens it gathers its statistics (`PRAGMA
/// optimize`), so each card rule of the check reads a card's
/// transactions by its card. Planned without them, it read every
/// transaction of the account for each card: minutes for `ledger check`
/// at 2,000 cards and 22,000 transactions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checks_card_rules_read_a_cards_transactions_by_its_card_on_sqlite() {
    const CARDS: i64 = 100;
    let t = TestDb::sqlite();
    let (db, _) = setup(&t, 300 * (CARDS + 1)).await;
    for i in 0..CARDS {
        card_of(&db, &format!("card_{i}")).await;
    }
    exec(
        &db,
        &format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) \
             INSERT INTO card_transactions (id, account_id, livemode, card_id, cardholder_id, client_reference, \
             status, amount, currency, description, enriched_data, merchant_name, created_at, kind) \
             SELECT 'ctx_' || i, 'acct_c', FALSE, 'card_' || (i % {CARDS}), 'ch_c', 'r' || i, 'pending', 1, 'USD', \
             'x', '{{}}', 'x', i, 'authorization' FROM n"
        ),
    )
    .await;
    drop(db);
    let db = t.migrated().await;
    for sql in crate::db::money::ledger_audit::card_rule_sqls() {
        let plan = db.explain(&sql).await.join("\n");
        // `t` and `a`: the card's transactions, each rule's and each
        // authorization's; found by the card (or by their own id), never
        // by the account alone nor by a scan.
        for line in plan.lines().filter(|l| l.contains(" t ") || l.contains(" a ")) {
            let by_account = line.contains("card_transactions_by_account (account_id=?)");
            assert!(
                !by_account && !line.starts_with("SCAN"),
                "{line}, in:\n{plan}\nof {sql}"
            );
        }
    }
}

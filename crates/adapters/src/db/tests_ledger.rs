//! The ledger check against books that balance and still are broken: each
//! state is written straight into a fresh database (no API path is known
//! to make it), and the check names the account and the rule it breaks.

use super::tests::{exec, with_account};
use super::tests_cards::setup;
use crate::test_db::TestDb;
use domain::ledger::{Breach, DEFAULT_MAX_WALLET};
use ports::ledger::LedgerAudit;

/// The statements posting a balanced entry of `amount` from one ledger
/// account to another, cached balances kept, as an entry of `account` in
/// its mode.
fn post(entry: &str, (account, live): (&str, bool), kind: &str, from: &str, to: &str, amount: i64) -> Vec<String> {
    vec![
        format!(
            "INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) \
             VALUES ('{entry}', '{account}', {live}, '{kind}', 5)"
        ),
        format!(
            "INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount) \
             VALUES ('{account}', '{entry}', 0, '{from}', 'USD', -{amount}), \
             ('{account}', '{entry}', 1, '{to}', 'USD', {amount})"
        ),
        format!("UPDATE ledger_accounts SET balance = balance - {amount} WHERE id = '{from}'"),
        format!("UPDATE ledger_accounts SET balance = balance + {amount} WHERE id = '{to}'"),
    ]
}

async fn exec_all(db: &super::Db, statements: &[String]) {
    for sql in statements {
        exec(db, sql).await;
    }
}

const TEST: (&str, bool) = ("acct_c", false);
const LIVE: (&str, bool) = ("acct_c", true);
const TEST_WALLET: &str = "la_acct_c_test_issuing_wallet_USD";
const LIVE_WALLET: &str = "la_acct_c_live_issuing_wallet_USD";

/// A broken state: what it is, the statements that write it, the breach
/// it must raise, and the account and rule the breach must name.
type Broken = (
    &'static str,
    Vec<String>,
    fn(&Breach) -> bool,
    &'static str,
    &'static str,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn books_that_balance_but_break_a_rule_fail_the_check_naming_the_account_and_the_rule() {
    let cases: [Broken; 6] = [
        (
            "sandbox money moved into a live wallet",
            post(
                "e1",
                TEST,
                "wallet_funding",
                "la_acct_c_test_faucet_USD",
                LIVE_WALLET,
                100,
            ),
            |b| matches!(b, Breach::CrossBooks { .. }),
            LIVE_WALLET,
            "within one account and one mode",
        ),
        (
            "money left on a deleted card",
            vec!["UPDATE cards SET deleted_at = 5, deleted_reason = 'requested' WHERE id = 'card_c'".into()],
            |b| matches!(b, Breach::DeletedCardHolds { balance: 300, .. }),
            "card_c",
            "a deleted card holds nothing",
        ),
        (
            "money in transit with no pending transfer",
            post(
                "e4",
                TEST,
                "card_transfer_reserve",
                TEST_WALLET,
                "la_card_c_transit",
                100,
            ),
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
            post(
                "e5",
                LIVE,
                "wallet_credit",
                "la_acct_c_live_deposits_USD",
                LIVE_WALLET,
                100,
            ),
            |b| matches!(b, Breach::UnrecordedDeposit { .. }),
            "la_acct_c_live_deposits_USD",
            "every deposit credit has its record",
        ),
        (
            "held money with no pending authorization",
            post("e7", TEST, "card_hold", "la_card_c", "la_card_c_held", 100),
            |b| {
                matches!(
                    b,
                    Breach::HeldMismatch {
                        held: 100,
                        pending: 0,
                        ..
                    }
                )
            },
            "card_c",
            "held money is what pending authorizations hold",
        ),
        (
            "a card's spend with no transaction",
            post("e6", TEST, "card_debit", "la_card_c", "la_card_c_spend", 100),
            |b| {
                matches!(
                    b,
                    Breach::SpendMismatch {
                        posted: 100,
                        recorded: 0,
                        ..
                    }
                )
            },
            "card_c",
            "every debit and fee is a transaction of the card",
        ),
    ];
    for (what, sql, is_it, names, rule) in &cases {
        for t in TestDb::all().await {
            let (db, _) = setup(&t, 10_000).await;
            with_account(&db, "acct_z").await;
            assert_eq!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap(), vec![], "{what}: before");
            exec_all(&db, sql).await;
            let breaches = db.breaches(DEFAULT_MAX_WALLET).await.unwrap();
            // The books balance: this rule alone catches it.
            assert_eq!(breaches.len(), 1, "{}, {what}: {breaches:?}", t.backend());
            assert!(is_it(&breaches[0]), "{}, {what}: {breaches:?}", t.backend());
            let message = breaches[0].to_string();
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
        exec(
            &db,
            "INSERT INTO card_transactions (id, account_id, livemode, card_id, cardholder_id, client_reference, status, \
             amount, currency, description, enriched_data, merchant_name, created_at, approved_seq) VALUES \
             ('ctx_old', 'acct_c', FALSE, 'card_c', 'ch_c', 'old', 'approved', 4300, 'USD', 'x', '{}', 'x', 5, 1)",
        )
        .await;
        let before = db.breaches(DEFAULT_MAX_WALLET).await.unwrap();
        assert!(
            matches!(before[..], [Breach::DeletedCardHolds { balance: -4_000, .. }]),
            "{before:?}"
        );
        let migration = include_str!("../../../../migrations/postgres/2026-12-01-000026_old_write_offs/up.sql");
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

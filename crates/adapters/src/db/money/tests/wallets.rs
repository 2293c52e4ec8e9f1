//! Wallets: fundings in balanced entries, raced and past the maximum, and
//! the ledger check naming a breach.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::Timestamp;
use domain::ledger::{Breach, DEFAULT_MAX_WALLET};
use domain::{Amount, Currency, Mode};
use ports::ledger::LedgerAudit;
use ports::wallets::{FundWalletError, WalletStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_account_has_empty_wallets_in_both_modes() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        for mode in Mode::BOTH {
            let b = db.balances(&acct, mode).await.unwrap();
            assert_eq!((b.usd, b.ngn), (Amount::ZERO, Amount::ZERO), "{}", t.backend());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn funding_credits_one_wallet_in_a_balanced_entry() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let other = with_account(&db, "acct_b").await;
        assert_eq!(
            db.fund_from_faucet(
                &acct,
                Mode::Test,
                Currency::Usd,
                amount(500),
                DEFAULT_MAX_WALLET,
                Timestamp::from_unix(1)
            )
            .await
            .unwrap(),
            amount(500)
        );
        assert_eq!(
            db.fund_from_faucet(
                &acct,
                Mode::Test,
                Currency::Usd,
                amount(250),
                DEFAULT_MAX_WALLET,
                Timestamp::from_unix(2)
            )
            .await
            .unwrap(),
            amount(750)
        );
        db.fund_from_faucet(
            &acct,
            Mode::Test,
            Currency::Ngn,
            amount(9),
            DEFAULT_MAX_WALLET,
            Timestamp::from_unix(3),
        )
        .await
        .unwrap();
        let b = db.balances(&acct, Mode::Test).await.unwrap();
        assert_eq!((b.usd, b.ngn), (amount(750), amount(9)), "{}", t.backend());
        assert_eq!(db.balances(&acct, Mode::Live).await.unwrap().usd, Amount::ZERO);
        assert_eq!(db.balances(&other, Mode::Test).await.unwrap().usd, Amount::ZERO);
        assert_eq!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap(), vec![]);
        let totals: Vec<_> = db
            .totals()
            .await
            .unwrap()
            .into_iter()
            .filter(|t| t.balance != 0)
            .map(|t| (t.kind, t.currency, t.balance))
            .collect();
        let total = |kind: &str, currency: &str, balance| (kind.to_string(), currency.to_string(), balance);
        assert_eq!(
            totals,
            [
                total("faucet", "NGN", -9),
                total("faucet", "USD", -750),
                total("issuing_wallet", "NGN", 9),
                total("issuing_wallet", "USD", 750)
            ],
            "{}",
            t.backend()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_fundings_sum_exactly() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let fundings = (1..=50).map(|i| {
            let (db, acct) = (db.clone(), acct.clone());
            tokio::spawn(async move {
                db.fund_from_faucet(
                    &acct,
                    Mode::Test,
                    Currency::Usd,
                    amount(i),
                    DEFAULT_MAX_WALLET,
                    Timestamp::from_unix(i),
                )
                .await
            })
        });
        for f in futures::future::join_all(fundings).await {
            f.unwrap().unwrap();
        }
        assert_eq!(
            db.balances(&acct, Mode::Test).await.unwrap().usd,
            amount(50 * 51 / 2),
            "{}",
            t.backend()
        );
        assert_eq!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap(), vec![]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_funding_past_the_wallet_maximum_is_refused_without_a_trace() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let max = amount(1_000);
        db.fund_from_faucet(
            &acct,
            Mode::Test,
            Currency::Usd,
            amount(990),
            max,
            Timestamp::from_unix(1),
        )
        .await
        .unwrap();
        let refused = db
            .fund_from_faucet(
                &acct,
                Mode::Test,
                Currency::Usd,
                amount(11),
                max,
                Timestamp::from_unix(2),
            )
            .await;
        assert!(matches!(refused, Err(FundWalletError::BalanceLimit)), "{}", t.backend());
        // The largest amount there is, on a wallet that is not empty: no
        // sum in a guard wraps.
        let refused = db
            .fund_from_faucet(
                &acct,
                Mode::Test,
                Currency::Usd,
                Amount::MAX,
                Amount::MAX,
                Timestamp::from_unix(3),
            )
            .await;
        assert!(matches!(refused, Err(FundWalletError::BalanceLimit)), "{}", t.backend());
        db.fund_from_faucet(
            &acct,
            Mode::Test,
            Currency::Usd,
            amount(10),
            max,
            Timestamp::from_unix(4),
        )
        .await
        .unwrap();
        assert_eq!(db.balances(&acct, Mode::Test).await.unwrap().usd, max);
        assert_eq!(db.breaches(max).await.unwrap(), vec![]);
        // The faucet holds the account's wallet to the maximum it is given.
        let lower = amount(999);
        assert!(!db.breaches(lower).await.unwrap().is_empty(), "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_check_names_every_breach() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        db.fund_from_faucet(
            &acct,
            Mode::Test,
            Currency::Usd,
            amount(100),
            DEFAULT_MAX_WALLET,
            Timestamp::from_unix(1),
        )
        .await
        .unwrap();
        let wallet = "la_acct_a_test_issuing_wallet_USD";
        let ngn_wallet = "la_acct_a_test_issuing_wallet_NGN";
        exec(
            &db,
            &format!("UPDATE ledger_accounts SET balance = balance + 1 WHERE id = '{wallet}'"),
        )
        .await;
        exec(
            &db,
            &format!("UPDATE ledger_accounts SET balance = -5 WHERE id = '{ngn_wallet}'"),
        )
        .await;
        exec(
            &db,
            "INSERT INTO ledger_entries VALUES ('le_bad', 'acct_a', FALSE, 'tamper', 1)",
        )
        .await;
        exec(
            &db,
            &format!(
                "INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount) \
                 VALUES ('acct_a', 'le_bad', 0, '{wallet}', 'NGN', 3)"
            ),
        )
        .await;
        let breaches = db.breaches(DEFAULT_MAX_WALLET).await.unwrap();
        let expected = [
            Breach::Unbalanced {
                entry_id: "le_bad".into(),
                currency: "NGN".into(),
                sum: 3,
            },
            Breach::TooFewPostings {
                entry_id: "le_bad".into(),
                postings: 1,
            },
            Breach::BalanceMismatch {
                ledger_account: ngn_wallet.into(),
                cached: -5,
                postings: 0,
            },
            Breach::BalanceMismatch {
                ledger_account: wallet.into(),
                cached: 101,
                postings: 103,
            },
            Breach::OutOfRange {
                ledger_account: ngn_wallet.into(),
                balance: -5,
                allowed: 0..=domain::Amount::MAX.minor(),
            },
            Breach::CurrencyMismatch {
                entry_id: "le_bad".into(),
                ledger_account: wallet.into(),
            },
            // A kind the service never posts.
            Breach::Misposted {
                entry_id: "le_bad".into(),
                kind: "tamper".into(),
                ledger_account: wallet.into(),
            },
        ];
        assert_eq!(breaches, expected, "{}", t.backend());
    }
}

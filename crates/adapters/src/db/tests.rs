//! The repository suite: every test runs on SQLite, and on PostgreSQL too
//! when `TEST_DATABASE_URL` is set.

use super::{Db, migrate};
use crate::crypto::vault::MasterKeyVault;
use crate::test_db::TestDb;
use domain::Timestamp;
use domain::ids::AccountId;
use domain::ledger::{Breach, DEFAULT_MAX_WALLET};
use domain::{Amount, Currency, Mode, Secret};
use ports::accounts::{AccountStore, NewAccount, StoredKey};
use ports::ledger::LedgerAudit;
use ports::rate_limits::{Permit, RateLimits};
use ports::vault::{Place, Vault};
use ports::wallets::{FundWalletError, WalletStore};

pub(super) fn new_account(id: &str, is_demo: bool) -> NewAccount {
    let key = |mode: Mode| StoredKey {
        mode,
        lookup_hash: format!("hash-{id}-{}", mode.as_str()),
        sealed: format!("sealed-{id}-{}", mode.as_str()).into_bytes(),
    };
    NewAccount {
        id: AccountId::new(id),
        name: format!("Account {id}"),
        is_demo,
        webhook_url: Some("https://hooks.test/x".into()),
        company_address: Some("1 Marina, Lagos".into()),
        utility_bill_url: Some("https://hooks.test/bill.pdf".into()),
        test_webhook_secret_sealed: b"sealed-whsec-test".to_vec(),
        live_webhook_secret_sealed: b"sealed-whsec-live".to_vec(),
        keys: [key(Mode::Test), key(Mode::Live)],
        created_at: Timestamp::from_unix(1_700_000_000),
    }
}

pub(super) async fn with_account(db: &Db, id: &str) -> AccountId {
    db.create_account(new_account(id, false)).await.unwrap();
    AccountId::new(id)
}

fn amount(n: i64) -> Amount {
    Amount::from_minor(n).unwrap()
}

pub(super) async fn exec(db: &Db, sql: &str) {
    db.execute_raw(sql).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrations_apply_once() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        assert_eq!(migrate(&db).await.unwrap(), 0, "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_find_their_account_and_mode() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        assert!(!db.any_account().await.unwrap());
        db.create_account(new_account("acct_a", false)).await.unwrap();
        assert!(db.any_account().await.unwrap());
        assert!(db.demo_key(Mode::Test).await.unwrap().is_none());
        db.create_account(new_account("acct_demo", true)).await.unwrap();
        let owner = db
            .find_key("hash-acct_a-live", Timestamp::from_unix(1))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (owner.account_id.as_str(), owner.mode),
            ("acct_a", Mode::Live),
            "{}",
            t.backend()
        );
        assert!(
            db.find_key("hash-nobody", Timestamp::from_unix(1))
                .await
                .unwrap()
                .is_none()
        );
        let demo = db.demo_key(Mode::Test).await.unwrap().unwrap();
        assert_eq!(
            (
                demo.account_id.as_str(),
                demo.lookup_hash.as_str(),
                demo.sealed.as_slice()
            ),
            ("acct_demo", "hash-acct_demo-test", &b"sealed-acct_demo-test"[..])
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_key_leaves_no_partial_account() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        db.create_account(new_account("acct_a", false)).await.unwrap();
        let mut twin = new_account("acct_b", false);
        twin.keys[1].lookup_hash = "hash-acct_a-live".into();
        assert!(db.create_account(twin).await.is_err(), "{}", t.backend());
        assert!(
            db.find_key("hash-acct_b-test", Timestamp::from_unix(1))
                .await
                .unwrap()
                .is_none()
        );
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_grant_once_per_window() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let acquire = |mode, subject: &'static str, now| {
            let (db, acct) = (db.clone(), acct.clone());
            async move { db.acquire(&acct, mode, "fx_rate", subject, 60, now).await.unwrap() }
        };
        assert_eq!(
            acquire(Mode::Test, "", Timestamp::from_unix(1_000)).await,
            Permit::Granted,
            "{}",
            t.backend()
        );
        assert_eq!(
            acquire(Mode::Test, "", Timestamp::from_unix(1_010)).await,
            Permit::Denied { retry_after_secs: 50 }
        );
        assert_eq!(
            acquire(Mode::Live, "", Timestamp::from_unix(1_010)).await,
            Permit::Granted
        );
        assert_eq!(
            acquire(Mode::Test, "other", Timestamp::from_unix(1_010)).await,
            Permit::Granted
        );
        assert_eq!(
            acquire(Mode::Test, "", Timestamp::from_unix(1_060)).await,
            Permit::Granted
        );
        assert_eq!(
            acquire(Mode::Test, "", Timestamp::from_unix(1_119)).await,
            Permit::Denied { retry_after_secs: 1 }
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_callers_get_one_grant_per_window() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let calls = (0..20).map(|_| {
            let (db, acct) = (db.clone(), acct.clone());
            tokio::spawn(async move {
                db.acquire(&acct, Mode::Test, "x", "card_1", 3, Timestamp::from_unix(50))
                    .await
                    .unwrap()
            })
        });
        let granted = futures::future::join_all(calls)
            .await
            .into_iter()
            .filter(|p| *p.as_ref().unwrap() == Permit::Granted)
            .count();
        assert_eq!(granted, 1, "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sealed_secrets_are_what_is_stored() {
    // The vault and the store together: what the account row holds opens
    // back to the secret only with the same master key.
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let vault = MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap();
        let mut account = new_account("acct_demo", true);
        let place = |row| Place::api_key(row, "acct_demo", Mode::Test);
        account.keys[0].sealed = vault.seal(b"sk_test_demo", &place("hash-acct_demo-test"));
        db.create_account(account).await.unwrap();
        let demo = db.demo_key(Mode::Test).await.unwrap().unwrap();
        assert_eq!(
            vault.open(&demo.sealed, &place(&demo.lookup_hash)).unwrap(),
            Secret::new(b"sk_test_demo".to_vec()),
            "{}",
            t.backend()
        );
        assert!(vault.open(&demo.sealed, &place("another-key")).is_err());
    }
}

#[derive(diesel::QueryableByName)]
struct Setting {
    #[diesel(sql_type = diesel::sql_types::Text)]
    value: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_connection_starts_with_its_session_settings() {
    use diesel_async::RunQueryDsl;
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let query = match t.backend() {
            "sqlite" => "SELECT journal_mode AS value FROM pragma_journal_mode",
            _ => "SELECT current_setting('application_name') AS value",
        };
        let setting = super::with_conn!(db.pool(), |conn| diesel::sql_query(query)
            .get_result::<Setting>(conn)
            .await)
        .unwrap();
        let expected = if t.backend() == "sqlite" { "wal" } else { "issuing" };
        assert_eq!(setting.value, expected, "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_sealed_before_places_are_sealed_again_bound_to_theirs() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let vault = MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap();
        let mut account = new_account("acct_old", true);
        account.keys[0].sealed = vault.seal_unbound(b"sk_test_old");
        account.keys[1].sealed = vault.seal_unbound(b"sk_live_old");
        account.test_webhook_secret_sealed = vault.seal_unbound(b"whsec_test");
        account.live_webhook_secret_sealed = vault.seal_unbound(b"whsec_live");
        db.create_account(account).await.unwrap();
        assert_eq!(db.reseal_unbound(&vault).await.unwrap(), 4, "{}", t.backend());
        assert_eq!(db.reseal_unbound(&vault).await.unwrap(), 0, "once");
        let test_key = Place::api_key("hash-acct_old-test", "acct_old", Mode::Test);
        let demo = db.demo_key(Mode::Test).await.unwrap().unwrap();
        assert_eq!(vault.open(&demo.sealed, &test_key).unwrap().expose(), b"sk_test_old");
        // Another key does not open them, and says which value it was.
        let other = MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap();
        let mut account = new_account("acct_more", false);
        account.keys[0].sealed = vault.seal_unbound(b"sk_test_more");
        db.create_account(account).await.unwrap();
        let e = db.reseal_unbound(&other).await.unwrap_err();
        assert!(e.to_string().contains("api_keys.sealed_key of hash-acct_more-"), "{e}");
    }
}

/// How many transactions wrote the rows of `table` (a name from the
/// schema): PostgreSQL stamps each row with its transaction's id. `None`
/// on SQLite.
pub(super) async fn transactions_of(db: &super::Db, table: &str) -> Option<i64> {
    use diesel_async::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let super::DbPool::Pg(pool) = db.pool() else {
        return None;
    };
    let mut conn = pool.get().await.unwrap();
    let count = diesel::sql_query(format!("SELECT count(DISTINCT xmin::text) AS n FROM {table}"))
        .get_result::<Count>(&mut *conn)
        .await
        .unwrap();
    Some(count.n)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accounts_own_rule_change_never_writes_the_operators_switch() {
    use domain::rewards::rules::RewardRules;
    use ports::rewards::RewardStore;
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let on = RewardRules {
            enabled: true,
            ..RewardRules::default()
        };
        assert!(db.set_rules(&acct, Mode::Test, on, true).await.unwrap());
        // The account's change read the switch off before the operator
        // turned it on: it writes its thresholds, not that stale switch.
        let stale = RewardRules {
            enabled: false,
            monthly_debits: 9,
            ..RewardRules::default()
        };
        assert!(db.set_rules(&acct, Mode::Test, stale, false).await.unwrap());
        let kept = db.rules(&acct, Mode::Test).await.unwrap();
        assert_eq!((kept.enabled, kept.monthly_debits), (true, 9), "{}", t.backend());
        // The operator's change writes it.
        assert!(db.set_rules(&acct, Mode::Test, stale, true).await.unwrap());
        assert!(!db.rules(&acct, Mode::Test).await.unwrap().enabled);
    }
}

/// A key whose request still runs is never forgotten for its age (the
/// sandbox clock may jump a day meanwhile); only an answered key, or one
/// whose lease ran out with its process, goes at the day's end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_idempotency_key_outlives_its_day() {
    use domain::idempotency::{Fingerprint, IdempotencyKey};
    use ports::idempotency::{Claimed, IdempotencyKeys, KeptAnswer, KeyOf, NewClaim};
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let account = with_account(&db, "acct_idem").await;
        let fingerprint = Fingerprint {
            request: "POST /x".into(),
            params_hash: "h".into(),
        };
        let (running, answered) = (
            IdempotencyKey::parse(b"running").unwrap(),
            IdempotencyKey::parse(b"answered").unwrap(),
        );
        for (key, token) in [(&running, "t1"), (&answered, "t2")] {
            let key = KeyOf {
                account: &account,
                mode: Mode::Test,
                key,
            };
            let claim = NewClaim {
                fingerprint: &fingerprint,
                created_at: Timestamp::from_unix(1_000),
                lease_until: 5_000,
                token,
            };
            assert!(matches!(db.claim(key, claim).await.unwrap(), Claimed::Now));
        }
        let answer = KeptAnswer {
            status: 200,
            content_type: None,
            body: b"{}".to_vec(),
        };
        let key = KeyOf {
            account: &account,
            mode: Mode::Test,
            key: &answered,
        };
        assert!(
            db.answer(key, "t2", &answer, Timestamp::from_unix(1_000))
                .await
                .unwrap()
        );
        // Two days on the sandbox clock, the lease still held.
        let day_after = Timestamp::from_unix(1_000 + 2 * 86_400);
        let forgotten = db.forget_before(&account, Mode::Test, day_after, 4_000).await.unwrap();
        assert_eq!(forgotten, 1, "the answered key only, on {}", t.backend());
        let key = KeyOf {
            account: &account,
            mode: Mode::Test,
            key: &running,
        };
        let claim = NewClaim {
            fingerprint: &fingerprint,
            created_at: day_after,
            lease_until: 9_000,
            token: "t3",
        };
        assert!(
            matches!(db.claim(key, claim).await.unwrap(), Claimed::Already(_)),
            "the running key is still held on {}",
            t.backend()
        );
        // Its process died: the lease ran out, and the key goes.
        let forgotten = db.forget_before(&account, Mode::Test, day_after, 5_001).await.unwrap();
        assert_eq!(forgotten, 1, "{}", t.backend());
    }
}

//! The account store's tests: keys, idempotency and rate limits, on
//! SQLite and (with `TEST_DATABASE_URL`) PostgreSQL.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::Mode;
use domain::Timestamp;
use domain::ledger::DEFAULT_MAX_WALLET;
use ports::accounts::AccountStore;
use ports::ledger::LedgerAudit;
use ports::rate_limits::{Permit, RateLimits};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_find_their_account_and_mode() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        assert!(!db.any_account().await.unwrap());
        db.create_account(new_account("acct_a", false)).await.unwrap();
        assert!(db.any_account().await.unwrap());
        assert!(db.demo_key(Mode::Test).await.unwrap().is_none());
        db.create_account(new_account("acct_demo", true)).await.unwrap();
        // One demo account: a second (a process started at once) is
        // refused whole, its keys with it.
        assert!(db.create_account(new_account("acct_demo2", true)).await.is_err());
        let second = db.find_key("hash-acct_demo2-test", Timestamp::from_unix(1)).await;
        assert!(second.unwrap().is_none(), "{}", t.backend());
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
        // A grant given back frees the subject at once; giving back an
        // older one leaves the newer grant in force.
        db.release(&acct, Mode::Test, "fx_rate", "", Timestamp::from_unix(1_000))
            .await
            .unwrap();
        assert_eq!(
            acquire(Mode::Test, "", Timestamp::from_unix(1_119)).await,
            Permit::Denied { retry_after_secs: 1 }
        );
        db.release(&acct, Mode::Test, "fx_rate", "", Timestamp::from_unix(1_060))
            .await
            .unwrap();
        assert_eq!(
            acquire(Mode::Test, "", Timestamp::from_unix(1_119)).await,
            Permit::Granted
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

//! The dashboard's store: one-time links, sessions' two timeouts, wrong
//! sign-in attempts counted once each under races, and the account's users.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::Timestamp;
use domain::console::{self, LoginCount, Role, Seat, SessionWindow};
use domain::ids::AccountId;
use ports::console::{ConsoleStore, NewSession, NewUser};

fn at(secs: i64) -> Timestamp {
    Timestamp::from_unix(secs)
}

fn user(id: &str, email: &str, seat: Seat) -> NewUser {
    NewUser {
        id: id.into(),
        email: email.into(),
        seat,
        link_hash: format!("link-{id}"),
        link_expires_at: at(1_000 + console::LINK_SECS),
        created_at: at(1_000),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_sets_a_password_once_before_it_expires_and_an_email_is_one_users() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let acct = with_account(&db, "acct_a").await;
        let admin = Seat::Account {
            account: acct.clone(),
            role: Role::Admin,
        };
        assert!(db.create_user(user("usr_1", "ada@x.ng", admin.clone())).await.unwrap());
        assert!(!db.create_user(user("usr_2", "ada@x.ng", Seat::Operator)).await.unwrap());
        assert!(db.create_user(user("usr_3", "ops@x.ng", Seat::Operator)).await.unwrap());
        let expired = at(1_000 + console::LINK_SECS);
        assert_eq!(db.set_password("link-usr_1", "h1", expired).await.unwrap(), None);
        let set = db.set_password("link-usr_1", "h1", at(2_000)).await.unwrap().unwrap();
        assert_eq!((set.id.as_str(), &set.seat), ("usr_1", &admin), "{}", t.backend());
        assert_eq!(
            db.set_password("link-usr_1", "h2", at(2_001)).await.unwrap(),
            None,
            "used up"
        );
        let login = db.login("ada@x.ng").await.unwrap().unwrap();
        assert_eq!(login.password_hash.as_deref(), Some("h1"));
        let users = db.users(Some(acct.clone())).await.unwrap();
        assert_eq!(users.len(), 1);
        assert_eq!(db.users(Some(AccountId::new("acct_b"))).await.unwrap(), vec![]);
        assert_eq!(db.users(None).await.unwrap()[0].seat, Seat::Operator);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_ends_when_idle_too_long_or_old_enough_and_when_signed_out() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        db.create_user(user("usr_1", "ops@x.ng", Seat::Operator)).await.unwrap();
        let started = at(10_000);
        for token in ["s1", "s2", "s3"] {
            let session = NewSession {
                token_hash: token.into(),
                user_id: "usr_1".into(),
                started_at: started,
                second_factor: false,
                counted: LoginCount {
                    failed: 1,
                    locked_until: None,
                },
            };
            assert!(db.start_session(session).await.unwrap());
        }
        let seen = async |token: &str, now: Timestamp| {
            let found = db.session(token, SessionWindow::at(now)).await.unwrap();
            found.map(|u| u.id)
        };
        // Seen every 29 minutes, it lives until 12 hours after sign-in.
        let mut now = started;
        while now.plus(29 * 60) < started.plus(console::SESSION_SECS) {
            now = now.plus(29 * 60);
            assert_eq!(seen("s1", now).await.as_deref(), Some("usr_1"), "{}", t.backend());
        }
        assert_eq!(seen("s1", started.plus(console::SESSION_SECS)).await, None);
        // Idle for 30 minutes, it is over, and stays over.
        assert_eq!(seen("s2", started.plus(console::IDLE_SECS)).await, None);
        assert_eq!(seen("s2", started.plus(console::IDLE_SECS + 1)).await, None);
        assert_eq!(seen("s3", started.plus(60)).await.as_deref(), Some("usr_1"));
        db.end_session("s3").await.unwrap();
        assert_eq!(seen("s3", started.plus(61)).await, None);
        assert_eq!(seen("nope", started.plus(1)).await, None);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attempt_is_counted_only_from_the_count_it_read_and_a_session_starts_it_again() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        db.create_user(user("usr_1", "ops@x.ng", Seat::Operator)).await.unwrap();
        let read = db.login("ops@x.ng").await.unwrap().unwrap().count;
        assert_eq!(
            read,
            LoginCount {
                failed: 0,
                locked_until: None
            }
        );
        let locked = LoginCount {
            failed: 5,
            locked_until: Some(at(5_000)),
        };
        // Twenty attempts raced from the same read: one counts.
        let raced = (0..20).map(|_| {
            let db = db.clone();
            tokio::spawn(async move { db.count_attempt("usr_1", read, locked).await.unwrap() })
        });
        let counted = futures::future::join_all(raced)
            .await
            .into_iter()
            .filter(|c| *c.as_ref().unwrap())
            .count();
        assert_eq!(counted, 1, "{}", t.backend());
        assert_eq!(db.login("ops@x.ng").await.unwrap().unwrap().count, locked);
        assert!(
            !db.count_attempt("usr_1", read, locked).await.unwrap(),
            "a stale read counts nothing"
        );
        // A sign-in checked before a second factor was set up starts no
        // session once it is.
        let session = |token: &str, second_factor, counted| NewSession {
            token_hash: token.into(),
            user_id: "usr_1".into(),
            started_at: at(6_000),
            second_factor,
            counted,
        };
        assert!(!db.start_session(session("s0", true, locked)).await.unwrap());
        // Attempts counted after this one keep their places...
        let earlier = LoginCount {
            failed: 4,
            locked_until: None,
        };
        assert!(db.start_session(session("s1", false, earlier)).await.unwrap());
        assert_eq!(db.login("ops@x.ng").await.unwrap().unwrap().count, locked);
        // ... and a session whose attempt was the last starts the count again.
        assert!(db.start_session(session("s2", false, locked)).await.unwrap());
        assert_eq!(db.login("ops@x.ng").await.unwrap().unwrap().count, read);
        assert!(db.set_totp("usr_1", b"sealed".to_vec()).await.unwrap());
        assert!(
            !db.start_session(session("s3", false, read)).await.unwrap(),
            "checked without it"
        );
        assert!(db.start_session(session("s4", true, read)).await.unwrap());
    }
}

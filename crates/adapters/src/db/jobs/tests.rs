//! The job queue, the event log and test clocks, on SQLite and (with
//! `TEST_DATABASE_URL`) PostgreSQL.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::Mode;
use domain::Timestamp;
use domain::events::DeliveryState;
use domain::ids::{EventId, JobId};
use domain::paging::Page;
use ports::accounts::AccountStore;
use ports::events::{AttemptOutcome, EventStore, NewEvent};
use ports::jobs::{Job, JobKind, JobStore, Lease, NewJob, Queue};
use ports::test_clocks::TestClocks;
use std::collections::HashSet;

fn job(id: &str, run_at: i64) -> NewJob {
    NewJob {
        id: JobId::new(id),
        kind: JobKind::DeliverWebhook,
        subject: format!("evt_{id}"),
        max_attempts: 3,
        run_at: Timestamp::from_unix(run_at),
    }
}

fn event(id: &str, account: &str, mode: Mode) -> NewEvent {
    NewEvent {
        id: EventId::new(id),
        account_id: domain::ids::AccountId::new(account),
        mode,
        event: "webhook.test",
        data: r#"{"x":1}"#.into(),
        created_at: Timestamp::from_unix(100),
    }
}

fn outcome(status: Option<u16>) -> AttemptOutcome {
    AttemptOutcome {
        attempted_at: Timestamp::from_unix(200),
        url: "http://hooks.test".into(),
        status_code: status,
        error: None,
        duration_ms: 4,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn due_jobs_are_leased_once_and_come_back_when_the_lease_expires() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        db.emit(event("evt_1", "acct_a", Mode::Test), job("job_1", 10))
            .await
            .unwrap();
        db.emit(event("evt_2", "acct_a", Mode::Test), job("job_2", 50))
            .await
            .unwrap();
        assert!(
            db.claim(Queue::Webhooks, &lease(), Timestamp::from_unix(9), 10, &[])
                .await
                .unwrap()
                .is_empty(),
            "{}: not due yet",
            t.backend()
        );
        let claimed = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(10), 10, &[])
            .await
            .unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!((claimed[0].id.as_str(), claimed[0].attempts), ("job_1", 1));
        assert!(
            db.claim(Queue::Webhooks, &lease(), Timestamp::from_unix(20), 10, &[])
                .await
                .unwrap()
                .is_empty(),
            "leased"
        );
        let again = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(310), 10, &[])
            .await
            .unwrap();
        let ids: HashSet<&str> = again.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(
            ids,
            HashSet::from(["job_1", "job_2"]),
            "the expired lease and the due job"
        );
        assert_eq!(again.iter().find(|j| j.id.as_str() == "job_1").unwrap().attempts, 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_queue_leases_exactly_its_own_kinds() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        let account = with_account(&db, "acct_a").await;
        for kind in JobKind::ALL {
            let job = NewJob {
                id: JobId::new(format!("job_{}", kind.as_str())),
                kind,
                subject: "s".into(),
                max_attempts: 3,
                run_at: Timestamp::from_unix(10),
            };
            db.schedule(job, &account, Mode::Test).await.unwrap();
        }
        for queue in [Queue::Work, Queue::Webhooks] {
            let claimed = db
                .claim(queue, &lease(), Timestamp::from_unix(10), 100, &[])
                .await
                .unwrap();
            let mut kinds: Vec<&str> = claimed.iter().map(|j| j.kind.as_str()).collect();
            kinds.sort_unstable();
            let mut expected = queue.kinds();
            expected.sort_unstable();
            assert_eq!(kinds, expected, "{}: {queue:?}", t.backend());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_heartbeat_keeps_a_lease_and_a_runner_that_lost_its_lease_changes_nothing() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        db.emit(event("evt_1", "acct_a", Mode::Test), job("job_1", 10))
            .await
            .unwrap();
        let short = |token: &str| Lease {
            token: token.into(),
            secs: 15,
        };
        let first = db
            .claim(Queue::Webhooks, &short("first"), Timestamp::from_unix(10), 1, &[])
            .await
            .unwrap();
        assert_eq!(first[0].lease, "first");
        assert!(db.extend("first", Timestamp::from_unix(40)).await.unwrap());
        let second_lease = short("second");
        let claim_at = |secs| db.claim(Queue::Webhooks, &second_lease, Timestamp::from_unix(secs), 1, &[]);
        assert!(claim_at(30).await.unwrap().is_empty(), "{}: heartbeated", t.backend());
        // The heartbeats stop (the runner died): the job is due again.
        let second: Vec<Job> = claim_at(40).await.unwrap();
        assert_eq!((second[0].lease.as_str(), second[0].attempts), ("second", 2));
        // The first runner comes back: its lease is gone, so nothing it
        // does touches the job the second one holds.
        assert!(
            !db.extend("first", Timestamp::from_unix(1_000)).await.unwrap(),
            "the heartbeat learns the lease is gone"
        );
        db.reschedule(&first[0], "late", Timestamp::from_unix(41), Timestamp::from_unix(41))
            .await
            .unwrap();
        db.park(&first[0], "late", Timestamp::from_unix(41)).await.unwrap();
        db.complete("first", &[JobId::new("job_1")]).await.unwrap();
        let listed = db.list(false, 10).await.unwrap();
        assert_eq!(
            (listed.len(), listed[0].state.as_str(), listed[0].last_error.as_deref()),
            (1, "running", None),
            "{}",
            t.backend()
        );
        assert!(
            claim_at(56).await.unwrap().len() == 1,
            "the late extension did not renew the second claim's lease"
        );
        // A postponed job gives back the attempt its claim counted.
        let third = db
            .claim(Queue::Webhooks, &short("third"), Timestamp::from_unix(80), 1, &[])
            .await
            .unwrap();
        assert_eq!(third[0].attempts, 4);
        db.postpone(&third[0], Timestamp::from_unix(90), Timestamp::from_unix(80))
            .await
            .unwrap();
        let fourth = db
            .claim(Queue::Webhooks, &short("fourth"), Timestamp::from_unix(90), 1, &[])
            .await
            .unwrap();
        assert_eq!(fourth[0].attempts, 4, "{}", t.backend());
        db.complete("fourth", &[JobId::new("job_1")]).await.unwrap();
        assert!(db.list(false, 10).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_claims_never_share_a_job() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        for i in 0..60 {
            db.emit(
                event(&format!("evt_{i}"), "acct_a", Mode::Test),
                job(&format!("job_{i}"), 1),
            )
            .await
            .unwrap();
        }
        let claims = (0..12).map(|_| {
            let db = db.clone();
            tokio::spawn(async move {
                db.claim(Queue::Webhooks, &lease(), Timestamp::from_unix(5), 7, &[])
                    .await
                    .unwrap()
            })
        });
        let mut seen = Vec::new();
        for c in futures::future::join_all(claims).await {
            seen.extend(c.unwrap().into_iter().map(|j| j.id.to_string()));
        }
        let unique: HashSet<&String> = seen.iter().collect();
        assert_eq!(unique.len(), seen.len(), "{}: a job was leased twice", t.backend());
        assert_eq!(seen.len(), 60);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_jobs_are_rescheduled_parked_listed_and_retried() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        db.emit(event("evt_1", "acct_a", Mode::Test), job("job_1", 1))
            .await
            .unwrap();
        let id = JobId::new("job_1");
        let claimed = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(1), 1, &[])
            .await
            .unwrap();
        db.reschedule(
            &claimed[0],
            "refused",
            Timestamp::from_unix(100),
            Timestamp::from_unix(2),
        )
        .await
        .unwrap();
        assert!(
            db.claim(Queue::Webhooks, &lease(), Timestamp::from_unix(99), 1, &[])
                .await
                .unwrap()
                .is_empty(),
            "{}",
            t.backend()
        );
        let again = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(100), 1, &[])
            .await
            .unwrap();
        assert_eq!(again.len(), 1);
        db.park(&again[0], "gave up: 500", Timestamp::from_unix(101))
            .await
            .unwrap();
        assert!(
            db.claim(Queue::Webhooks, &lease(), Timestamp::from_unix(10_000), 1, &[])
                .await
                .unwrap()
                .is_empty(),
            "parked jobs never run"
        );
        let failed = db.list(true, 10).await.unwrap();
        assert_eq!(failed.len(), 1);
        assert_eq!(
            (failed[0].state.as_str(), failed[0].last_error.as_deref()),
            ("failed", Some("gave up: 500"))
        );
        assert!(db.retry(&id, Timestamp::from_unix(200)).await.unwrap());
        assert!(
            !db.retry(&id, Timestamp::from_unix(200)).await.unwrap(),
            "only parked jobs are retried"
        );
        let back = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(200), 1, &[])
            .await
            .unwrap();
        assert_eq!(back[0].attempts, 1, "a fresh set of attempts");
        db.complete("l", std::slice::from_ref(&id)).await.unwrap();
        assert!(db.list(false, 10).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_page_newest_first_within_their_account_and_mode() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        with_account(&db, "acct_b").await;
        for i in 0..25 {
            db.emit(
                event(&format!("evt_{i:02}"), "acct_a", Mode::Test),
                job(&format!("job_{i}"), 1),
            )
            .await
            .unwrap();
        }
        db.emit(event("evt_live", "acct_a", Mode::Live), job("job_live", 1))
            .await
            .unwrap();
        db.emit(event("evt_other", "acct_b", Mode::Test), job("job_other", 1))
            .await
            .unwrap();
        let acct = domain::ids::AccountId::new("acct_a");
        let (first, total) = db
            .list_events(&acct, Mode::Test, Page { number: 1, size: 20 })
            .await
            .unwrap();
        assert_eq!((first.len(), total), (20, 25), "{}", t.backend());
        assert_eq!(first[0].id.as_str(), "evt_24");
        let (second, _) = db
            .list_events(&acct, Mode::Test, Page { number: 2, size: 20 })
            .await
            .unwrap();
        assert_eq!(second.last().unwrap().id.as_str(), "evt_00");
        assert!(
            db.get_event(&acct, Mode::Test, &EventId::new("evt_other"))
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            db.get_event(&acct, Mode::Test, &EventId::new("evt_live"))
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            db.get_event(&acct, Mode::Live, &EventId::new("evt_live"))
                .await
                .unwrap()
                .is_some()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attempts_are_numbered_and_a_delivered_event_stays_delivered() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        db.emit(event("evt_1", "acct_a", Mode::Test), job("job_1", 1))
            .await
            .unwrap();
        let id = EventId::new("evt_1");
        db.record_attempt(&id, outcome(Some(500)), DeliveryState::Pending)
            .await
            .unwrap();
        db.record_attempt(&id, outcome(Some(200)), DeliveryState::Delivered)
            .await
            .unwrap();
        db.record_attempt(&id, outcome(None), DeliveryState::Failed)
            .await
            .unwrap();
        let acct = domain::ids::AccountId::new("acct_a");
        let (record, attempts) = db.get_event(&acct, Mode::Test, &id).await.unwrap().unwrap();
        assert_eq!(record.delivery_state, DeliveryState::Delivered, "{}", t.backend());
        assert_eq!(
            (record.attempts, record.delivered_at),
            (3, Some(Timestamp::from_unix(200)))
        );
        let numbers: Vec<u32> = attempts.iter().map(|a| a.attempt).collect();
        assert_eq!(numbers, vec![1, 2, 3]);
        assert_eq!(attempts[0].outcome.status_code, Some(500));

        assert!(db.redeliver(&acct, Mode::Test, &id, job("job_again", 1)).await.unwrap());
        assert!(!db.redeliver(&acct, Mode::Live, &id, job("job_wrong", 1)).await.unwrap());
        let (record, _) = db.get_event(&acct, Mode::Test, &id).await.unwrap().unwrap();
        assert_eq!(record.delivery_state, DeliveryState::Pending);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_target_carries_the_url_and_sealed_secrets_of_the_events_mode() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        db.create_account(new_account("acct_a", false)).await.unwrap();
        let acct = domain::ids::AccountId::new("acct_a");
        db.set_webhook_url(&acct, Mode::Live, "https://live.test/h")
            .await
            .unwrap();
        db.emit(event("evt_t", "acct_a", Mode::Test), job("job_t", 1))
            .await
            .unwrap();
        db.emit(event("evt_l", "acct_a", Mode::Live), job("job_l", 1))
            .await
            .unwrap();
        let test = db.delivery_target(&EventId::new("evt_t")).await.unwrap().unwrap();
        assert_eq!(test.url.as_deref(), Some("https://hooks.test/x"), "{}", t.backend());
        assert_eq!(test.sealed_secret_key, b"sealed-acct_a-test");
        assert_eq!(test.sealed_webhook_secret.as_deref(), Some(&b"sealed-whsec-test"[..]));
        let live = db.delivery_target(&EventId::new("evt_l")).await.unwrap().unwrap();
        assert_eq!(live.url.as_deref(), Some("https://live.test/h"));
        assert_eq!(live.sealed_secret_key, b"sealed-acct_a-live");
        assert_eq!(live.sealed_webhook_secret.as_deref(), Some(&b"sealed-whsec-live"[..]));
        assert!(db.delivery_target(&EventId::new("evt_none")).await.unwrap().is_none());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_from_before_per_mode_secrets_is_given_a_sandbox_secret_once() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        db.create_account(new_account("acct_a", false)).await.unwrap();
        db.create_account(new_account("acct_b", false)).await.unwrap();
        let acct = domain::ids::AccountId::new("acct_a");
        // As migration 000009 leaves an account made before it.
        crate::db::fixtures::exec(
            &db,
            "UPDATE accounts SET test_webhook_secret_sealed = NULL WHERE id = 'acct_a'",
        )
        .await;
        db.emit(event("evt_t", "acct_a", Mode::Test), job("job_t", 1))
            .await
            .unwrap();
        let before = db.delivery_target(&EventId::new("evt_t")).await.unwrap().unwrap();
        assert_eq!(before.sealed_webhook_secret, None, "{}", t.backend());
        assert_eq!(db.without_test_webhook_secret().await.unwrap(), vec![acct.clone()]);
        db.set_test_webhook_secret(&acct, b"new".to_vec()).await.unwrap();
        db.set_test_webhook_secret(&acct, b"newer".to_vec()).await.unwrap();
        let after = db.delivery_target(&EventId::new("evt_t")).await.unwrap().unwrap();
        assert_eq!(after.sealed_webhook_secret.as_deref(), Some(&b"new"[..]), "given once");
        assert!(db.without_test_webhook_secret().await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advancing_a_test_clock_brings_only_that_sandboxs_pending_jobs_forward() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        with_account(&db, "acct_b").await;
        db.emit(event("evt_a", "acct_a", Mode::Test), job("job_a", 1_000))
            .await
            .unwrap();
        db.emit(event("evt_live", "acct_a", Mode::Live), job("job_live", 1_000))
            .await
            .unwrap();
        db.emit(event("evt_b", "acct_b", Mode::Test), job("job_b", 1_000))
            .await
            .unwrap();
        let acct = domain::ids::AccountId::new("acct_a");
        assert_eq!(db.offset(&acct).await.unwrap(), 0);
        assert_eq!(
            db.advance(&acct, 600, 1_000).await.unwrap(),
            Some(600),
            "{}",
            t.backend()
        );
        assert_eq!(db.advance(&acct, 1, 1_000).await.unwrap(), Some(601));
        // Past the limit: nothing moves, the jobs included.
        assert_eq!(db.advance(&acct, 400, 1_000).await.unwrap(), None);
        assert_eq!(db.offset(&acct).await.unwrap(), 601);
        assert_eq!(db.offset(&domain::ids::AccountId::new("acct_b")).await.unwrap(), 0);
        let due: Vec<String> = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(500), 10, &[])
            .await
            .unwrap()
            .into_iter()
            .map(|j| j.id.to_string())
            .collect();
        assert_eq!(due, vec!["job_a".to_string()]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advances_raced_together_never_pass_the_clocks_limit() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        let acct = domain::ids::AccountId::new("acct_a");
        let advances = (0..150).map(|_| {
            let (db, acct) = (db.clone(), acct.clone());
            tokio::spawn(async move { db.advance(&acct, 10, 1_000).await.unwrap() })
        });
        let accepted = futures::future::join_all(advances)
            .await
            .into_iter()
            .filter(|a| a.as_ref().unwrap().is_some())
            .count();
        assert_eq!(accepted, 100, "{}", t.backend());
        assert_eq!(db.offset(&acct).await.unwrap(), 1_000, "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ledger_check_reports_a_parked_job_that_moves_money_and_not_a_parked_delivery() {
    use domain::ledger::{Breach, DEFAULT_MAX_WALLET};
    use ports::ledger::LedgerAudit;
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        let settle = NewJob {
            kind: JobKind::SettleCardTransfer,
            subject: "tr_1".into(),
            ..job("job_s", 10)
        };
        db.emit(event("evt_1", "acct_a", Mode::Test), settle).await.unwrap();
        db.emit(event("evt_2", "acct_a", Mode::Test), job("job_d", 10))
            .await
            .unwrap();
        // Each queue leases its own kinds only.
        for (queue, id) in [(Queue::Work, "job_s"), (Queue::Webhooks, "job_d")] {
            let claimed = db
                .claim(queue, &lease(), Timestamp::from_unix(10), 10, &[])
                .await
                .unwrap();
            let ids: Vec<&str> = claimed.iter().map(|j| j.id.as_str()).collect();
            assert_eq!(ids, [id], "{queue:?}");
            db.park(&claimed[0], "network refused", Timestamp::from_unix(11))
                .await
                .unwrap();
        }
        let breaches = db.breaches(DEFAULT_MAX_WALLET).await.unwrap();
        assert_eq!(
            breaches,
            vec![Breach::ParkedMoneyJob {
                job_id: "job_s".into(),
                kind: "settle_card_transfer".into(),
                subject: "tr_1".into(),
                error: "network refused".into(),
            }],
            "{}",
            t.backend()
        );
        assert!(breaches[0].to_string().contains("issuing jobs retry job_s"));
    }
}

/// A busy account's backlog is read past: the claim takes the jobs of the
/// accounts that may start a delivery, however old the others' are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_skips_the_accounts_it_is_told_to() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        with_account(&db, "acct_b").await;
        for n in 0..20 {
            let id = format!("job_a{n}");
            db.emit(event(&format!("evt_a{n}"), "acct_a", Mode::Test), job(&id, 1))
                .await
                .unwrap();
        }
        db.emit(event("evt_b", "acct_b", Mode::Test), job("job_b", 9))
            .await
            .unwrap();
        let busy = [domain::ids::AccountId::new("acct_a")];
        let claimed = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(10), 5, &busy)
            .await
            .unwrap();
        let ids: Vec<&str> = claimed.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["job_b"], "{}", t.backend());
        let rest = db
            .claim(Queue::Webhooks, &lease(), Timestamp::from_unix(10), 50, &[])
            .await
            .unwrap();
        assert_eq!(rest.len(), 20, "{}", t.backend());
    }
}

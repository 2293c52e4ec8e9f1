//! The cardholder store, on SQLite and (with `TEST_DATABASE_URL`)
//! PostgreSQL.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::Mode;
use domain::Timestamp;
use domain::cardholders::CardholderStatus;
use domain::ids::{AccountId, CardholderId, EventId, JobId};
use domain::paging::Page;
use ports::cardholders::{CardholderRecord, CardholderStore, Decision, SaveCardholderError};
use ports::events::{EventStore, NewEvent};
use ports::jobs::{JobKind, JobStore, NewJob, Queue};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bvn_and_phone_are_unique_per_account_and_mode_until_deletion() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        with_account(&db, "acct_b").await;
        db.insert(
            record("ch_1", "acct_a", Mode::Test, "22212345678", "+2348031234567"),
            None,
        )
        .await
        .unwrap();
        let again = db
            .insert(
                record("ch_2", "acct_a", Mode::Test, "22212345678", "+2348031234568"),
                None,
            )
            .await;
        assert!(matches!(again, Err(SaveCardholderError::BvnUsed)), "{}", t.backend());
        let again = db
            .insert(
                record("ch_3", "acct_a", Mode::Test, "22212345679", "+2348031234567"),
                None,
            )
            .await;
        assert!(matches!(again, Err(SaveCardholderError::PhoneUsed)));
        // Another mode, another account: free.
        db.insert(
            record("ch_4", "acct_a", Mode::Live, "22212345678", "+2348031234567"),
            None,
        )
        .await
        .unwrap();
        db.insert(
            record("ch_5", "acct_b", Mode::Test, "22212345678", "+2348031234567"),
            None,
        )
        .await
        .unwrap();
        let acct = AccountId::new("acct_a");
        let ch_1 = CardholderId::new("ch_1");
        assert!(
            db.delete(&acct, Mode::Test, &ch_1, Timestamp::from_unix(9), finish("ch_1", "a"))
                .await
                .unwrap()
        );
        // Deleted once: the second stores no second job.
        assert!(
            !db.delete(&acct, Mode::Test, &ch_1, Timestamp::from_unix(9), finish("ch_1", "b"))
                .await
                .unwrap()
        );
        let jobs: Vec<String> = db
            .claim(Queue::Work, &lease(), Timestamp::from_unix(10), 10, &[])
            .await
            .unwrap()
            .into_iter()
            .filter(|j| j.kind == JobKind::DeleteCardholderCards)
            .map(|j| format!("{} {}", j.id, j.subject))
            .collect();
        assert_eq!(jobs, ["job_finish_a ch_1"], "{}", t.backend());
        assert!(
            db.get(&acct, Mode::Test, &CardholderId::new("ch_1"))
                .await
                .unwrap()
                .is_none()
        );
        db.insert(
            record("ch_6", "acct_a", Mode::Test, "22212345678", "+2348031234567"),
            None,
        )
        .await
        .unwrap();
        let (page, total) = CardholderStore::list(&db, &acct, Mode::Test, Page { number: 1, size: 20 })
            .await
            .unwrap();
        assert_eq!((page.len(), total), (1, 1));
        let back = db
            .get(&acct, Mode::Test, &CardholderId::new("ch_6"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            back,
            record("ch_6", "acct_a", Mode::Test, "22212345678", "+2348031234567")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decision_is_stored_with_its_event_and_delivery_job() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        let mut pending = record("ch_1", "acct_a", Mode::Test, "22212341111", "+2348031234567");
        pending.status = CardholderStatus::Pending;
        let verify = NewJob {
            id: JobId::new("job_v"),
            kind: JobKind::VerifyCardholder,
            subject: "ch_1".into(),
            max_attempts: 3,
            run_at: Timestamp::from_unix(1),
        };
        db.insert(pending, Some(verify)).await.unwrap();
        let claimed = db
            .claim(Queue::Work, &lease(), Timestamp::from_unix(1), 5, &[])
            .await
            .unwrap();
        assert_eq!(claimed[0].kind, JobKind::VerifyCardholder, "{}", t.backend());
        let decision = Decision {
            status: CardholderStatus::ManualReview,
            blacklisted: false,
            error_description: None,
        };
        let event = NewEvent {
            id: EventId::new("evt_1"),
            account_id: AccountId::new("acct_a"),
            mode: Mode::Test,
            event: "cardholder_verification.manual_review",
            data: "{}".into(),
            created_at: Timestamp::from_unix(2),
        };
        let delivery = NewJob {
            id: JobId::new("job_d"),
            kind: JobKind::DeliverWebhook,
            subject: "evt_1".into(),
            max_attempts: 10,
            run_at: Timestamp::from_unix(2),
        };
        let ch_1 = CardholderId::new("ch_1");
        let decided = db.decide(&ch_1, CardholderStatus::Pending, decision, event, delivery);
        assert!(decided.await.unwrap());
        assert_eq!(db.in_review().await.unwrap().len(), 1);
        assert!(db.delivery_target(&EventId::new("evt_1")).await.unwrap().is_some());
        assert_eq!(
            db.claim(Queue::Webhooks, &lease(), Timestamp::from_unix(2), 5, &[])
                .await
                .unwrap()[0]
                .subject,
            "evt_1"
        );
    }
}

/// The job that finishes the deletion of cardholder `id`.
fn finish(id: &str, n: &str) -> NewJob {
    NewJob {
        id: JobId::new(format!("job_finish_{n}")),
        kind: JobKind::DeleteCardholderCards,
        subject: id.into(),
        max_attempts: 3,
        run_at: Timestamp::from_unix(1),
    }
}

fn verdict(id: &str, status: CardholderStatus) -> (Decision, NewEvent, NewJob) {
    let event = NewEvent {
        id: EventId::new(format!("evt_{id}_{}", status.as_str())),
        account_id: AccountId::new("acct_a"),
        mode: Mode::Test,
        event: "cardholder_verification.successful",
        data: "{}".into(),
        created_at: Timestamp::from_unix(2),
    };
    let delivery = NewJob {
        id: JobId::new(format!("job_{id}_{}", status.as_str())),
        kind: JobKind::DeliverWebhook,
        subject: event.id.to_string(),
        max_attempts: 10,
        run_at: Timestamp::from_unix(2),
    };
    let decision = Decision {
        status,
        blacklisted: false,
        error_description: None,
    };
    (decision, event, delivery)
}

async fn pending(db: &crate::db::Db, id: &str, n: u32) -> CardholderRecord {
    let mut record = record(
        id,
        "acct_a",
        Mode::Test,
        &format!("222{n:08}"),
        &format!("+23480{n:08}"),
    );
    record.status = CardholderStatus::Pending;
    db.insert(record.clone(), None).await.unwrap();
    record
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_edit_racing_a_decision_keeps_both_the_decision_and_the_edit() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        for n in 0..20u32 {
            let id = format!("ch_{n}");
            // The edit was read while pending; the decision lands before
            // or while it is written.
            let mut edited = pending(&db, &id, n).await;
            edited.registration.last_name = format!("Edited{n}");
            let (decision, event, delivery) = verdict(&id, CardholderStatus::Verified);
            let cardholder = CardholderId::new(&id);
            let (decided, updated) = tokio::join!(
                db.decide(&cardholder, CardholderStatus::Pending, decision, event, delivery),
                db.update_profile(edited),
            );
            assert!(decided.unwrap() && updated.unwrap(), "{}", t.backend());
            let now = db
                .get(&AccountId::new("acct_a"), Mode::Test, &cardholder)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (now.status, now.registration.last_name.as_str()),
                (CardholderStatus::Verified, format!("Edited{n}").as_str()),
                "{}",
                t.backend()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decision_on_a_decided_or_deleted_cardholder_changes_nothing_and_stores_no_event() {
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        let acct = AccountId::new("acct_a");
        let decided = CardholderId::new("ch_d");
        pending(&db, "ch_d", 1).await;
        let (d, e, j) = verdict("ch_d", CardholderStatus::ManualReview);
        assert!(db.decide(&decided, CardholderStatus::Pending, d, e, j).await.unwrap());
        // A second decision read as pending: refused, and its event is not stored.
        let (d, e, j) = verdict("ch_d", CardholderStatus::Verified);
        let late = e.id.clone();
        assert!(!db.decide(&decided, CardholderStatus::Pending, d, e, j).await.unwrap());
        let now = db.get(&acct, Mode::Test, &decided).await.unwrap().unwrap();
        assert_eq!(now.status, CardholderStatus::ManualReview, "{}", t.backend());
        assert!(db.delivery_target(&late).await.unwrap().is_none());

        let deleted = CardholderId::new("ch_x");
        pending(&db, "ch_x", 2).await;
        assert!(
            db.delete(
                &acct,
                Mode::Test,
                &deleted,
                Timestamp::from_unix(3),
                finish("ch_x", "x")
            )
            .await
            .unwrap()
        );
        let (d, e, j) = verdict("ch_x", CardholderStatus::Verified);
        let late = e.id.clone();
        assert!(!db.decide(&deleted, CardholderStatus::Pending, d, e, j).await.unwrap());
        assert!(db.delivery_target(&late).await.unwrap().is_none(), "{}", t.backend());
        assert!(db.in_review().await.unwrap().iter().all(|r| r.id != deleted));
        // Nor can a deleted cardholder's profile be edited.
        let mut edited = record("ch_x", "acct_a", Mode::Test, "22200000002", "+2348000000002");
        edited.registration.last_name = "Ghost".into();
        assert!(!db.update_profile(edited).await.unwrap(), "{}", t.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_request_at_a_time_makes_a_cardholders_processor_customer() {
    use ports::cardholders::CustomerClaim;
    for t in TestDb::all().await {
        let db = t.migrated().await;
        with_account(&db, "acct_a").await;
        db.insert(
            record("ch_1", "acct_a", Mode::Live, "22212345678", "+2348031234567"),
            None,
        )
        .await
        .unwrap();
        let id = CardholderId::new("ch_1");
        let at = |secs| Timestamp::from_unix(secs);
        // Twenty requests at once: one claim, the others told to wait.
        let claims = futures::future::join_all((0..20).map(|_| db.claim_processor_customer(&id, at(100), 60))).await;
        let claims: Vec<CustomerClaim> = claims.into_iter().map(Result::unwrap).collect();
        let claimed = claims.iter().filter(|c| **c == CustomerClaim::Claimed).count();
        assert_eq!(claimed, 1, "{}: {claims:?}", t.backend());
        assert!(
            claims
                .iter()
                .all(|c| matches!(c, CustomerClaim::Claimed | CustomerClaim::Busy))
        );
        // A failed creation gives the claim up; the next request claims.
        db.release_processor_customer(&id).await.unwrap();
        assert_eq!(
            db.claim_processor_customer(&id, at(101), 60).await.unwrap(),
            CustomerClaim::Claimed
        );
        // A claim whose request died is taken over after the minute, once.
        assert_eq!(
            db.claim_processor_customer(&id, at(160), 60).await.unwrap(),
            CustomerClaim::Busy
        );
        assert_eq!(
            db.claim_processor_customer(&id, at(162), 60).await.unwrap(),
            CustomerClaim::Claimed
        );
        assert_eq!(
            db.claim_processor_customer(&id, at(162), 60).await.unwrap(),
            CustomerClaim::Busy
        );
        db.set_processor_customer(&id, "61e5cafe").await.unwrap();
        let known = CustomerClaim::Known("61e5cafe".into());
        assert_eq!(db.claim_processor_customer(&id, at(999), 60).await.unwrap(), known);
        // A made customer is never released nor taken over.
        db.release_processor_customer(&id).await.unwrap();
        assert_eq!(db.claim_processor_customer(&id, at(9_999), 60).await.unwrap(), known);
    }
}

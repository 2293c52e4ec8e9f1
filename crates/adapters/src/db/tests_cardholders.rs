//! The cardholder store, on SQLite and (with `TEST_DATABASE_URL`)
//! PostgreSQL.

use super::tests::with_account;
use crate::reference::regions;
use crate::test_db::TestDb;
use domain::Mode;
use domain::cardholders::CardholderStatus;
use domain::cardholders::fixtures::nigerian;
use domain::ids::{AccountId, CardholderId, EventId, JobId};
use domain::paging::Page;
use ports::cardholders::{CardholderRecord, CardholderStore, Decision, SaveCardholderError};
use ports::events::{EventStore, NewEvent};
use ports::jobs::{JobKind, JobStore, NewJob};

pub(super) fn record(id: &str, account: &str, mode: Mode, bvn: &str, phone: &str) -> CardholderRecord {
    let mut input = nigerian();
    input.phone = Some(phone.into());
    input.identity.as_mut().unwrap().bvn = Some(bvn.into());
    CardholderRecord {
        id: CardholderId::new(id),
        account_id: AccountId::new(account),
        mode,
        registration: input.check(&regions()).unwrap(),
        status: CardholderStatus::Verified,
        blacklisted: false,
        error_description: None,
        meta_data: Some(r#"{"k":1}"#.into()),
        created_at: 5,
    }
}

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
        assert!(
            db.delete(&acct, Mode::Test, &CardholderId::new("ch_1"), 9)
                .await
                .unwrap()
        );
        assert!(
            !db.delete(&acct, Mode::Test, &CardholderId::new("ch_1"), 9)
                .await
                .unwrap()
        );
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
            run_at: 1,
        };
        db.insert(pending, Some(verify)).await.unwrap();
        let claimed = db.claim(1, 300, 5).await.unwrap();
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
            created_at: 2,
        };
        let delivery = NewJob {
            id: JobId::new("job_d"),
            kind: JobKind::DeliverWebhook,
            subject: "evt_1".into(),
            max_attempts: 10,
            run_at: 2,
        };
        db.decide(&CardholderId::new("ch_1"), decision, event, delivery)
            .await
            .unwrap();
        assert_eq!(db.in_review().await.unwrap().len(), 1);
        assert!(db.delivery_target(&EventId::new("evt_1")).await.unwrap().is_some());
        assert_eq!(db.claim(2, 300, 5).await.unwrap()[0].subject, "evt_1");
    }
}

//! Debits recorded by group commit, on SQLite and (with
//! `TEST_DATABASE_URL`) PostgreSQL: many at once on one card decide as if
//! one after another, refusals inside a batch leave no trace, and a batch
//! the database fails is recorded again debit by debit.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::cards::authorization::{Decision, DeclineReason};
use domain::cards::hold::TransactionKind;
use domain::cards::transfer::TransferKind;
use domain::fx::FxRates;
use domain::ids::{AccountId, CardId, EventId, JobId, TransferId};
use domain::ledger::DEFAULT_MAX_WALLET;
use domain::{Mode, Timestamp};
use ports::card_transactions::{CardTransactionStore, DebitAttempt, DebitError, DebitOutcome, Notices};
use ports::cards::{CardStore, ReserveError};
use ports::events::{EventStore, NewEvent};
use ports::jobs::{JobKind, NewJob};
use ports::ledger::LedgerAudit;
use ports::test_clocks::TestClocks;
use ports::wallets::WalletStore;

pub(in crate::db) fn attempt(card: &CardId, id: &str, reference: &str, cents: i64) -> DebitAttempt {
    DebitAttempt {
        id: id.to_string(),
        account_id: AccountId::new(ACCOUNT),
        mode: Mode::Test,
        card_id: card.clone(),
        client_reference: reference.to_string(),
        currency: None,
        amount: amount(cents),
        rates: FxRates {
            ngn_usd: amount(1),
            usd_ngn: amount(1_500),
        },
        description: "UBER *TRIP".into(),
        merchant_category_code: None,
        merchant_name: "Uber".into(),
        merchant_group: Some("Transportation".into()),
        channel: None,
        merchant_country: None,
        enriched_data: "{}".into(),
        forced: false,
        reference_held: false,
        kind: TransactionKind::Debit,
        authorization_id: None,
        expiry: None,
        now: Timestamp::from_unix(100),
        clock_ahead_secs: Some(0),
        deadline: None,
    }
}

/// An event for each decline, as the use case tells them.
pub(in crate::db) fn notices(n: usize) -> Notices {
    Box::new(move |outcome: &DebitOutcome| match outcome.decision {
        Decision::Approve => vec![],
        Decision::Decline(_) => {
            let event = NewEvent {
                id: EventId::new(format!("evt_decline_{n}")),
                account_id: AccountId::new(ACCOUNT),
                mode: Mode::Test,
                event: "card_debit_event.declined",
                data: "{}".into(),
                created_at: Timestamp::from_unix(100),
            };
            let job = NewJob {
                id: JobId::new(format!("job_decline_{n}")),
                kind: JobKind::DeliverWebhook,
                subject: format!("evt_decline_{n}"),
                max_attempts: 3,
                run_at: Timestamp::from_unix(100),
            };
            vec![(event, job)]
        }
    })
}

/// Sixty-four debits of 500 on `card` at once, `ctx_<n>` with reference
/// `r<n>`.
pub(in crate::db) async fn sixty_four_debits(
    db: &crate::db::Db,
    card: &CardId,
) -> Vec<Result<DebitOutcome, DebitError>> {
    let debits = (0..64).map(|n| {
        let db = db.clone();
        let card = card.clone();
        async move {
            db.debit(attempt(&card, &format!("ctx_{n}"), &format!("r{n}"), 500), notices(n))
                .await
        }
    });
    futures::future::join_all(debits).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_debits_at_once_on_one_card_decide_as_one_after_another() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 100_000).await;
        fund(&db, &card, 10_000).await;
        // 10,300 on the card, 300 of it held for the fee: room for twenty
        // debits of 500. Then fifteen insufficient-balance declines in a
        // row delete the card, and for the rest there is no card.
        let answers = sixty_four_debits(&db, &card).await;
        let count = |f: &dyn Fn(&Result<DebitOutcome, DebitError>) -> bool| answers.iter().filter(|a| f(a)).count();
        let approved = count(&|a| matches!(a, Ok(o) if o.decision == Decision::Approve));
        let declined =
            count(&|a| matches!(a, Ok(o) if o.decision == Decision::Decline(DeclineReason::InsufficientBalance)));
        let deleting = count(&|a| matches!(a, Ok(o) if o.card_deleted));
        let no_card = count(&|a| matches!(a, Err(DebitError::CardNotFound)));
        assert_eq!(
            (approved, declined, deleting, no_card),
            (20, 15, 1, 29),
            "{}: {answers:?}",
            t.backend()
        );
        assert!(!card_exists(&db, &card).await);
        let account = AccountId::new(ACCOUNT);
        // Twenty approvals numbered 1 to 20; the card's 300 back in the wallet.
        let page = domain::paging::Page { number: 1, size: 100 };
        let (history, total) = db.history(&account, Mode::Test, &card, page, None).await.unwrap();
        assert_eq!((history.len(), total), (20, 20), "{}", t.backend());
        let wallet = db.balances(&account, Mode::Test).await.unwrap().usd.minor();
        assert_eq!(wallet, 100_000 - 300 - 10_000 + 300, "{}", t.backend());
        let (_, events) = db.list_events(&account, Mode::Test, page).await.unwrap();
        assert_eq!(
            events,
            2 + 15,
            "the card's creation, its funding and each decline: {}",
            t.backend()
        );
        assert!(
            db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty(),
            "{}",
            t.backend()
        );
        // A reference refused for want of a card was never taken.
        let no_card_reference = answers
            .iter()
            .position(|a| matches!(a, Err(DebitError::CardNotFound)))
            .map(|n| format!("r{n}"))
            .unwrap();
        let other = card_of(&db, "card_d").await;
        let again = db
            .debit(attempt(&other, "ctx_again", &no_card_reference, 1), notices(99))
            .await;
        assert!(again.is_ok(), "{}: {again:?}", t.backend());
        let used = db.debit(attempt(&other, "ctx_used", "r0", 1), notices(98)).await;
        assert!(
            matches!(used, Err(DebitError::ReferenceUsed)),
            "{}: {used:?}",
            t.backend()
        );
        if let Some(transactions) = transactions_of(&db, "card_transactions").await {
            assert!(
                transactions < 35,
                "35 debits recorded in {transactions} transactions: batches formed"
            );
            eprintln!("postgres: 35 recorded debits in {transactions} transactions");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_the_database_fails_is_recorded_again_debit_by_debit() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 100_000).await;
        fund(&db, &card, 10_000).await;
        db.debit(attempt(&card, "ctx_taken", "first", 100), notices(0))
            .await
            .unwrap();
        // The seventh reuses a transaction id: the database refuses its row,
        // and with it the batch it is in.
        let debits = (1..=12).map(|n| {
            let (db, card) = (db.clone(), card.clone());
            let id = if n == 7 {
                "ctx_taken".to_string()
            } else {
                format!("ctx_{n}")
            };
            async move { db.debit(attempt(&card, &id, &format!("r{n}"), 100), notices(n)).await }
        });
        let answers = futures::future::join_all(debits).await;
        for (n, answer) in (1..=12).zip(&answers) {
            match n {
                7 => assert!(matches!(answer, Err(DebitError::Store(_))), "{answer:?}"),
                _ => assert!(
                    matches!(answer, Ok(o) if o.decision == Decision::Approve),
                    "{}: debit {n}: {answer:?}",
                    t.backend()
                ),
            }
        }
        let on_card = CardStore::get(&db, &AccountId::new(ACCOUNT), Mode::Test, &card)
            .await
            .unwrap()
            .unwrap()
            .balance;
        assert_eq!(on_card, 10_300 - 100 - 11 * 100, "{}", t.backend());
        // Its reference was not kept either.
        let again = db.debit(attempt(&card, "ctx_7", "r7", 100), notices(7)).await;
        assert!(again.is_ok(), "{}: {again:?}", t.backend());
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

/// A debit or funding stamped with the sandbox clock as it was before an
/// advance (made through another process) is sent back with nothing
/// recorded, its reference free; one stamped with the clock as it is, or
/// not to be checked, goes through, in the same batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_stamped_before_the_clock_moved_is_sent_back_untouched() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 100_000).await;
        fund(&db, &card, 10_000).await;
        db.advance(&AccountId::new(ACCOUNT), 600, i64::MAX).await.unwrap();
        let stamped = |id: &str, reference: &str, ahead: Option<i64>| {
            let mut a = attempt(&card, id, reference, 100);
            a.clock_ahead_secs = ahead;
            db.debit(a, notices(0))
        };
        let (before, now, unchecked) = tokio::join!(
            stamped("ctx_old", "r_old", Some(0)),
            stamped("ctx_now", "r_now", Some(600)),
            stamped("ctx_unchecked", "r_unchecked", None)
        );
        assert!(
            matches!(before, Err(DebitError::ClockMoved)),
            "{}: {before:?}",
            t.backend()
        );
        assert!(matches!(&now, Ok(o) if o.decision == Decision::Approve), "{now:?}");
        assert!(
            matches!(&unchecked, Ok(o) if o.decision == Decision::Approve),
            "{unchecked:?}"
        );
        let funding = |id: &str, ahead: Option<i64>| {
            let mut f = transfer(id, &card, TransferKind::Fund, 500, 700);
            f.clock_ahead_secs = ahead;
            db.reserve(f, job(&format!("s_{id}"), JobKind::SettleCardTransfer))
        };
        let (before, now) = tokio::join!(funding("ctr_old", Some(60)), funding("ctr_now", Some(600)));
        assert!(
            matches!(before, Err(ReserveError::ClockMoved)),
            "{}: {before:?}",
            t.backend()
        );
        assert!(now.is_ok(), "{now:?}");
        let account = AccountId::new(ACCOUNT);
        let on_card = CardStore::get(&db, &account, Mode::Test, &card).await.unwrap().unwrap();
        let wallet = db.balances(&account, Mode::Test).await.unwrap().usd.minor();
        assert_eq!(
            (on_card.balance, wallet),
            (10_300 - 200, 100_000 - 300 - 10_000 - 500),
            "{}",
            t.backend()
        );
        let ids = [TransferId::new("ctr_old"), TransferId::new("ctr_now")];
        let found: Vec<_> = db.transfers(&ids).await.unwrap().into_iter().map(|t| t.id).collect();
        assert_eq!(found, vec![ids[1].clone()], "{}", t.backend());
        // Stamped again, each takes the reference it was sent back with.
        let mut again = attempt(&card, "ctx_old", "r_old", 100);
        again.clock_ahead_secs = Some(600);
        let again = db.debit(again, notices(0)).await;
        assert!(matches!(&again, Ok(o) if o.decision == Decision::Approve), "{again:?}");
        assert!(
            funding("ctr_old", Some(600)).await.is_err(),
            "one funding in five minutes"
        );
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

/// PostgreSQL: a funding, its settlement and a debit never wait on the
/// account's row (its foreign keys from the tables money writes are gone:
/// each check locked that one row).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn money_writes_take_no_lock_on_the_accounts_row() {
    use diesel_async::SimpleAsyncConnection;
    let Some(t) = TestDb::postgres_from_env().await else {
        return;
    };
    let (db, card) = setup(&t, 100_000).await;
    let crate::db::DbPool::Pg(pool) = db.pool() else {
        unreachable!("a PostgreSQL test database");
    };
    let mut holder = pool.get().await.unwrap();
    holder
        .batch_execute(&format!(
            "BEGIN; SELECT 1 FROM accounts WHERE id = '{ACCOUNT}' FOR UPDATE"
        ))
        .await
        .unwrap();
    let money = async {
        fund(&db, &card, 1_000).await;
        db.debit(attempt(&card, "ctx_locked", "r_locked", 100), notices(0))
            .await
            .unwrap()
    };
    let debited = tokio::time::timeout(std::time::Duration::from_secs(5), money)
        .await
        .expect("the money moved while the account's row was locked");
    assert_eq!(debited.decision, Decision::Approve);
    holder.batch_execute("ROLLBACK").await.unwrap();
}

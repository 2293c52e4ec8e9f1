//! The card store's money paths, on SQLite and (with `TEST_DATABASE_URL`)
//! PostgreSQL: what the HTTP tests cannot reach, such as a settlement
//! retried, or money landing on a card deleted meanwhile.

use crate::db::fixtures::*;
use crate::test_db::TestDb;
use domain::Timestamp;
use domain::cards::state::DeletionReason;
use domain::cards::transfer::{Settlement, TransferKind, TransferState};
use domain::events::DeliveryState;
use domain::ids::{AccountId, CardId};
use domain::ledger::DEFAULT_MAX_WALLET;
use domain::{Currency, Mode};
use ports::cards::{
    CardStore, CreateCardError, DetailsToken, FeeCharge, FeeOutcome, NewCard, NewTransfer, ReserveError, Settled,
    SettlementItem,
};
use ports::events::EventStore;
use ports::jobs::JobKind;
use ports::jobs::JobStore;
use ports::ledger::LedgerAudit;
use ports::wallets::WalletStore;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_created_again_under_its_reference_is_refused_and_takes_nothing() {
    for t in TestDb::all().await {
        let (db, _) = setup(&t, 10_000).await;
        let wallet = async || {
            db.balances(&AccountId::new(ACCOUNT), Mode::Test)
                .await
                .unwrap()
                .usd
                .minor()
        };
        let (e, d) = event("first");
        db.create(
            new_card("card_r1", Some("create-1")),
            e,
            vec![d],
            Timestamp::from_unix(1),
        )
        .await
        .unwrap();
        assert_eq!(wallet().await, 9_400, "{}", t.backend());
        // The integration's retry after a timeout.
        let (e, d) = event("again");
        let again = db
            .create(
                new_card("card_r2", Some("create-1")),
                e,
                vec![d],
                Timestamp::from_unix(1),
            )
            .await;
        assert!(matches!(again, Err(CreateCardError::ReferenceUsed)), "{}", t.backend());
        assert_eq!(wallet().await, 9_400, "{}: funded twice", t.backend());
        let second = CardStore::get(&db, &AccountId::new(ACCOUNT), Mode::Test, &CardId::new("card_r2")).await;
        assert!(second.unwrap().is_none());
        // A funding may not reuse it either.
        let reused = db
            .reserve(
                NewTransfer {
                    transaction_reference: "create-1".into(),
                    ..transfer("ctr_r", &CardId::new("card_r1"), TransferKind::Fund, 100, 5)
                },
                job("ctr_r", JobKind::SettleCardTransfer),
            )
            .await;
        assert!(matches!(reused, Err(ReserveError::ReferenceUsed)), "{}", t.backend());
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

async fn balances(db: &crate::db::Db, card: &CardId) -> (i64, i64) {
    let wallet = db
        .balances(&AccountId::new(ACCOUNT), Mode::Test)
        .await
        .unwrap()
        .usd
        .minor();
    let on_card = CardStore::get(db, &AccountId::new(ACCOUNT), Mode::Test, card)
        .await
        .unwrap()
        .map_or(-1, |c| c.balance);
    (wallet, on_card)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settlement_happens_once_and_reports_once() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 1_000).await;
        db.reserve(
            transfer("ctr_1", &card, TransferKind::Fund, 500, 5),
            job("s1", JobKind::SettleCardTransfer),
        )
        .await
        .unwrap();
        assert_eq!(balances(&db, &card).await, (200, 300), "reserved: in transit");
        let batch = [
            ("ctr_1", Settlement::Complete),
            ("ctr_1", Settlement::Complete),
            ("ctr_1", Settlement::Reverse),
        ];
        assert_eq!(
            settle_batch(&db, &batch).await,
            [Settled::Done, Settled::AlreadySettled, Settled::AlreadySettled],
            "one batch, one settlement"
        );
        assert_eq!(settle(&db, "ctr_1", Settlement::Reverse).await, Settled::AlreadySettled);
        assert_eq!(balances(&db, &card).await, (200, 800), "{}", t.backend());
        let state = transfer_of(&db, "ctr_1").await.state;
        assert_eq!(state, TransferState::Succeeded);
        let page = domain::paging::Page { number: 1, size: 20 };
        let (events, total) = db
            .list_events(&AccountId::new(ACCOUNT), Mode::Test, page)
            .await
            .unwrap();
        assert_eq!(total, 2, "the creation and one settlement: {events:?}");
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn money_for_a_card_deleted_meanwhile_goes_back_to_the_wallet() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 10_000).await;
        let account = AccountId::new(ACCOUNT);
        db.reserve(
            transfer("ctr_f", &card, TransferKind::Fund, 1_000, 5),
            job("s1", JobKind::SettleCardTransfer),
        )
        .await
        .unwrap();
        db.reserve(
            transfer("ctr_u", &card, TransferKind::Unload, 200, 5),
            job("s2", JobKind::SettleCardTransfer),
        )
        .await
        .unwrap_err();
        // The held 300 cannot be unloaded; nothing of the refusal remains.
        assert_eq!(balances(&db, &card).await, (8_700, 300));
        let refunded = CardStore::delete(
            &db,
            &account,
            Mode::Test,
            &card,
            DeletionReason::Requested,
            Timestamp::from_unix(6),
            None,
        )
        .await
        .unwrap();
        assert_eq!(refunded, Some(amount(300)));
        let state = db.rule_state(&card).await.unwrap().unwrap();
        assert_eq!(state.deleted, Some(DeletionReason::Requested), "{}", t.backend());
        // The refused completion rolls back alone: the reversal after it
        // in the same batch finds the transfer still pending.
        let batch = [("ctr_f", Settlement::Complete), ("ctr_f", Settlement::Reverse)];
        assert_eq!(
            settle_batch(&db, &batch).await,
            [Settled::Refused, Settled::Done],
            "{}",
            t.backend()
        );
        assert_eq!(balances(&db, &card).await, (10_000, -1));
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_settlements_over_many_cards_is_one_transaction_deciding_each_after_the_ones_before() {
    for t in TestDb::all().await {
        let (db, a) = setup(&t, 100_000).await;
        let (b, c) = (card_of(&db, "card_x").await, card_of(&db, "card_y").await);
        fund(&db, &b, 5_000).await;
        let reserve = |id: &'static str, card: &CardId, kind, cents| {
            let (db, card) = (db.clone(), card.clone());
            async move {
                db.reserve(
                    transfer(id, &card, kind, cents, 5),
                    job(id, JobKind::SettleCardTransfer),
                )
                .await
                .unwrap()
            }
        };
        reserve("ctr_a", &a, TransferKind::Fund, 1_000).await;
        reserve("ctr_b", &b, TransferKind::Unload, 2_000).await;
        reserve("ctr_c", &c, TransferKind::Fund, 700).await;
        let wallet = |db: crate::db::Db| async move {
            db.balances(&AccountId::new(ACCOUNT), Mode::Test)
                .await
                .unwrap()
                .usd
                .minor()
        };
        // 100,000 less three cards' 300, b's 5,000, a's 1,000 and c's 700.
        assert_eq!(wallet(db.clone()).await, 92_400);
        CardStore::delete(
            &db,
            &AccountId::new(ACCOUNT),
            Mode::Test,
            &a,
            DeletionReason::Requested,
            Timestamp::from_unix(6),
            None,
        )
        .await
        .unwrap();
        let batch = [
            ("ctr_c", Settlement::Complete),
            ("ctr_a", Settlement::Complete),
            ("ctr_b", Settlement::Complete),
            ("ctr_a", Settlement::Reverse),
            ("ctr_b", Settlement::Complete),
        ];
        assert_eq!(
            settle_batch(&db, &batch).await,
            [
                Settled::Done,
                Settled::Refused,
                Settled::Done,
                Settled::Done,
                Settled::AlreadySettled
            ],
            "a's completion is refused (deleted) and its reversal after it sees it pending: {}",
            t.backend()
        );
        // a's 300 refunded at deletion, its 1,000 reversed, b's 2,000 unloaded.
        assert_eq!(wallet(db.clone()).await, 95_700, "{}", t.backend());
        assert_eq!(balances(&db, &b).await.1, 3_300);
        assert_eq!(balances(&db, &c).await.1, 1_000);
        for (id, state) in [
            ("ctr_a", TransferState::Failed),
            ("ctr_b", TransferState::Succeeded),
            ("ctr_c", TransferState::Succeeded),
        ] {
            assert_eq!(transfer_of(&db, id).await.state, state, "{id}");
        }
        if let Some(n) = transactions_of(&db, "card_transfers WHERE id IN ('ctr_a', 'ctr_b', 'ctr_c')").await {
            assert_eq!(n, 1, "the batch is one transaction");
        }
        let page = domain::paging::Page { number: 1, size: 50 };
        let (events, _) = db
            .list_events(&AccountId::new(ACCOUNT), Mode::Test, page)
            .await
            .unwrap();
        let mut settled: Vec<&str> = events
            .iter()
            .map(|e| e.id.as_str())
            .filter(|id| {
                ["evt_ctr_a-", "evt_ctr_b-", "evt_ctr_c-"]
                    .iter()
                    .any(|p| id.starts_with(p))
            })
            .collect();
        settled.sort_unstable();
        assert_eq!(
            settled,
            ["evt_ctr_a-Reverse-3", "evt_ctr_b-Complete-2", "evt_ctr_c-Complete-0"],
            "one event for each settlement done"
        );
        let deliveries = |db: crate::db::Db| async move {
            let jobs = JobStore::list(&db, false, 100).await.unwrap();
            let mut subjects: Vec<String> = jobs
                .into_iter()
                .filter(|j| j.kind == JobKind::DeliverWebhook.as_str() && j.subject.starts_with("dctr_"))
                .map(|j| j.subject)
                .collect();
            subjects.sort_unstable();
            subjects
        };
        assert_eq!(
            deliveries(db.clone()).await,
            [
                "dctr_a-Reverse-3",
                "dctr_b-Complete-2",
                "dctr_c-Complete-0",
                "dctr_fund_card_x_5000-Complete-0"
            ],
            "each event's delivery, as its account has a URL: {}",
            t.backend()
        );
        // Without a URL: the event is stored with nowhere to go, and no
        // delivery is queued for it.
        exec(
            &db,
            &format!("UPDATE accounts SET webhook_url_test = NULL WHERE id = '{ACCOUNT}'"),
        )
        .await;
        db.reserve(
            transfer("ctr_d", &c, TransferKind::Fund, 100, 400),
            job("ctr_d", JobKind::SettleCardTransfer),
        )
        .await
        .unwrap();
        assert_eq!(settle(&db, "ctr_d", Settlement::Complete).await, Settled::Done);
        let (events, _) = db
            .list_events(&AccountId::new(ACCOUNT), Mode::Test, page)
            .await
            .unwrap();
        let d = events.iter().find(|e| e.id.as_str().starts_with("evt_ctr_d-")).unwrap();
        assert_eq!(d.delivery_state, DeliveryState::NoEndpoint, "{}", t.backend());
        assert_eq!(deliveries(db.clone()).await.len(), 4, "{}", t.backend());
        assert!(
            db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty(),
            "{}",
            t.backend()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reversed_unload_of_a_deleted_card_lands_in_the_wallet_and_refusals_leave_no_trace() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 5_300).await;
        let account = AccountId::new(ACCOUNT);
        db.reserve(
            transfer("ctr_f", &card, TransferKind::Fund, 5_000, 5),
            job("s1", JobKind::SettleCardTransfer),
        )
        .await
        .unwrap();
        settle(&db, "ctr_f", Settlement::Complete).await;
        // Refused requests: the reference and the window stay free.
        let over = db
            .reserve(
                transfer("ctr_x", &card, TransferKind::Unload, 5_001, 400),
                job("s2", JobKind::SettleCardTransfer),
            )
            .await;
        assert!(
            matches!(over, Err(ReserveError::CardTooLow)),
            "{}: {over:?}",
            t.backend()
        );
        db.reserve(
            transfer("ctr_x", &card, TransferKind::Unload, 5_000, 400),
            job("s3", JobKind::SettleCardTransfer),
        )
        .await
        .unwrap();
        let soon = db
            .reserve(
                transfer("ctr_y", &card, TransferKind::Unload, 1, 450),
                job("s4", JobKind::SettleCardTransfer),
            )
            .await;
        assert!(
            matches!(soon, Err(ReserveError::TooSoon(TransferKind::Unload, 250))),
            "{soon:?}"
        );
        CardStore::delete(
            &db,
            &account,
            Mode::Test,
            &card,
            DeletionReason::Requested,
            Timestamp::from_unix(500),
            None,
        )
        .await
        .unwrap();
        assert_eq!(settle(&db, "ctr_x", Settlement::Reverse).await, Settled::Done);
        assert_eq!(balances(&db, &card).await, (5_300, -1), "all of it back in the wallet");
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_details_token_is_consumed_once_and_not_after_it_expires() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 300).await;
        let token = |expires_at| DetailsToken {
            account_id: AccountId::new(ACCOUNT),
            mode: Mode::Test,
            card_id: card.clone(),
            expires_at,
            used: false,
        };
        db.insert_details_token("h1".into(), token(Timestamp::from_unix(100)), Timestamp::from_unix(1))
            .await
            .unwrap();
        db.insert_details_token("h2".into(), token(Timestamp::from_unix(100)), Timestamp::from_unix(1))
            .await
            .unwrap();
        assert_eq!(
            db.find_details_token("h1").await.unwrap(),
            Some(token(Timestamp::from_unix(100)))
        );
        assert!(db.consume_details_token("h1", Timestamp::from_unix(99)).await.unwrap());
        assert!(
            !db.consume_details_token("h1", Timestamp::from_unix(99)).await.unwrap(),
            "{}",
            t.backend()
        );
        let used = db.find_details_token("h1").await.unwrap().unwrap();
        assert!(used.used);
        assert!(
            !db.consume_details_token("h2", Timestamp::from_unix(100)).await.unwrap(),
            "expired"
        );
        assert!(!db.consume_details_token("h3", Timestamp::from_unix(1)).await.unwrap());
        // The next token purges the used and the expired ones.
        db.insert_details_token("h4".into(), token(Timestamp::from_unix(500)), Timestamp::from_unix(100))
            .await
            .unwrap();
        assert_eq!(db.find_details_token("h1").await.unwrap(), None, "{}", t.backend());
        assert_eq!(db.find_details_token("h2").await.unwrap(), None);
        assert!(db.find_details_token("h4").await.unwrap().is_some());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fee_month_is_charged_once_and_its_next_charge_planned_once() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 1_000).await;
        let charge = |month: i32, n: &str| {
            let (db, card) = (db.clone(), card.clone());
            let (e, d) = event(n);
            let charge = FeeCharge {
                id: format!("ctx_{n}"),
                card_id: card,
                month,
                reference: format!("fee_{n}"),
                fee: amount(100),
                now: Timestamp::from_unix(10),
            };
            // The next charge has the same id however often it is planned.
            async move {
                db.charge_fee(charge, e, vec![d, job("fee_next", JobKind::CardMaintenanceFee)])
                    .await
            }
        };
        assert_eq!(
            charge(202_612, "a").await.unwrap(),
            FeeOutcome::Charged,
            "{}",
            t.backend()
        );
        assert_eq!(charge(202_612, "b").await.unwrap(), FeeOutcome::AlreadyCharged);
        assert_eq!(
            charge(202_611, "c").await.unwrap(),
            FeeOutcome::AlreadyCharged,
            "an earlier month"
        );
        let planned = JobStore::list(&db, false, 100).await.unwrap();
        let next = planned.iter().filter(|j| j.id == "job_fee_next").count();
        assert_eq!(next, 1, "{}: {planned:?}", t.backend());
        assert_eq!(charge(202_701, "d").await.unwrap(), FeeOutcome::Charged);
        assert_eq!(balances(&db, &card).await, (700, 100), "{}", t.backend());
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settlement_the_database_fails_fails_alone_and_the_rest_of_its_batch_stands() {
    for t in TestDb::all().await {
        let (db, card) = setup(&t, 1_000).await;
        let reserve = |id: &'static str, kind, cents, now| {
            let (db, card) = (db.clone(), card.clone());
            async move {
                db.reserve(
                    transfer(id, &card, kind, cents, now),
                    job(id, JobKind::SettleCardTransfer),
                )
                .await
                .unwrap()
            }
        };
        reserve("ctr_1", TransferKind::Fund, 500, 5).await;
        assert_eq!(settle(&db, "ctr_1", Settlement::Complete).await, Settled::Done);
        reserve("ctr_2", TransferKind::Fund, 100, 400).await;
        reserve("ctr_3", TransferKind::Unload, 200, 400).await;
        // ctr_2's event reuses an id that exists: the database refuses it.
        let item = |id: &str, event_name: &str| {
            let (db, event_name, id) = (db.clone(), event_name.to_string(), id.to_string());
            async move {
                let (event, delivery) = event(&event_name);
                SettlementItem {
                    transfer: transfer_of(&db, &id).await,
                    settlement: Settlement::Complete,
                    event,
                    delivery,
                    now: Timestamp::from_unix(500),
                }
            }
        };
        let batch = vec![item("ctr_2", "created_card_c").await, item("ctr_3", "ctr_3").await];
        let settled = db.settle(batch).await;
        assert!(matches!(settled[0], Settled::Failed(_)), "{}: {settled:?}", t.backend());
        assert_eq!(settled[1], Settled::Done, "{}", t.backend());
        let state = |id: &'static str| {
            let db = db.clone();
            async move { transfer_of(&db, id).await.state }
        };
        assert_eq!(state("ctr_2").await, TransferState::Pending, "untouched, for its retry");
        assert_eq!(state("ctr_3").await, TransferState::Succeeded);
        assert_eq!(balances(&db, &card).await, (300, 600), "{}", t.backend());
        assert_eq!(settle(&db, "ctr_2", Settlement::Complete).await, Settled::Done);
        assert_eq!(balances(&db, &card).await, (300, 700), "{}", t.backend());
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fundings_at_once_from_one_wallet_decide_as_one_after_another() {
    for t in TestDb::all().await {
        // Twelve cards, each created with 300 from the wallet: 0 left.
        let (db, first) = setup(&t, 3_600).await;
        let mut cards = vec![first];
        for n in 1..12 {
            cards.push(card_of(&db, &format!("card_{n:02}")).await);
        }
        // Then 1,000 in the wallet.
        db.fund_from_faucet(
            &AccountId::new(ACCOUNT),
            Mode::Test,
            Currency::Usd,
            amount(1_000),
            DEFAULT_MAX_WALLET,
            Timestamp::from_unix(2),
        )
        .await
        .unwrap();
        let wallet_before = db
            .balances(&AccountId::new(ACCOUNT), Mode::Test)
            .await
            .unwrap()
            .usd
            .minor();
        // Twelve fundings of 100 and the first card's second one, at once:
        // ten fit the wallet, the second of one card is too soon.
        let mut requests: Vec<(String, CardId)> = cards
            .iter()
            .enumerate()
            .map(|(n, card)| (format!("ctr_w{n}"), card.clone()))
            .collect();
        requests.push(("ctr_again".into(), cards[0].clone()));
        let reservations = requests.iter().map(|(id, card)| {
            let db = db.clone();
            let (id, card) = (id.clone(), card.clone());
            async move {
                db.reserve(
                    transfer(&id, &card, TransferKind::Fund, 100, 5),
                    job(&id, JobKind::SettleCardTransfer),
                )
                .await
            }
        });
        let answers = futures::future::join_all(reservations).await;
        let reserved = answers.iter().filter(|a| a.is_ok()).count();
        let too_low = answers
            .iter()
            .filter(|a| matches!(a, Err(ReserveError::WalletTooLow)))
            .count();
        let too_soon = answers
            .iter()
            .filter(|a| matches!(a, Err(ReserveError::TooSoon(..))))
            .count();
        assert_eq!(
            (wallet_before, reserved, too_low, too_soon),
            (1_000, 10, 2, 1),
            "{}: {answers:?}",
            t.backend()
        );
        let wallet = db
            .balances(&AccountId::new(ACCOUNT), Mode::Test)
            .await
            .unwrap()
            .usd
            .minor();
        assert_eq!(wallet, 0, "{}", t.backend());
        // A reference refused for the wallet was never taken.
        let refused = requests[answers
            .iter()
            .position(|a| matches!(a, Err(ReserveError::WalletTooLow)))
            .unwrap()]
        .clone();
        db.fund_from_faucet(
            &AccountId::new(ACCOUNT),
            Mode::Test,
            Currency::Usd,
            amount(100),
            DEFAULT_MAX_WALLET,
            Timestamp::from_unix(2),
        )
        .await
        .unwrap();
        let again = db
            .reserve(
                transfer(&refused.0, &refused.1, TransferKind::Fund, 100, 5),
                job("again", JobKind::SettleCardTransfer),
            )
            .await;
        assert!(again.is_ok(), "{}: {again:?}", t.backend());
        assert!(
            db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty(),
            "{}",
            t.backend()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_processor_kept_card_is_found_by_the_processors_id_in_its_mode_only() {
    use ports::card_network::NetworkCardState;
    for t in TestDb::all().await {
        let (db, _) = setup(&t, 10_000).await;
        let kept = |id: &str, at: &str| NewCard {
            processor_card: Some(at.into()),
            ..new_card(id, None)
        };
        let wallet = async || {
            db.balances(&AccountId::new(ACCOUNT), Mode::Test)
                .await
                .unwrap()
                .usd
                .minor()
        };
        let (e, d) = event("kept");
        db.create(kept("card_k1", "62a1aa"), e, vec![d], Timestamp::from_unix(1))
            .await
            .unwrap();
        let funded = wallet().await;
        // One processor card is one card here.
        let (e, d) = event("twice");
        let twice = db
            .create(kept("card_k2", "62a1aa"), e, vec![d], Timestamp::from_unix(1))
            .await;
        assert!(twice.is_err(), "{}", t.backend());
        assert_eq!(wallet().await, funded, "{}: the refused card took nothing", t.backend());
        let card = CardId::new("card_k1");
        assert_eq!(
            db.by_processor_card(Mode::Test, "62a1aa").await.unwrap(),
            Some(card.clone())
        );
        assert_eq!(db.by_processor_card(Mode::Live, "62a1aa").await.unwrap(), None);
        assert_eq!(db.by_processor_card(Mode::Test, "62a1ab").await.unwrap(), None);
        let ids = [card.clone(), CardId::new("card_none")];
        assert_eq!(
            db.processor_cards(&ids).await.unwrap(),
            vec![(card.clone(), "62a1aa".to_string())]
        );
        let state = async || db.kept_cards(Mode::Test).await.unwrap();
        assert_eq!(
            state().await,
            vec![(card.clone(), "62a1aa".into(), NetworkCardState::Active)]
        );
        let account = AccountId::new(ACCOUNT);
        assert!(db.set_active(&account, Mode::Test, &card, false).await.unwrap());
        assert_eq!(state().await[0].2, NetworkCardState::Frozen);
        CardStore::delete(
            &db,
            &account,
            Mode::Test,
            &card,
            DeletionReason::Requested,
            Timestamp::from_unix(2),
            None,
        )
        .await
        .unwrap();
        assert_eq!(state().await[0].2, NetworkCardState::Terminated);
        assert!(db.kept_cards(Mode::Live).await.unwrap().is_empty());
        assert!(db.breaches(DEFAULT_MAX_WALLET).await.unwrap().is_empty());
    }
}

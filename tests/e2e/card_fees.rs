//! The monthly maintenance fee cannot be dodged: not by taking its
//! reference first, and not by migrating the card every month.

use crate::card_transactions::events_for;
use crate::cardholders::account;
use crate::cards::unix_now as now;
use crate::cards::{Sandbox, event};
use crate::harness::{Server, ledger_check, on_fakes};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use domain::Timestamp;
use serde_json::{Value, json};

const FEE: &str = "card_maintenance_fee_event.successful";

/// The body of `migrate_card` replacing `card` by a new USD card.
fn migration(holder: &str, card: &str) -> Value {
    json!({"cardholder_id": holder, "card_id": card, "card_type": "virtual",
           "target_card_brand": "Mastercard", "target_card_currency": "USD", "card_limit": "500000"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_reference_cannot_skip_the_maintenance_fee() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(31).await;
        let card = s.card(&holder, "2000").await;
        // The references the fee of each of the next two anniversaries once
        // used, taken first by the client: an unload the network declines
        // (amounts ending in 0013; none on Sudo's gateway source) and a debit.
        let created = Timestamp::from_unix(now());
        let first = format!("fee_{card}_{}", created.add_months(1).month_key());
        let second = format!("fee_{card}_{}", created.add_months(2).month_key());
        let a = s
            .patch(
                "/cards/unload_card_asynchronously",
                Sandbox::transfer(&card, "13", &first),
            )
            .await;
        assert_eq!(a.status, 202, "{}", a.body);
        let debit = json!({"card_id": card, "amount": "100", "transaction_reference": second});
        assert_eq!(s.patch("/cards/mock_debit_transaction", debit).await.status, 200);
        s.advance(32 * 86_400).await;
        events_for(&receiver, FEE, &card, 1).await;
        s.advance(31 * 86_400).await;
        let fees = events_for(&receiver, FEE, &card, 2).await;
        assert_eq!(fees.len(), 2, "{}", db.backend());
        // On Sudo's gateway funding source nothing declines the unload.
        let unloaded = if on_fakes() { 13 } else { 0 };
        assert_eq!(
            s.balance(&card).await.0,
            2000 - unloaded - 100 - 2 * 300,
            "{}",
            db.backend()
        );
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrating_every_month_still_pays_every_months_fee() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(32).await;
        let mut card = s.card(&holder, "3000").await;
        let mut fees = 0;
        for _ in 0..2 {
            // Three weeks in, the card is replaced; the anniversary it kept
            // comes a week and a half later.
            s.advance(21 * 86_400).await;
            let migrated = s.post("/cards/migrate_card", migration(&holder, &card)).await;
            assert_eq!(migrated.status, 201, "{}", migrated.body);
            let created = event(&receiver, "card_creation_event.successful", |d| {
                d["migrated_from"] == card.as_str()
            })
            .await;
            card = created["card_id"].as_str().unwrap().to_string();
            s.advance(11 * 86_400).await;
            fees += events_for(&receiver, FEE, &card, 1).await.len();
        }
        assert_eq!(fees, 2, "{}", db.backend());
        assert_eq!(s.balance(&card).await.0, 3000 - 2 * 300, "{}", db.backend());
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_after_unpaid_anniversaries_still_pays_them() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        // No job runs while the months fall due and the card is replaced.
        let s = Sandbox {
            server: Server::start_with(&db, &["--no-workers"]),
            key: account(&db, Some(&receiver.url)),
        };
        s.fund_wallet(20_000).await;
        let holder = s.cardholder(33).await;
        let old = s.card(&holder, "10000").await;
        s.advance(62 * 86_400).await;
        let migrated = s.post("/cards/migrate_card", migration(&holder, &old)).await;
        assert_eq!(migrated.status, 201, "{}", migrated.body);
        let Sandbox { server, key } = s;
        server.stop();
        let s = Sandbox {
            server: Server::start(&db),
            key,
        };
        let created = event(&receiver, "card_creation_event.successful", |d| {
            d["migrated_from"] == old.as_str()
        })
        .await;
        let card = created["card_id"].as_str().unwrap().to_string();
        let fees = events_for(&receiver, FEE, &card, 2).await;
        assert_eq!(fees.len(), 2, "{}: both months due are charged", db.backend());
        assert_eq!(s.balance(&card).await.0, 10_000 - 2 * 300, "{}", db.backend());
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

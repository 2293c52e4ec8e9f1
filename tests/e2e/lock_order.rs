//! Every money step takes its row locks in one order (docs/architecture.md),
//! so PostgreSQL never has a deadlock to break: a storm of fundings,
//! unloadings, debits and deletions on the cards of one wallet, with
//! settlements running, answers no 5xx and leaves `pg_stat_database`'s
//! deadlock count where it was.

use crate::cards::Sandbox;
use crate::harness::ledger_check;
use adapters::test_db::TestDb;
use serde_json::json;
use std::process::Command;

const CARDS: usize = 20;
const ROUNDS: usize = 4;

/// PostgreSQL's count of deadlocks it broke in the test database.
fn deadlocks(admin_url: &str) -> u64 {
    let out = Command::new("psql")
        .args([
            admin_url,
            "-tAc",
            "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
        ])
        .output()
        .expect("psql runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_storm_of_money_steps_on_one_wallet_meets_no_deadlock() {
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    let admin_url = std::env::var("TEST_DATABASE_URL").unwrap();
    let s = Sandbox::start(&db, None);
    s.fund_wallet(10_000_000).await;
    let holder = s.cardholder(77).await;
    let mut cards = vec![];
    for _ in 0..CARDS {
        cards.push(s.card(&holder, "20000").await);
    }
    let before = deadlocks(&admin_url);
    let mut statuses = vec![];
    for round in 0..ROUNDS {
        // Past every card's 5-minute window for fundings and unloadings.
        s.advance(301).await;
        let patch = |path: &str, body| (reqwest::Method::PATCH, path.to_string(), Some(body));
        let mut steps = vec![];
        for (i, card) in cards.iter().enumerate() {
            let r = |what: &str| format!("{what}-{round}-{i}");
            steps.push(patch(
                "/cards/fund_card_asynchronously",
                Sandbox::transfer(card, "300", &r("fund")),
            ));
            steps.push(patch(
                "/cards/unload_card_asynchronously",
                Sandbox::transfer(card, "200", &r("unload")),
            ));
            for d in 0..3 {
                let debit = json!({"card_id": card, "amount": "50", "merchant": "UBER *TRIP HELP.UBER.COM",
                                   "transaction_reference": r(&format!("debit{d}"))});
                steps.push(patch("/cards/mock_debit_transaction", debit));
            }
            // One card a round is deleted amid it all.
            if i == CARDS - 1 - round {
                steps.push((reqwest::Method::DELETE, format!("/cards/delete_card/{card}"), None));
            }
        }
        let answers = futures::future::join_all(
            steps
                .iter()
                .map(|(method, path, body)| s.call(method.clone(), path, body.clone())),
        )
        .await;
        statuses.extend(answers.iter().map(|a| (a.status, a.body.to_string())));
    }
    let failed: Vec<_> = statuses.iter().filter(|(status, _)| *status >= 500).collect();
    assert!(
        failed.is_empty(),
        "{} of {}: {:?}",
        failed.len(),
        statuses.len(),
        failed.first()
    );

    // Settled: nothing left in transit. Then the server stops, so every
    // backend has reported its statistics.
    assert_eq!(
        crate::harness::settlements_finished(&db).await,
        0,
        "settlements finished"
    );
    s.server.stop();
    let (ok, out) = ledger_check(&db);
    assert!(ok, "{out}");
    assert_eq!(deadlocks(&admin_url), before, "PostgreSQL broke deadlocks");
}

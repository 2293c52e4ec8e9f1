//! Every money step takes its row locks in one order (docs/architecture.md),
//! so PostgreSQL never has a deadlock to break: a storm of fundings,
//! unloadings, debits and deletions on the cards of one wallet, with
//! settlements running, and every pair of an authorization's steps raced
//! on one card, answer no 5xx and leave `pg_stat_database`'s deadlock
//! count where it was.

use crate::card_transactions::{SANDBOX_PROCESSOR_SECRET, processor_sandbox};
use crate::cards::{Answer, Sandbox};
use crate::harness::ledger_check;
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};
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

/// The processor's authorization and its void (what Sudo's gateway
/// sends as `authorization.declined`), a sandbox hold's capture, reversal,
/// increment and expiry, and a refund beside a new debit, all at once on
/// one card, round after round: no 5xx, no deadlock, an authorization
/// approved only where its void credited it back, and the card's balance
/// exactly what the answers moved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_pair_of_an_authorizations_steps_raced_on_one_card_meets_no_deadlock() {
    const RACES: usize = 150;
    const START: i64 = 400_000;
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    let admin_url = std::env::var("TEST_DATABASE_URL").unwrap();
    let receiver = Receiver::start();
    let s = processor_sandbox(&db, &receiver);
    let signed = Some((SANDBOX_PROCESSOR_SECRET, 0));
    s.fund_wallet(10_000_000).await;
    let holder = s.cardholder(78).await;
    let card = s.card(&holder, &START.to_string()).await;
    let balance = async || {
        let a = s.get(&format!("/cards/get_card_balance?card_id={card}")).await;
        assert_eq!(a.status, 200, "{}", a.body);
        a.body["data"]["settled_book_balance"]
            .as_str()
            .unwrap()
            .parse::<i64>()
            .unwrap()
    };
    // The issuer reference an answer gives its hold or debit.
    let issued = |a: &Answer| {
        a.body["data"]["issuer_transaction_reference"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let start = balance().await;
    let before = deadlocks(&admin_url);
    let (mut moved, mut answers) = (0i64, Vec::<Answer>::new());
    for r in 0..RACES {
        // What the round races on: a hold and an approved debit.
        let hold = s
            .post("/authorizations", json!({"card_id": card, "amount": "20"}))
            .await;
        assert_eq!(hold.status, 200, "round {r}: {}", hold.body);
        let hold = issued(&hold);
        let debit = json!({"card_id": card, "amount": "10", "merchant": "UBER *TRIP HELP.UBER.COM",
                           "transaction_reference": format!("d{r}")});
        let spent = s.processor("authorizations", &debit, signed).await;
        assert_eq!(spent.body["data"]["decision"], "approve", "round {r}: {}", spent.body);
        moved -= 10;
        let spent = issued(&spent);
        let authorization = json!({"card_id": card, "amount": "10", "merchant": "SHELL LEKKI",
                                   "transaction_reference": format!("a{r}")});
        let void =
            json!({"card_id": card, "transaction_reference": format!("a{r}"), "reversal_reference": format!("v{r}")});
        let step = async |name: &str, body: Option<Value>| {
            let path = format!("/authorizations/{hold}/{name}");
            s.call(reqwest::Method::POST, &path, body).await
        };
        let debit = json!({"card_id": card, "amount": "10", "merchant": "UBER *TRIP HELP.UBER.COM",
                           "transaction_reference": format!("e{r}")});
        let held = json!({"card_id": card, "amount": "10", "merchant": "SHELL LEKKI", "hold": true,
                          "transaction_reference": format!("b{r}")});
        let release =
            json!({"card_id": card, "transaction_reference": format!("b{r}"), "reversal_reference": format!("w{r}")});
        let (approval, voided, (hold_placed, hold_voided), round) = tokio::join!(
            s.processor("authorizations", &authorization, signed),
            s.processor("reversals", &void, signed),
            async {
                tokio::join!(
                    s.processor("authorizations", &held, signed),
                    s.processor("reversals", &release, signed)
                )
            },
            futures::future::join_all([
                Box::pin(step("capture", Some(json!({"amount": "10"}))))
                    as std::pin::Pin<Box<dyn std::future::Future<Output = Answer>>>,
                Box::pin(step(
                    "reverse",
                    Some(json!({"amount": "5", "reference": format!("h{r}")}))
                )),
                Box::pin(step("increment", Some(json!({"amount": "5"})))),
                Box::pin(step("expire", None)),
                Box::pin(s.post(
                    "/refunds",
                    json!({"transaction_id": spent, "refund_reference": format!("rf{r}")})
                )),
                Box::pin(s.patch("/cards/mock_debit_transaction", debit)),
            ]),
        );
        let approved = approval.body["data"]["decision"] == "approve";
        let credited = voided.body["data"]["outcome"] == "credited";
        assert_eq!(
            approved, credited,
            "round {r}: an approval stands only where its void gave it back: {} / {}",
            approval.body, voided.body
        );
        let placed = hold_placed.body["data"]["decision"] == "approve";
        let released = hold_voided.body["data"]["outcome"] == "released";
        assert_eq!(
            placed, released,
            "round {r}: a hold stands only where its void released it: {} / {}",
            hold_placed.body, hold_voided.body
        );
        for a in &round {
            let d = &a.body["data"];
            let cents = |f: &str| d[f].as_str().map_or(0, |c| c.parse::<i64>().unwrap());
            moved += cents("refunded_amount") - cents("captured_amount");
        }
        // The new debit, last of the round: 200 is its approval.
        if round[5].status == 200 {
            moved -= 10;
        }
        answers.extend([approval, voided, hold_placed, hold_voided]);
        answers.extend(round);
    }
    let failed: Vec<_> = answers.iter().filter(|a| a.status >= 500).map(|a| &a.body).collect();
    assert!(
        failed.is_empty(),
        "{} of {}: {:?}",
        failed.len(),
        answers.len(),
        failed.first()
    );
    assert_eq!(balance().await, start + moved, "the card moved what its answers said");
    s.server.stop();
    let (ok, out) = ledger_check(&db);
    assert!(ok, "{out}");
    assert_eq!(deadlocks(&admin_url), before, "PostgreSQL broke deadlocks");
}

//! Several processes on one PostgreSQL database, as a deployment runs
//! them: three `serve --no-workers` behind a round-robin client, and two
//! `worker`s. Under money traffic sent to all three at once, a reference
//! is taken once across them, a card's funding window holds across them,
//! every funding settles exactly once and its event arrives once; then
//! registrations, card creations and deletions and unloadings at once on
//! the three answer no 5xx, each unloading settles once; the ledger
//! balances after each.

use crate::cardholders::{account, nigerian};
use crate::cards::Sandbox;
use crate::harness::{Server, bearer, client, issuing, ledger_check, settlements_finished};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

const CARDS: usize = 6;

/// A worker process, killed when dropped.
struct Worker(std::process::Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until `CARDS` events `event` that `pick` takes have arrived,
/// then checks that each arrived once.
async fn delivered_once(receiver: &Receiver, event: &str, pick: impl Fn(&Value) -> bool) {
    let ids = |r: &Receiver| {
        r.deliveries()
            .into_iter()
            .filter_map(|d| serde_json::from_str::<Value>(&d.body).ok())
            .filter(|b| b["event"] == event && pick(b))
            .map(|b| b["event_id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert!(receiver.wait_for(60, |r| ids(r).len() >= CARDS).await, "{event}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let events = ids(receiver);
    assert_eq!(events.iter().collect::<HashSet<_>>().len(), CARDS, "{events:?}");
    assert_eq!(events.len(), CARDS, "an event {event} was delivered twice");
}

async fn patch(base: &str, key: &str, path: &str, body: Value) -> (u16, String) {
    let response = client()
        .patch(format!("{base}/v1/issuing/sandbox{path}"))
        .header("token", bearer(key))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    (status, body["code"].as_str().unwrap_or_default().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_api_processes_and_two_workers_share_references_windows_and_settlements() {
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    let receiver = Receiver::start();
    // Small pools: five processes, and the other tests running beside
    // this one, stay within PostgreSQL's 100 connections.
    let pool = ["--db-pool-size", "4"];
    let mut apis: Vec<Server> = (0..3)
        .map(|_| Server::start_with(&db, &[&["--no-workers"], &pool[..]].concat()))
        .collect();
    let bases: Vec<String> = apis.iter().map(|a| a.base.clone()).collect();
    let s = Sandbox {
        server: apis.remove(0),
        key: account(&db, Some(&receiver.url)),
    };
    let _workers: Vec<Worker> = (0..2)
        .map(|_| {
            let child = issuing(&db)
                .args(["worker", "--workers", "2", "--worker-poll-ms", "50"])
                .args(pool)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            Worker(child)
        })
        .collect();
    s.fund_wallet(1_000_000).await;
    let holder = s.cardholder(96).await;
    let mut cards = vec![];
    for _ in 0..CARDS {
        cards.push(s.card(&holder, "10000").await);
    }
    s.advance(301).await;

    // Per card, at once on the three processes: one funding sent to each
    // with the same reference, one more with a reference of its own per
    // process, and two debits per process, one of them sharing a
    // reference across processes.
    let mut calls = vec![];
    for (i, card) in cards.iter().enumerate() {
        for (p, base) in bases.iter().enumerate() {
            let steps = [
                (
                    "/cards/fund_card_asynchronously",
                    Sandbox::transfer(card, "300", &format!("same-{i}")),
                    "same",
                ),
                (
                    "/cards/fund_card_asynchronously",
                    Sandbox::transfer(card, "300", &format!("own-{i}-{p}")),
                    "own",
                ),
                (
                    "/cards/mock_debit_transaction",
                    json!({"card_id": card, "amount": "50", "transaction_reference": format!("debit-{i}-{p}")}),
                    "debit",
                ),
                (
                    "/cards/mock_debit_transaction",
                    json!({"card_id": card, "amount": "50", "transaction_reference": format!("debit-same-{i}")}),
                    "debit-same",
                ),
            ];
            for (path, body, what) in steps {
                let (base, key, card) = (base.clone(), s.key.clone(), card.clone());
                calls.push(async move { (card, what, patch(&base, &key, path, body).await) });
            }
        }
    }
    let answers = futures::future::join_all(calls).await;
    let mut by_card: HashMap<(String, &str), Vec<(u16, String)>> = HashMap::new();
    for (card, what, answer) in answers {
        assert!(answer.0 < 500, "{what}: {answer:?}");
        by_card.entry((card, what)).or_default().push(answer);
    }
    for card in &cards {
        let accepted = |what: &str| by_card[&(card.clone(), what)].iter().filter(|a| a.0 == 202).count();
        // One funding a window per card, whichever process took it.
        assert_eq!(accepted("same") + accepted("own"), 1, "{card}: {by_card:?}");
        let same = &by_card[&(card.clone(), "same")];
        assert!(
            same.iter()
                .all(|a| a.0 == 202 || a.1 == "transaction_reference_used" || a.1 == "card_funded_recently"),
            "{same:?}"
        );
        let debits = &by_card[&(card.clone(), "debit")];
        assert!(debits.iter().all(|a| a.0 == 200), "{debits:?}");
        let shared = &by_card[&(card.clone(), "debit-same")];
        assert_eq!(shared.iter().filter(|a| a.0 == 200).count(), 1, "{shared:?}");
    }

    // The workers settle each accepted funding once; its event arrives once.
    assert_eq!(settlements_finished(&db).await, 0, "settlements finished");
    delivered_once(&receiver, "card_credit_event.successful", |b| {
        b["data"]["transaction_reference"]
            .as_str()
            .is_some_and(|r| !r.is_empty())
            && cards.iter().any(|c| b["data"]["card_id"] == c.as_str())
    })
    .await;
    assert!(receiver.overlaps().is_empty());

    // Then the rest of an integration's traffic, at once on the three:
    // registrations, card creations, unloadings of the funded cards and
    // card deletions. No 5xx; each unloading settles once, its event once.
    s.advance(301).await;
    let sandbox = &s;
    let mut mixed: Vec<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>> = vec![];
    for (p, base) in bases.iter().enumerate() {
        let p = u32::try_from(p).unwrap();
        mixed.push(Box::pin(async move {
            let registration = Some(nigerian(97 + p));
            let path = "/cardholder/register_cardholder_synchronously";
            let holder = sandbox.call_at(base, reqwest::Method::POST, path, registration).await;
            assert_eq!(holder.status, 201, "{}", holder.body);
            let holder = holder.body["data"]["cardholder_id"].as_str().unwrap().to_string();
            let body = Some(sandbox.card_body(&holder, "500"));
            let card = sandbox
                .call_at(base, reqwest::Method::POST, "/cards/create_card", body)
                .await;
            assert_eq!(card.status, 200, "{}", card.body);
            let card = card.body["data"]["card_id"].as_str().unwrap();
            let path = format!("/cards/delete_card/{card}");
            let deleted = sandbox.call_at(base, reqwest::Method::DELETE, &path, None).await;
            assert_eq!(deleted.status, 200, "{}", deleted.body);
        }));
    }
    for (i, card) in cards.iter().enumerate() {
        let base = &bases[i % bases.len()];
        mixed.push(Box::pin(async move {
            let body = Some(Sandbox::transfer(card, "100", &format!("unload-{i}")));
            let path = "/cards/unload_card_asynchronously";
            let a = sandbox.call_at(base, reqwest::Method::PATCH, path, body).await;
            assert_eq!(a.status, 202, "{}", a.body);
        }));
    }
    futures::future::join_all(mixed).await;
    delivered_once(&receiver, "card_unload_event.successful", |_| true).await;
    let (ok, out) = ledger_check(&db);
    assert!(ok, "{out}");
}

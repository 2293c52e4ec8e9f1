//! Group commit under a SIGKILL: debits batched into shared transactions
//! are killed with the server while batches are in flight. After a restart
//! every acknowledged debit is applied exactly once, and every debit is
//! either wholly applied (its transaction, its ledger entry, its share of
//! the card's balance) or not at all.

use crate::cards::Sandbox;
use crate::harness::{Server, ledger_check};
use adapters::test_db::TestDb;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const CARDS: usize = 4;
const DEBITS: usize = 400;
/// The kill comes once this many debits were answered.
const KILL_AFTER: usize = 100;
const CENTS: i64 = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkill_amid_batches_of_debits_leaves_each_applied_once_or_not_at_all() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(1_000_000).await;
        let holder = s.cardholder(31).await;
        let mut cards = vec![];
        for _ in 0..CARDS {
            cards.push(s.card(&holder, "10000").await);
        }
        let url = s.server.url("/v1/issuing/sandbox/cards/mock_debit_transaction");
        let answered = Arc::new(AtomicUsize::new(0));
        let debits = (0..DEBITS).map(|n| {
            let (url, key, answered) = (url.clone(), s.key.clone(), answered.clone());
            let card = cards[n % CARDS].clone();
            async move {
                let body =
                    json!({"card_id": card, "amount": CENTS.to_string(), "transaction_reference": format!("gc-{n}")});
                let sent = crate::harness::client()
                    .patch(url)
                    .header("token", crate::harness::bearer(&key))
                    .json(&body)
                    .timeout(Duration::from_secs(20))
                    .send()
                    .await;
                let status = match sent {
                    Ok(response) => Some(response.status().as_u16()),
                    Err(_) => None,
                };
                answered.fetch_add(1, Ordering::SeqCst);
                (format!("gc-{n}"), card, status)
            }
        });
        let pid = s.server.pid().to_string();
        let kill = {
            let answered = answered.clone();
            async move {
                while answered.load(Ordering::SeqCst) < KILL_AFTER {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                let killed = std::process::Command::new("kill").args(["-9", &pid]).status();
                assert!(killed.unwrap().success());
            }
        };
        let (answers, ()) = futures::future::join(futures::future::join_all(debits), kill).await;
        let acknowledged: Vec<&(String, String, Option<u16>)> =
            answers.iter().filter(|(_, _, status)| *status == Some(200)).collect();
        let errors: Vec<_> = answers.iter().filter(|(_, _, s)| s.is_some_and(|s| s != 200)).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", db.backend());

        let s = Sandbox {
            server: Server::start(&db),
            key: s.key.clone(),
        };
        // What each card's history holds, by reference.
        let mut applied: HashMap<String, usize> = HashMap::new();
        for card in &cards {
            for page in 1.. {
                let a = s
                    .get(&format!("/cards/get_card_transactions?card_id={card}&page={page}"))
                    .await;
                assert_eq!(a.status, 200, "{}", a.body);
                let list = a.body["data"]["transactions"].as_array().cloned().unwrap_or_default();
                if list.is_empty() {
                    break;
                }
                for t in &list {
                    let reference = t["client_transaction_reference"].as_str().unwrap();
                    *applied.entry(reference.to_string()).or_default() += 1;
                }
            }
        }
        assert!(applied.values().all(|n| *n == 1), "{}: applied twice", db.backend());
        for (reference, _, _) in &acknowledged {
            assert!(
                applied.contains_key(reference),
                "{}: {reference} was acknowledged but is not applied",
                db.backend()
            );
        }
        // Each card's balance lost exactly its applied debits.
        for card in &cards {
            let spent = answers
                .iter()
                .filter(|(r, c, _)| c == card && applied.contains_key(r))
                .count() as i64;
            let (balance, _) = s.balance(card).await;
            assert_eq!(balance, 10_000 - spent * CENTS, "{}: {card}", db.backend());
        }
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
        eprintln!(
            "{}: {DEBITS} debits, {} acknowledged before the kill, {} applied",
            db.backend(),
            acknowledged.len(),
            applied.len()
        );
        assert!(
            acknowledged.len() < DEBITS,
            "{}: the kill came while debits were in flight",
            db.backend()
        );
    }
}

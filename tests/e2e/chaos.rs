//! Chaos: waves of fundings, unloadings and debits over several cards,
//! settlements running, and the server SIGKILLed at a random point of
//! three of them. After each restart the requests that got no answer are
//! sent again with their references, as an integration would. Then every
//! acknowledged request is applied exactly once, every refused one not at
//! all, every event is delivered (the receiver dedupes by event id), and
//! the ledger balances with nothing left in transit.

use crate::cardholders::account;
use crate::cards::Sandbox;
use crate::harness::{Server, ledger_check, settlements_finished};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

const CARDS: usize = 8;
const WAVES: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Fund,
    Unload,
    Debit,
}

/// One request of the traffic, and what it was answered.
#[derive(Debug, Clone)]
struct Sent {
    kind: Kind,
    card: String,
    reference: String,
    /// `None`: no answer (the server died under it).
    status: Option<u16>,
    code: String,
}

impl Sent {
    fn path_and_body(&self) -> (&'static str, Value) {
        let body = |amount: &str| Sandbox::transfer(&self.card, amount, &self.reference);
        match self.kind {
            Kind::Fund => ("/cards/fund_card_asynchronously", body("300")),
            Kind::Unload => ("/cards/unload_card_asynchronously", body("100")),
            Kind::Debit => (
                "/cards/mock_debit_transaction",
                json!({"card_id": self.card, "amount": "50", "merchant": "UBER *TRIP HELP.UBER.COM",
                       "transaction_reference": self.reference}),
            ),
        }
    }

    async fn send(mut self, s: &Sandbox) -> Sent {
        let (path, body) = self.path_and_body();
        let request = crate::harness::client()
            .patch(format!("{}/v1/issuing/sandbox{path}", s.server.base))
            .header("token", crate::harness::bearer(&s.key))
            .json(&body)
            .timeout(Duration::from_secs(10))
            .send();
        match request.await {
            Ok(response) => {
                self.status = Some(response.status().as_u16());
                let body: Value = response.json().await.unwrap_or(Value::Null);
                self.code = body["code"].as_str().unwrap_or_default().to_string();
            }
            Err(_) => self.status = None,
        }
        self
    }

    fn acknowledged(&self) -> bool {
        matches!(self.status, Some(200 | 202))
    }
}

/// A small generator for the kill points: the test needs variety, not
/// unpredictability, so it is seeded from the clock and printed.
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkills_amid_money_traffic_lose_nothing_and_apply_nothing_twice() {
    for db in TestDb::all().await {
        let mut seed = crate::cards::unix_now() as u64;
        eprintln!("{}: chaos seed {seed}", db.backend());
        let receiver = Receiver::start();
        let server = Server::start(&db);
        let key = account(&db, Some(&receiver.url));
        let mut s = Sandbox { server, key };
        s.fund_wallet(1_000_000).await;
        let holder = s.cardholder(95).await;
        let mut cards = vec![];
        for _ in 0..CARDS {
            cards.push(s.card(&holder, "10000").await);
        }
        let mut sent: Vec<Sent> = vec![];
        let mut lost: Vec<String> = vec![];
        let mut kills = 0;
        for wave in 0..WAVES {
            // Past every card's 5-minute window for fundings and unloadings.
            s.advance(301).await;
            let mut wave_requests = vec![];
            for (i, card) in cards.iter().enumerate() {
                let kinds = [Kind::Fund, Kind::Unload, Kind::Debit, Kind::Debit, Kind::Debit];
                for (k, kind) in kinds.into_iter().enumerate() {
                    wave_requests.push(Sent {
                        kind,
                        card: card.clone(),
                        reference: format!("chaos-{wave}-{i}-{k}"),
                        status: None,
                        code: String::new(),
                    });
                }
            }
            let traffic = futures::future::join_all(wave_requests.into_iter().map(|r| r.send(&s)));
            if wave < 3 {
                // A kill at a random point of the wave.
                let pid = s.server.pid().to_string();
                let delay = Duration::from_millis(next(&mut seed) % 60);
                let kill = async move {
                    tokio::time::sleep(delay).await;
                    let killed = std::process::Command::new("kill").args(["-9", &pid]).status();
                    assert!(killed.unwrap().success());
                };
                let (mut answers, ()) = futures::future::join(traffic, kill).await;
                kills += 1;
                s = Sandbox {
                    server: Server::start(&db),
                    key: s.key.clone(),
                };
                // What got no answer is sent again with its reference, at
                // once, as an integration would.
                for answer in answers.iter_mut().filter(|a| a.status.is_none()) {
                    lost.push(answer.reference.clone());
                    *answer = answer.clone().send(&s).await;
                    assert!(answer.status.is_some(), "the server is up");
                }
                sent.extend(answers);
            } else {
                sent.extend(traffic.await);
            }
        }
        let unanswered: Vec<&Sent> = sent.iter().filter(|r| r.status.is_none()).collect();
        assert!(unanswered.is_empty(), "{unanswered:?}");
        let errors: Vec<&Sent> = sent.iter().filter(|r| r.status.is_some_and(|c| c >= 500)).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", db.backend());

        // Settled: nothing in transit.
        assert_eq!(
            settlements_finished(&db).await,
            0,
            "{}: settlements finished",
            db.backend()
        );

        // Every event in the log reaches the receiver.
        let mut logged = HashSet::new();
        for page in 1.. {
            let (_, events) =
                crate::harness::get_json(&s.server, &s.key, &format!("/v1/issuing/sandbox/events?page={page}")).await;
            let events = events["data"]["events"].as_array().cloned().unwrap_or_default();
            if events.is_empty() {
                break;
            }
            logged.extend(events.iter().map(|e| e["event_id"].as_str().unwrap().to_string()));
        }
        assert!(
            receiver
                .wait_for(60, |r| logged.iter().all(|id| r.accepted().contains_key(id)))
                .await,
            "{}: events not delivered",
            db.backend()
        );

        // Fundings and unloadings: one settled event per applied request.
        let mut settled: HashMap<String, HashSet<String>> = HashMap::new();
        for d in receiver.deliveries().into_iter().filter(|d| d.accepted) {
            let body: Value = serde_json::from_str(&d.body).unwrap();
            if let Some(reference) = body["data"]["transaction_reference"].as_str() {
                settled
                    .entry(reference.to_string())
                    .or_default()
                    .insert(d.event_id.clone());
            }
        }
        for r in sent.iter().filter(|r| r.kind != Kind::Debit) {
            let events = settled.get(&r.reference).map_or(0, HashSet::len);
            let expected = match (r.acknowledged(), r.code.as_str()) {
                (true, _) | (false, "transaction_reference_used") => 1,
                // Refused for another reason: applied only if an answer was lost before.
                _ if lost.contains(&r.reference) => events.min(1),
                _ => 0,
            };
            assert_eq!(events, expected, "{}: {r:?}", db.backend());
        }
        // Debits: found by their reference exactly when applied.
        for r in sent.iter().filter(|r| r.kind == Kind::Debit) {
            s.advance(3).await;
            let found = s
                .get(&format!(
                    "/cards/get_card_transaction_by_id?card_id={}&client_transaction_reference={}",
                    r.card, r.reference
                ))
                .await;
            let applied = found.status == 200;
            let expected = r.acknowledged() || r.code == "transaction_reference_used";
            assert_eq!(applied, expected, "{}: {r:?}: {}", db.backend(), found.body);
        }
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
        let acknowledged = sent.iter().filter(|r| r.acknowledged()).count();
        let mut refusals: HashMap<&str, usize> = HashMap::new();
        for r in sent.iter().filter(|r| !r.acknowledged()) {
            *refusals.entry(r.code.as_str()).or_default() += 1;
        }
        eprintln!(
            "{}: {} requests, {acknowledged} acknowledged, {} lost to {kills} kills and sent again; refused: {refusals:?}",
            db.backend(),
            sent.len(),
            lost.len()
        );
    }
}

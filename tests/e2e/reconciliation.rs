//! Money reconciliation with Sudo's books (`issuing reconcile
//! transactions`, and its scheduled runs) against the fake's listings:
//! each kind of difference injected as it happens (a lost notification, a
//! timeout after our commit, an approval by Sudo's default, a different
//! amount, a duplicate, an authorization Sudo never made), repaired once,
//! and the books clean after.

use crate::connectors::{GATEWAY_SECRET, authorization, card_at_sudo, gateway, refund, sudo_env};
use crate::harness::{eventually, issuing, ledger_check, run};
use crate::receiver::Receiver;
use adapters::connectors::sudo::fake::FakeSudo;
use adapters::test_db::TestDb;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `issuing reconcile transactions --mode test --grace-secs 0`: its exit
/// status, each difference by authorization, and its summary.
fn reconcile(db: &TestDb, fake: &FakeSudo) -> (Option<i32>, BTreeMap<String, Vec<Value>>, Value) {
    let mut cmd = issuing(db);
    cmd.envs(sudo_env(fake))
        .args(["reconcile", "transactions", "--mode", "test", "--grace-secs", "0"]);
    let out = run(&mut cmd);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let summary = lines.pop().expect("a summary line");
    let mut found: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for line in lines {
        found
            .entry(line["authorization"].as_str().unwrap().to_string())
            .or_default()
            .push(line);
    }
    (out.status.code(), found, summary["summary"].clone())
}

fn classes(found: &BTreeMap<String, Vec<Value>>, authorization: &str) -> Vec<String> {
    let lines = found.get(authorization).map(Vec::as_slice).unwrap_or_default();
    lines
        .iter()
        .map(|l| format!("{} {} {}", l["class"], l["amount"], l["outcome"]))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_difference_with_sudos_books_is_repaired_once() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (fake, s, card, sudo_card) = card_at_sudo(&db, Some(&receiver.url)).await;
        let approve = async |id: &str, amount: &str| {
            let (status, answer) =
                gateway(&s.server, Some(GATEWAY_SECRET), authorization(id, &sudo_card, amount)).await;
            assert_eq!((status, answer["responseCode"].as_str()), (200, Some("00")), "{answer}");
        };
        // A sandbox mock debit of the card is none of Sudo's: never
        // reconciled away.
        s.debit(&card, 200, "5812", "CAFE NEPTUNE").await;
        let (start, _) = s.balance(&card).await;
        // Agreed: approved here and there, captured as approved.
        approve("au_same", "1").await;
        fake.book_authorization("au_same", &sudo_card, "1", true, "closed");
        fake.book_transaction("tx_same", &sudo_card, "au_same", "capture", "1");
        // A refund whose notification was lost.
        approve("au_lost", "10").await;
        fake.book_authorization("au_lost", &sudo_card, "10", true, "closed");
        fake.book_transaction("tx_lost", &sudo_card, "au_lost", "capture", "10");
        fake.book_transaction("rf_lost", &sudo_card, "au_lost", "refund", "5");
        // Approved and committed here, but Sudo stopped waiting first and
        // declined it (its timeout setting).
        approve("au_late", "20").await;
        fake.book_authorization("au_late", &sudo_card, "20", false, "declined");
        // Approved by Sudo's default while this service never heard of it.
        fake.book_authorization("au_default", &sudo_card, "7", true, "closed");
        fake.book_transaction("tx_default", &sudo_card, "au_default", "capture", "7");
        // Captured for more than the approval took.
        approve("au_more", "10").await;
        fake.book_authorization("au_more", &sudo_card, "10", true, "closed");
        fake.book_transaction("tx_more", &sudo_card, "au_more", "capture", "12.50");
        // Asked twice (its answer lost), approved and booked once.
        approve("au_twice", "3").await;
        approve("au_twice", "3").await;
        fake.book_authorization("au_twice", &sudo_card, "3", true, "closed");
        // Approved here, and Sudo has no such authorization at all.
        approve("au_ghost", "4").await;
        let (before, _) = s.balance(&card).await;
        assert_eq!(before, start - 100 - 1000 - 2000 - 1000 - 300 - 400);

        let (status, found, summary) = reconcile(&db, &fake);
        assert_eq!(status, Some(0), "{found:?} {summary}");
        assert_eq!(classes(&found, "au_lost"), [r#""refund_not_applied" "500" "applied""#]);
        assert_eq!(classes(&found, "au_late"), [r#""approved_here_only" "2000" "applied""#]);
        assert_eq!(
            classes(&found, "au_default"),
            [r#""approved_there_only" "700" "applied""#]
        );
        assert_eq!(classes(&found, "au_more"), [r#""amount_differs" "250" "applied""#]);
        assert_eq!(classes(&found, "au_ghost"), [r#""approved_here_only" "400" "applied""#]);
        assert_eq!(found.len(), 5, "au_same and au_twice agree: {found:?}");
        assert_eq!(
            (&summary["differences"], &summary["repaired"], &summary["unresolved"]),
            (&Value::from(5), &Value::from(5), &Value::from(0)),
            "{summary}"
        );
        assert_eq!(summary["compared"], 7, "{summary}");
        let expected = start - 100 - 500 - 700 - 1250 - 300;
        assert_eq!(s.balance(&card).await.0, expected);
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
        // The account hears of each give-back as of the processor's.
        let reversed = crate::cards::event(&receiver, "card_reversal_event.successful", |d| {
            d["reversal_reference"] == "reconcile:au_late"
        })
        .await;
        assert_eq!(
            (reversed["amount"].as_str(), reversed["transaction_reference"].as_str()),
            (Some("2000"), Some("au_late"))
        );
        crate::cards::event(&receiver, "card_refund_event.successful", |d| {
            d["reversal_reference"] == "rf_lost"
        })
        .await;

        // A second run repairs nothing, and moves nothing.
        let (status, found, summary) = reconcile(&db, &fake);
        assert_eq!(status, Some(0), "{found:?}");
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(summary["differences"], 0, "{summary}");
        assert_eq!(s.balance(&card).await.0, expected);

        // The refund's notification, arriving late after all: applied once.
        let told = refund("rf_lost", &sudo_card, "au_lost", "5");
        assert_eq!(gateway(&s.server, Some(GATEWAY_SECRET), told).await.0, 200);
        assert_eq!(s.balance(&card).await.0, expected);

        // Sudo captures more of the authorization it approved by default:
        // debited once more, under the repair's own reference; and more
        // again: an operator decides, nothing moves, exit status 1.
        fake.book_transaction("tx_default_2", &sudo_card, "au_default", "capture", "1");
        let (status, found, _) = reconcile(&db, &fake);
        assert_eq!(status, Some(0), "{found:?}");
        assert_eq!(classes(&found, "au_default"), [r#""amount_differs" "100" "applied""#]);
        assert_eq!(found["au_default"][0]["applied_as"], "reconcile:au_default");
        fake.book_transaction("tx_default_3", &sudo_card, "au_default", "capture", "1");
        let (status, found, summary) = reconcile(&db, &fake);
        assert_eq!(status, Some(1), "{found:?} {summary}");
        assert_eq!(
            classes(&found, "au_default"),
            [r#""unresolved" "0" "a repair was made before: an operator decides""#]
        );
        assert_eq!(s.balance(&card).await.0, expected - 100);
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
        // The operator sees the last run on the dashboard's ledger page.
        let ops = crate::dashboard::operator(&db, &s.server).await;
        let page = ops.get("/operator/ledger").await;
        assert!(page.body.contains(r#"data-reconciliation="runs""#), "{}", page.body);
        // Compared 7, one difference, none repaired, one left.
        let row = "<td>7</td><td>1</td><td>0</td><td>1</td>";
        assert!(
            page.body.contains("<td>test</td>") && page.body.contains(row),
            "{}",
            page.body
        );
    }
}

/// What an independent review found, each its own case: Sudo's books
/// that lag (a refund a day after its purchase, the purchase out of the
/// period), say what cannot be read, list a capture twice, or hold an id
/// a sandbox debit also uses, and a client that takes a repair's
/// reference first. None moves money it should not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sudos_books_that_lag_or_cannot_be_read_move_no_money_they_should_not() {
    for db in TestDb::all().await {
        let (fake, s, card, sudo_card) = card_at_sudo(&db, None).await;
        let approve = async |id: &str, amount: &str| {
            let (status, answer) =
                gateway(&s.server, Some(GATEWAY_SECRET), authorization(id, &sudo_card, amount)).await;
            assert_eq!((status, answer["responseCode"].as_str()), (200, Some("00")), "{answer}");
        };
        // A purchase three days old, out of the period, refunded now.
        approve("au_old", "20").await;
        fake.book_authorization("au_old", &sudo_card, "20", true, "closed");
        fake.book_transaction("tx_old", &sudo_card, "au_old", "capture", "20");
        for old in ["au_old", "tx_old"] {
            fake.backdate_booked(old, 3 * 86_400);
        }
        fake.book_transaction("rf_old", &sudo_card, "au_old", "refund", "5");
        // Approved at Sudo in a currency this card is not, or for an
        // amount that cannot be read; and in lower case, read.
        approve("au_eur", "10").await;
        fake.book_authorization("au_eur", &sudo_card, "10", true, "closed");
        fake.edit_booked("au_eur", |item| item["currency"] = "EUR".into());
        approve("au_unread", "10").await;
        fake.book_authorization("au_unread", &sudo_card, "10", true, "closed");
        fake.edit_booked("au_unread", |item| {
            item["amount"] = "ten".into();
            item["pendingRequest"]["amount"] = "ten".into();
        });
        approve("au_lower", "10").await;
        fake.book_authorization("au_lower", &sudo_card, "10", true, "closed");
        fake.edit_booked("au_lower", |item| item["currency"] = "usd".into());
        // A capture listed twice.
        approve("au_dup", "10").await;
        fake.book_authorization("au_dup", &sudo_card, "10", true, "closed");
        fake.book_transaction("tx_dup", &sudo_card, "au_dup", "capture", "10");
        fake.list_twice("tx_dup");
        // A sandbox debit under one of Sudo's ids, which Sudo declined.
        let mock = json!({"card_id": card, "amount": "700", "transaction_reference": "au_mock",
            "merchant": "CAFE NEPTUNE", "merchant_category_code": "5812"});
        assert_eq!(s.patch("/cards/mock_debit_transaction", mock).await.status, 200);
        fake.book_authorization("au_mock", &sudo_card, "7", false, "declined");
        // The repair's reference taken first by the client.
        approve("au_taken", "10").await;
        fake.book_authorization("au_taken", &sudo_card, "10", true, "closed");
        fake.book_transaction("tx_taken", &sudo_card, "au_taken", "capture", "12.50");
        let squat = json!({"card_id": card, "amount": "1", "transaction_reference": "reconcile:au_taken",
            "merchant": "CAFE NEPTUNE", "merchant_category_code": "5812"});
        assert_eq!(s.patch("/cards/mock_debit_transaction", squat).await.status, 200);
        let (before, _) = s.balance(&card).await;

        let (status, found, summary) = reconcile(&db, &fake);
        assert_eq!(status, Some(1), "{found:?} {summary}");
        assert_eq!(classes(&found, "au_old"), [r#""refund_not_applied" "500" "applied""#]);
        for unreadable in ["au_eur", "au_unread"] {
            let lines = classes(&found, unreadable);
            assert!(
                lines.len() == 1 && lines[0].starts_with(r#""unresolved" "0""#),
                "{unreadable}: {lines:?}"
            );
        }
        let taken = classes(&found, "au_taken");
        assert!(
            taken.len() == 1 && taken[0].contains("is another record's"),
            "{taken:?}"
        );
        for agreed in ["au_lower", "au_dup", "au_mock"] {
            assert!(!found.contains_key(agreed), "{agreed}: {found:?}");
        }
        assert_eq!(summary["unresolved"], 3, "{summary}");
        assert_eq!(s.balance(&card).await.0, before + 500, "only the late refund moved");
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scheduled_run_repairs_and_counts_by_class() {
    let db = TestDb::sqlite();
    let (fake, s, card, sudo_card) = card_at_sudo(&db, None).await;
    let (start, _) = s.balance(&card).await;
    let call = authorization("au_sched", &sudo_card, "6");
    let (status, _) = gateway(&s.server, Some(GATEWAY_SECRET), call).await;
    assert_eq!(status, 200);
    fake.book_authorization("au_sched", &sudo_card, "6", false, "declined");
    drop(s.server);
    // A worker reconciling every second (nothing is too young for it).
    let mut worker = issuing(&db);
    worker.envs(sudo_env(&fake)).envs([
        ("ISSUING_RECONCILE_EVERY", "1"),
        ("ISSUING_RECONCILE_GRACE_SECS", "0"),
        ("ISSUING_METRICS_LISTEN", "127.0.0.1:0"),
    ]);
    let mut worker = worker
        .args(["worker"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = worker.stdout.take().unwrap();
    let metrics = std::thread::spawn(move || {
        use std::io::BufRead;
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find_map(|l| l.strip_prefix("metrics listening on ").map(str::to_string))
    })
    .join()
    .unwrap()
    .expect("the worker prints its metrics address");
    let scrape = async || {
        let text = reqwest::get(&metrics).await.unwrap().text().await.unwrap();
        text.lines()
            .find(|l| {
                l.starts_with("issuing_reconciliation_differences_total")
                    && l.contains(r#"class="approved_here_only""#)
                    && l.contains(r#"mode="test""#)
            })
            .map(str::to_string)
    };
    let counted = eventually(scrape, Option::is_some).await.unwrap();
    assert!(counted.ends_with(" 1"), "{counted}");
    let _ = worker.kill();
    let _ = worker.wait();
    let server = crate::connectors::start(&db, &sudo_env(&fake));
    let s = crate::cards::Sandbox { server, key: s.key };
    assert_eq!(s.balance(&card).await.0, start);
    let (ok, report) = ledger_check(&db);
    assert!(ok, "{report}");
}

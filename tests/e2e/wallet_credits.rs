//! `issuing wallets credit`: the operator's one way to put money in an
//! issuing wallet, live or sandbox, and `ledger totals` per mode.

use crate::extreme_amounts::assert_books_whole;
use crate::harness::{Server, create_account, get_json, issuing, ledger_totals, run};
use adapters::test_db::TestDb;
use serde_json::{Value, json};
use std::process::Output;

fn credit(db: &TestDb, account: &str, args: &[&str]) -> Output {
    let mut cmd = issuing(db);
    cmd.args(["wallets", "credit", account]).args(args);
    run(&mut cmd)
}

fn credited(out: &Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn usd(db: &TestDb, account: &str, reference: &str, amount: &str) -> Output {
    let args = [
        "--mode",
        "live",
        "--currency",
        "USD",
        "--amount",
        amount,
        "--reference",
        reference,
    ];
    credit(db, account, &[&args[..], &["--note", "wire received"]].concat())
}

async fn live_balance(server: &Server, key: &str) -> Value {
    let (status, mut body) = get_json(server, key, "/v1/issuing/cards/get_issuing_wallet_balance").await;
    assert_eq!(status, 200, "{body}");
    body["data"].take()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_credits_a_live_wallet_once_per_reference_and_totals_show_it_per_mode() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let created = create_account(&db, None);
        let (account, key) = (
            created["account_id"].as_str().unwrap(),
            created["live_secret_key"].as_str().unwrap(),
        );
        assert_eq!(live_balance(&server, key).await["issuing_balance_USD"], "0");

        let first_run = usd(&db, account, "wire-2026-001", "250000");
        let first = credited(&first_run);
        assert_eq!(
            (&first["credited_now"], &first["issuing_balance"], &first["livemode"]),
            (&json!(true), &json!("250000"), &json!(true)),
            "{}: {first}",
            db.backend()
        );
        // The same credit again (a retry) moves nothing and says so.
        let again = credited(&usd(&db, account, "wire-2026-001", "250000"));
        assert_eq!(
            (&again["credited_now"], &again["issuing_balance"]),
            (&json!(false), &json!("250000"))
        );
        assert_eq!(again["created_at"], first["created_at"]);
        // Spaces around it, or another case, name the same transfer.
        let alike = credited(&usd(&db, account, " WIRE-2026-001 ", "250000"));
        assert_eq!(
            (&alike["credited_now"], &alike["reference"]),
            (&json!(false), &json!("wire-2026-001"))
        );
        // The same reference for another amount is refused, naming the first.
        let other = usd(&db, account, "wire-2026-001", "999");
        assert!(!other.status.success());
        let said = String::from_utf8_lossy(&other.stderr);
        assert!(said.contains("reference: already credited 250000 USD"), "{said}");
        assert_eq!(live_balance(&server, key).await["issuing_balance_USD"], "250000");

        let totals = ledger_totals(&db);
        assert_eq!(
            (
                &totals["live"]["USD"]["deposits"],
                &totals["live"]["USD"]["issuing_wallet"]
            ),
            (&json!(-250_000), &json!(250_000)),
            "{}: {totals}",
            db.backend()
        );
        assert_eq!(
            totals["test"]["USD"]["deposits"], 0,
            "the sandbox is untouched: {totals}"
        );
        assert_books_whole(&db);
        server.stop();
        // The operator's act is logged, with its reference and note.
        let logged = String::from_utf8_lossy(&first_run.stderr);
        assert!(logged.contains("issuing wallet credited from deposits"), "{logged}");
        assert!(
            logged.contains("wire-2026-001") && logged.contains("wire received"),
            "{logged}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credit_that_breaks_a_rule_names_it_and_moves_nothing() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let account = create_account(&db, None)["account_id"].as_str().unwrap().to_string();
        credited(&usd(&db, &account, "opening", "9999999999000"));
        let before = ledger_totals(&db);
        let (long_reference, long_note) = ("r".repeat(101), "n".repeat(501));
        let cases: [(&str, Vec<&str>, &str); 12] = [
            ("zero", vec!["--amount", "0"], "amount: must be greater than zero"),
            ("negative", vec!["--amount", "-1"], "amount:"),
            ("exponent", vec!["--amount", "1e3"], "amount:"),
            (
                "i64::MAX",
                vec!["--amount", "9223372036854775807"],
                "amount: must be at most 10000000000000",
            ),
            (
                "the wallet's maximum + 1",
                vec!["--amount", "10000000000001"],
                "amount: must be at most",
            ),
            (
                "past the maximum with what it holds",
                vec!["--amount", "1001"],
                "amount: the wallet would hold more than",
            ),
            ("currency", vec!["--currency", "EUR"], "currency:"),
            (
                "empty reference",
                vec!["--reference", ""],
                "reference: must be 1 to 100 characters",
            ),
            ("invisible reference", vec!["--reference", "\u{200B}"], "reference:"),
            ("long reference", vec!["--reference", &long_reference], "reference:"),
            (
                "long note",
                vec!["--note", &long_note],
                "note: must be 1 to 500 characters",
            ),
            (
                "unknown account",
                vec!["--account", "acct_nope"],
                "account_id: no account with this id",
            ),
        ];
        for (case, change, expected) in cases {
            let mut args = [
                ("--currency", "USD"),
                ("--amount", "5"),
                ("--reference", "r-1"),
                ("--note", "wire"),
            ];
            let mut target = account.as_str();
            for pair in change.chunks(2) {
                match pair[0] {
                    "--account" => target = pair[1],
                    flag => args.iter_mut().find(|(f, _)| *f == flag).unwrap().1 = pair[1],
                }
            }
            let flat: Vec<&str> = [
                &["--mode", "live"][..],
                &args.iter().flat_map(|(f, v)| [*f, *v]).collect::<Vec<_>>(),
            ]
            .concat();
            let out = credit(&db, target, &flat);
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{}: {case} was accepted", db.backend());
            assert!(said.contains(expected), "{}: {case}: {said}", db.backend());
        }
        assert_eq!(
            ledger_totals(&db),
            before,
            "{}: a refused credit moved money",
            db.backend()
        );
        // Up to the maximum exactly is fine.
        let full = credited(&usd(&db, &account, "top-up", "1000"));
        assert_eq!(full["issuing_balance"], "10000000000000");
        assert_books_whole(&db);
        server.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_operators_crediting_one_reference_at_once_credit_it_once() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let account = create_account(&db, None)["account_id"].as_str().unwrap().to_string();
        let outs: Vec<Output> = std::thread::scope(|scope| {
            let runs: Vec<_> = (0..8)
                .map(|_| scope.spawn(|| usd(&db, &account, "wire-race", "700")))
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        let now: Vec<bool> = outs.iter().map(|o| credited(o)["credited_now"] == true).collect();
        assert_eq!(now.iter().filter(|n| **n).count(), 1, "{}: {now:?}", db.backend());
        assert_eq!(ledger_totals(&db)["live"]["USD"]["issuing_wallet"], 700);
        assert_books_whole(&db);
        server.stop();
    }
}

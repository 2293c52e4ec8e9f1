//! Extreme amounts on every money endpoint: an amount above what its field
//! may carry is a 400 naming the field, nothing else moves, and the books
//! stay whole and within their ranges (an unload of `i64::MAX` once
//! created that much money in a ledger that still balanced).

use crate::cards::{Answer, Sandbox};
use crate::harness::{eventually, ledger_check, ledger_totals, sandbox_totals};
use adapters::test_db::TestDb;
use serde_json::{Value, json};

/// What an integration might send, from nothing to far past `i64`.
fn extremes(limit: i64) -> Vec<String> {
    let mut amounts: Vec<String> = [0, 1, limit - 1, limit, limit + 1, i64::MAX]
        .iter()
        .map(i64::to_string)
        .collect();
    amounts.extend(
        [
            "9223372036854775808",
            "18446744073709551615",
            "99999999999999999999",
            "-1",
            "-9223372036854775808",
        ]
        .map(String::from),
    );
    amounts
}

fn is_too_large(amount: &str, limit: i64) -> bool {
    amount.parse::<i128>().is_ok_and(|n| n > i128::from(limit))
}

/// An answer to an extreme amount: never a 5xx, and a 400 naming `field`
/// for anything outside `1..=limit`.
fn check(endpoint: &str, field: &str, amount: &str, limit: i64, status: u16, body: &Value) {
    assert!(status < 500, "{endpoint} {amount}: {status} {body}");
    let out_of_range = amount.parse::<i128>().is_ok_and(|n| n < 1) || is_too_large(amount, limit);
    if out_of_range {
        assert_eq!(status, 400, "{endpoint} {amount}: {body}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.starts_with(&format!("{field}:")), "{endpoint} {amount}: {body}");
    }
    if is_too_large(amount, limit) {
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.contains("must be at most"), "{endpoint} {amount}: {body}");
    }
}

/// The ledger check passes, and in each mode and currency the kinds'
/// totals sum to zero: no money was made or lost.
pub fn assert_books_whole(db: &TestDb) {
    let (ok, out) = ledger_check(db);
    assert!(ok, "{}: {out}", db.backend());
    let totals = ledger_totals(db);
    for (mode, currencies) in totals.as_object().unwrap() {
        for (currency, kinds) in currencies.as_object().unwrap() {
            let sum: i128 = kinds
                .as_object()
                .unwrap()
                .values()
                .map(|v| i128::from(v.as_i64().expect("every total fits i64")))
                .sum();
            assert_eq!(
                sum,
                0,
                "{}: money was made or lost in {mode} {currency}: {totals}",
                db.backend()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unload_of_i64_max_is_refused_and_creates_no_money() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(300).await;
        let holder = s.cardholder(1).await;
        let card = s.card(&holder, "300").await;
        let a = s
            .patch(
                "/cards/unload_card_asynchronously",
                Sandbox::transfer(&card, "9223372036854775807", "u-max"),
            )
            .await;
        assert_eq!(a.status, 400, "{}: {}", db.backend(), a.body);
        assert_eq!(
            a.body["message"],
            "amount: must be at most 500000 (the most a USD card may hold: 5,000 USD)"
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(s.wallet().await, 0, "{}", db.backend());
        assert_eq!(s.balance(&card).await, (300, 0));
        assert_books_whole(&db);
        let totals = sandbox_totals(&db);
        assert_eq!(totals["USD"]["faucet"], -300, "{totals}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_money_endpoint_refuses_extreme_amounts_and_the_books_hold() {
    for db in TestDb::all().await {
        let secret = "psk_extreme_amounts_sandbox_processor";
        let s = Sandbox::start_with(&db, None, &["--sandbox-processor-secret", secret]);
        const WALLET_MAX: i64 = 10_000_000_000_000;
        const CARD_MAX: i64 = 500_000;
        const DEBIT_MAX: i64 = 1_000_000;
        for currency in ["USD", "NGN"] {
            for amount in extremes(WALLET_MAX) {
                let a = s
                    .patch(
                        &format!("/cards/fund_issuing_wallet?currency={currency}"),
                        json!({ "amount": amount }),
                    )
                    .await;
                check("fund_issuing_wallet", "amount", &amount, WALLET_MAX, a.status, &a.body);
            }
        }
        let holder = s.cardholder(2).await;
        for amount in extremes(CARD_MAX) {
            let a = s.post("/cards/create_card", s.card_body(&holder, &amount)).await;
            // Zero is refused for being under the fee hold, not for its sign.
            if amount != "0" {
                check("create_card", "funding_amount", &amount, CARD_MAX, a.status, &a.body);
            }
            assert!(a.status < 500, "{}", a.body);
        }
        let card = s.card(&holder, "100000").await;
        for (n, amount) in extremes(CARD_MAX).iter().enumerate() {
            for endpoint in ["fund_card_asynchronously", "unload_card_asynchronously"] {
                s.advance(301).await;
                let a = s
                    .patch(
                        &format!("/cards/{endpoint}"),
                        Sandbox::transfer(&card, amount, &format!("{endpoint}-{n}")),
                    )
                    .await;
                check(endpoint, "amount", amount, CARD_MAX, a.status, &a.body);
            }
        }
        for (n, amount) in extremes(DEBIT_MAX).iter().enumerate() {
            let body = json!({"card_id": card, "amount": amount, "transaction_reference": format!("debit-{n}")});
            let a = s.patch("/cards/mock_debit_transaction", body).await;
            check("mock_debit_transaction", "amount", amount, DEBIT_MAX, a.status, &a.body);
        }
        let forced = s.card(&holder, "300").await;
        for (n, amount) in extremes(DEBIT_MAX).iter().enumerate() {
            let raw = json!({"card_id": forced, "amount": amount, "merchant": "BOLT.EU/R/2211",
                             "transaction_reference": format!("auth-{n}"), "force": true});
            let Answer { status, body, .. } = s.processor("authorizations", &raw, Some((secret, 0))).await;
            check("processor authorization", "amount", amount, DEBIT_MAX, status, &body);
        }
        // Settlements run; then nothing is in transit and the books hold.
        let totals = eventually(async || sandbox_totals(&db), |t| t["USD"]["card_transit"] == 0).await;
        assert_eq!(totals["USD"]["card_transit"], 0, "{}: {totals}", db.backend());
        assert_books_whole(&db);
    }
}

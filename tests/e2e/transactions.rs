//! The account's transactions over HTTP: every card's debits, approved and
//! declined, newest first, filtered by card, cardholder, state and time,
//! paged by cursor so that pages stay whole while debits keep arriving;
//! on SQLite and PostgreSQL.

use crate::cards::Sandbox;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

impl Sandbox {
    /// Every page of `/transactions?{query}` from the cursor `after`, `limit`
    /// at a time: each transaction's issuer reference, newest first.
    async fn transaction_pages(&self, query: &str, limit: u32, after: Option<String>) -> Vec<String> {
        let mut seen = Vec::new();
        let mut cursor = after;
        loop {
            let after = cursor
                .as_deref()
                .map(|c| format!("&starting_after={c}"))
                .unwrap_or_default();
            let a = self.get(&format!("/transactions?limit={limit}{after}&{query}")).await;
            assert_eq!(a.status, 200, "{}", a.body);
            let page = a.body["data"]["transactions"].as_array().unwrap().clone();
            assert!(page.len() <= limit as usize);
            seen.extend(page.iter().map(reference));
            if a.body["data"]["has_more"] != json!(true) {
                return seen;
            }
            cursor = seen.last().cloned();
        }
    }
}

fn reference(t: &Value) -> String {
    t["issuer_transaction_reference"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_accounts_transactions_page_by_cursor_newest_first_and_filter() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(100_000).await;
        let (ada, bola) = (s.cardholder(91).await, s.cardholder(92).await);
        let (a1, a2, b1) = (
            s.card(&ada, "10000").await,
            s.card(&ada, "1000").await,
            s.card(&bola, "10000").await,
        );
        for n in 0..5 {
            assert_eq!(s.spend(&a1, 100 + n, json!({})).await.0, 200);
        }
        assert_eq!(
            s.spend(&a2, 5_000, json!({})).await.0,
            401,
            "declined: insufficient balance"
        );
        s.advance(60).await;
        for n in 0..3 {
            assert_eq!(s.spend(&b1, 200 + n, json!({})).await.0, 200);
        }

        // Newest first, across cards; the same by any page size.
        let all = s.get("/transactions").await;
        assert_eq!(all.status, 200, "{}", all.body);
        let listed = all.body["data"]["transactions"].as_array().unwrap().clone();
        assert_eq!((listed.len(), &all.body["data"]["has_more"]), (9, &json!(false)));
        let times: Vec<i64> = listed
            .iter()
            .map(|t| t["transaction_timestamp"].as_i64().unwrap())
            .collect();
        assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first: {times:?}");
        assert_eq!(listed[0]["card_id"], b1.as_str());
        let declined = listed.iter().find(|t| t["card_id"] == a2.as_str()).unwrap();
        assert_eq!(
            (&declined["status"], &declined["decline_code"]),
            (&json!("declined"), &json!("insufficient_balance"))
        );
        assert_eq!(
            (&listed[0]["status"], &listed[0]["decline_code"]),
            (&json!("approved"), &Value::Null)
        );
        let order: Vec<String> = listed.iter().map(reference).collect();
        for limit in [1, 2, 4, 100] {
            assert_eq!(s.transaction_pages("", limit, None).await, order, "limit {limit}");
        }

        // Debits arriving between pages neither repeat nor hide the older
        // ones: the pages after the cursor hold exactly what followed it.
        let first = s.get("/transactions?limit=4").await.body["data"]["transactions"].clone();
        let cursor = reference(&first[3]);
        for n in 0..3 {
            assert_eq!(s.spend(&a1, 300 + n, json!({})).await.0, 200);
        }
        let rest = s.transaction_pages("", 2, Some(cursor)).await;
        assert_eq!(rest, order[4..], "the pages after the cursor");

        // Filters, each and together.
        let count = async |query: &str| s.transaction_pages(query, 100, None).await.len();
        assert_eq!(count(&format!("card_id={a1}")).await, 8);
        assert_eq!(count(&format!("cardholder_id={bola}")).await, 3);
        assert_eq!(count("status=declined").await, 1);
        assert_eq!(count(&format!("status=approved&cardholder_id={ada}")).await, 8);
        assert_eq!(count("card_id=card_of_no_one").await, 0);
        let b1_first = listed[2]["transaction_date"].as_str().unwrap();
        let since = format!("start_date={b1_first}&end_date=2999-12-31 23:59:59");
        assert_eq!(
            count(&since.replace(' ', "%20")).await,
            6,
            "b1's three and a1's last three"
        );

        // Malformed queries name their field; another account sees nothing.
        for (query, field) in [
            ("limit=0", "limit"),
            ("limit=101", "limit"),
            ("status=held", "status"),
            ("type=refund", "type"),
            ("starting_after=ctx_of_no_one", "starting_after"),
            ("start_date=2026-01-01%2000:00:00", "end_date"),
        ] {
            let a = s.get(&format!("/transactions?{query}")).await;
            let message = a.body["message"].as_str().unwrap_or_default();
            assert_eq!(a.status, 400, "{query}: {}", a.body);
            assert!(message.starts_with(field), "{query}: {message}");
        }
        let other = Sandbox {
            key: crate::cardholders::account(&db, None),
            server: s.server,
        };
        let theirs = other.get("/transactions").await;
        assert_eq!(theirs.body["data"]["transactions"], json!([]), "{}", theirs.body);
        let cursor = format!("/transactions?starting_after={}", order[0]);
        assert_eq!(other.get(&cursor).await.status, 400, "another account's cursor");
    }
}

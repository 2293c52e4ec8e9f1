//! The isolation matrix, generated from the OpenAPI document: every
//! operation that names a cardholder, card or event, called with another
//! account's key, and with the owner's key of the other mode, on the
//! owner's real ids, answers exactly as it does for ids that exist
//! nowhere; and changes nothing of the owner's. A new route is covered
//! without editing this test.

use crate::cardholders::account_created;
use crate::cards::Sandbox;
use crate::harness::{Server, bearer, client, ledger_check, openapi};
use adapters::crypto::aes_everywhere;
use adapters::test_db::TestDb;
use domain::Secret;
use serde_json::{Map, Value, json};

/// An operation of the document: method, path, and the names of its path
/// and query parameters and body properties.
struct Operation {
    method: reqwest::Method,
    path: String,
    path_params: Vec<String>,
    query_params: Vec<String>,
    body: Vec<String>,
}

fn operations(doc: &Value) -> Vec<Operation> {
    let mut all = vec![];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Ok(method) = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()) else {
                continue;
            };
            let relay_only = op["tags"].as_array().is_some_and(|t| t.contains(&json!("relay")));
            // The processor signs its calls; it has no key to misuse.
            if relay_only || path.starts_with("/v1/processor") || !path.starts_with("/v1/issuing") {
                continue;
            }
            let params = |place: &str| -> Vec<String> {
                op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["in"] == place)
                    .map(|p| p["name"].as_str().unwrap().to_string())
                    .collect()
            };
            // Bodies are inlined (each operation states its own bounds).
            let body = op["requestBody"]["content"]["application/json"]["schema"]["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            all.push(Operation {
                method,
                path: path.clone(),
                path_params: params("path"),
                query_params: params("query"),
                body,
            });
        }
    }
    all
}

/// The owner's ids by parameter name.
struct Ids {
    cardholder_id: String,
    card_id: String,
    event_id: String,
}

impl Ids {
    fn get(&self, name: &str) -> Option<&str> {
        match name {
            "cardholder_id" => Some(&self.cardholder_id),
            "card_id" => Some(&self.card_id),
            "event_id" => Some(&self.event_id),
            _ => None,
        }
    }

    /// Ids of the same shapes that exist nowhere.
    fn unknown(&self) -> Ids {
        let nowhere = |id: &str| format!("{}{}", &id[..id.len() - 8], "00000000");
        Ids {
            cardholder_id: nowhere(&self.cardholder_id),
            card_id: nowhere(&self.card_id),
            event_id: nowhere(&self.event_id),
        }
    }
}

/// A call of `op` with `key`, naming `ids` wherever it takes one and a
/// plausible value elsewhere: status, code, and the message with the ids
/// taken out.
async fn call(server: &Server, op: &Operation, key: &str, ids: &Ids, path: &str) -> (u16, Value, String) {
    let mut url = path.to_string();
    for name in &op.path_params {
        url = url.replace(&format!("{{{name}}}"), ids.get(name).unwrap_or("x"));
    }
    // Ids and the placeholder are URL-safe as they are.
    let query: Vec<String> = op
        .query_params
        .iter()
        .map(|name| format!("{name}={}", ids.get(name).unwrap_or("1")))
        .collect();
    if !query.is_empty() {
        url = format!("{url}?{}", query.join("&"));
    }
    let mut request = client()
        .request(op.method.clone(), server.url(&url))
        .header("token", bearer(key));
    if !op.body.is_empty() {
        let pin = aes_everywhere::encrypt(b"1234", &Secret::new(key.to_string()));
        let body: Map<String, Value> = op
            .body
            .iter()
            .map(|name| {
                let value = match (ids.get(name), name.as_str()) {
                    (Some(id), _) => json!(id),
                    (None, "amount" | "funding_amount" | "card_limit") => json!("100"),
                    (None, "pin" | "new_pin" | "pin_3ds") => json!(pin),
                    (None, "transaction_reference" | "reference") => json!("isolation-ref"),
                    (None, "card_currency" | "currency") => json!("USD"),
                    (None, "card_type") => json!("virtual"),
                    (None, "card_brand") => json!("Mastercard"),
                    (None, "otp") => json!("123456"),
                    (None, _) => json!("1"),
                };
                (name.clone(), value)
            })
            .collect();
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let mut message = body["message"].as_str().unwrap_or_default().to_string();
    for id in [&ids.cardholder_id, &ids.card_id, &ids.event_id] {
        message = message.replace(id.as_str(), "<id>");
    }
    (status, body["code"].clone(), message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_account_and_the_other_mode_see_the_owners_ids_as_unknown() {
    for db in TestDb::all().await {
        let owner = Sandbox::start(&db, None);
        owner.fund_wallet(10_000).await;
        let holder = owner.cardholder(94).await;
        let card = owner.card(&holder, "1000").await;
        let event = owner.post("/webhook/test", Value::Null).await;
        let ids = Ids {
            cardholder_id: holder.clone(),
            card_id: card.clone(),
            event_id: event.body["data"]["event_id"].as_str().unwrap().to_string(),
        };
        let unknown = ids.unknown();
        let owner_live = account_created(&db, None)["live_secret_key"]
            .as_str()
            .unwrap()
            .to_string();
        let other = account_created(&db, None)["test_secret_key"]
            .as_str()
            .unwrap()
            .to_string();
        let before = (owner.balance(&card).await, owner.wallet().await);

        let ops: Vec<Operation> = operations(&openapi(&owner.server).await)
            .into_iter()
            .filter(|op| {
                op.path_params
                    .iter()
                    .chain(&op.query_params)
                    .chain(&op.body)
                    .any(|n| ids.get(n).is_some())
            })
            .collect();
        assert!(ops.len() >= 60, "{} operations name an id", ops.len());
        let mut checked = 0;
        for op in &ops {
            let sandbox = op.path.starts_with("/v1/issuing/sandbox");
            // Another account, same mode; and the owner in the other mode
            // (its live key on the production path of a sandbox id).
            let (key, what) = if sandbox {
                (&other, "another account")
            } else {
                (&owner_live, "the live key")
            };
            let real = call(&owner.server, op, key, &ids, &op.path).await;
            owner.advance(61).await;
            let nowhere = call(&owner.server, op, key, &unknown, &op.path).await;
            owner.advance(61).await;
            assert_eq!(
                real,
                nowhere,
                "{}: {} {} with {what} answers otherwise for the owner's ids",
                db.backend(),
                op.method,
                op.path
            );
            assert_ne!(real.0, 500, "{} {}", op.method, op.path);
            checked += 1;
        }
        // The owner's own key does reach its ids: the matrix tests lookups.
        let mut reached = 0;
        for op in ops
            .iter()
            .filter(|op| op.method == reqwest::Method::GET && op.path.starts_with("/v1/issuing/sandbox"))
        {
            let mine = call(&owner.server, op, &owner.key, &ids, &op.path).await;
            owner.advance(61).await;
            let nowhere = call(&owner.server, op, &owner.key, &unknown, &op.path).await;
            owner.advance(61).await;
            reached += usize::from(mine != nowhere);
        }
        assert!(
            reached >= 8,
            "{}: only {reached} reads found the owner's ids",
            db.backend()
        );
        assert_eq!(
            (owner.balance(&card).await, owner.wallet().await),
            before,
            "{}",
            db.backend()
        );
        let (status, _) = crate::harness::get_json(
            &owner.server,
            &owner.key,
            &format!("/v1/issuing/sandbox/cardholder/get_cardholder?cardholder_id={holder}"),
        )
        .await;
        assert_eq!(status, 200, "the cardholder is still there");
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
        eprintln!(
            "{}: {checked} operations checked, {reached} owner reads reached",
            db.backend()
        );
    }
}

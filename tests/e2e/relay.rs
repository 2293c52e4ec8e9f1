//! The two addresses an integration configures: the base address and the
//! decrypting relay. Both serve every route alike; card numbers, CVVs and
//! expiry dates are clear only on the relay. And what integrations read:
//! lenient amounts, and webhook payloads as documented.

use crate::cardholders::nigerian;
use crate::cards::{Sandbox, event};
use crate::harness::{bearer, client, ledger_check, openapi};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// `method path` on `address` with the sandbox key: status and body.
async fn call(s: &Sandbox, address: &str, method: &str, path: &str) -> (u16, Value, reqwest::header::HeaderMap) {
    let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    let mut request = client()
        .request(method.clone(), format!("{address}{path}"))
        .header("token", bearer(&s.key));
    if method != reqwest::Method::GET && method != reqwest::Method::DELETE {
        request = request.json(&json!({}));
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    (status, response.json().await.unwrap_or(Value::Null), headers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_answers_alike_on_both_listeners_and_card_data_is_clear_only_on_the_relay() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        let (base, relay) = (s.server.base.clone(), s.server.relay.clone());
        let doc = openapi(&s.server).await;
        let mut walked = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            let methods = ["get", "post", "put", "patch", "delete"];
            for (method, operation) in item
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| methods.contains(&k.as_str()))
            {
                // The relay's own routes (tokens, OTPs) are not on the base address.
                if operation["tags"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!("relay")))
                {
                    let on_base = call(&s, &base, method, path).await;
                    assert_eq!(on_base.0, 404, "{path} is the relay's only");
                    continue;
                }
                let path = path.replace(['{', '}'], "");
                let on_base = call(&s, &base, method, &path).await;
                // Past every read window and per-minute limit the base call used.
                s.advance(61).await;
                let on_relay = call(&s, &relay, method, &path).await;
                let what = format!("{}: {method} {path}", db.backend());
                let message = on_relay.1["message"].as_str().unwrap_or_default();
                assert!(!message.starts_with("no endpoint at"), "{what}: {}", on_relay.1);
                assert_eq!(
                    (on_base.0, &on_base.1["code"]),
                    (on_relay.0, &on_relay.1["code"]),
                    "{what}: {} / {}",
                    on_base.1,
                    on_relay.1
                );
                assert_eq!(on_relay.2.get("cache-control").unwrap(), "no-store", "{what}");
                walked += 1;
            }
        }
        assert!(walked > 60, "{walked} routes walked");

        s.fund_wallet(10_000).await;
        let holder = s.cardholder(41).await;
        let card = s.card(&holder, "1000").await;
        for read in [
            format!("/cards/get_card_details?card_id={card}"),
            format!("/cards/get_all_cardholder_cards?cardholder_id={holder}"),
            "/cards/get_all_cards".to_string(),
        ] {
            s.advance(3).await;
            let sealed = s.call_at(&base, reqwest::Method::GET, &read, None).await;
            s.advance(3).await;
            let clear = s.call_at(&relay, reqwest::Method::GET, &read, None).await;
            assert_eq!((sealed.status, clear.status), (200, 200), "{read}: {}", clear.body);
            let one = |a: &Value| {
                let d = &a["data"];
                if d["cards"].is_array() {
                    d["cards"][0].clone()
                } else {
                    d.clone()
                }
            };
            let (sealed, clear) = (one(&sealed.body), one(&clear.body));
            for field in ["card_number", "cvv", "expiry_month", "expiry_year"] {
                assert!(
                    sealed[field].as_str().unwrap().starts_with("sealed:"),
                    "{read}: {field}"
                );
                let value = clear[field].as_str().unwrap();
                assert!(value.bytes().all(|b| b.is_ascii_digit()), "{read}: {field} {value}");
            }
            assert!(domain::cards::pan::is_luhn_valid(
                clear["card_number"].as_str().unwrap()
            ));
            assert_eq!(clear["last_4"], sealed["last_4"]);
            assert_eq!(
                (&clear["balance"], &sealed["balance"]),
                (&json!("1000"), &json!("1000")),
                "{read}"
            );
        }
        // Lists in clear: one every 3 seconds per account; sealed lists are not limited.
        s.advance(3).await;
        let all = "/cards/get_all_cards";
        let s = &s;
        let status = |address: String| async move { s.call_at(&address, reqwest::Method::GET, all, None).await.status };
        assert_eq!((status(relay.clone()).await, status(relay.clone()).await), (200, 420));
        assert_eq!((status(base.clone()).await, status(base.clone()).await), (200, 200));
        let limited = s.call_at(&relay, reqwest::Method::GET, all, None).await;
        let message = limited.body["message"].as_str().unwrap();
        assert!(message.contains("per account and mode"), "{message}");
        // The relay takes every call an integration sends there, money too.
        let fund = json!({"card_id": card, "amount": 500, "transaction_reference": "relay-fund", "currency": "USD"});
        let funded = s
            .call_at(
                &relay,
                reqwest::Method::PATCH,
                "/cards/fund_card_asynchronously",
                Some(fund),
            )
            .await;
        assert_eq!(funded.status, 202, "{}", funded.body);
        s.settled(&card, 1_500).await;
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

/// The names of the fields `schema` documents, following `$ref` and
/// `allOf` into the document's components.
fn documented(doc: &Value, schema: &Value, into: &mut BTreeSet<String>) {
    if let Some(name) = schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        return documented(doc, &doc["components"]["schemas"][name], into);
    }
    if let Some(props) = schema["properties"].as_object() {
        into.extend(props.keys().cloned());
    }
    for part in schema["allOf"].as_array().into_iter().flatten() {
        documented(doc, part, into);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_delivered_payload_matches_its_documented_schema_and_carries_what_receivers_read() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.fund_wallet(60_000).await;
        let holder = s.cardholder(42).await;
        let card = s.card(&holder, "20000").await;
        for (path, amount, reference) in [
            ("/cards/fund_card_asynchronously", json!(1000), "p-fund"),
            ("/cards/fund_card_asynchronously", json!("10013"), "p-fund-declined"),
            ("/cards/unload_card_asynchronously", json!(500), "p-unload"),
            ("/cards/unload_card_asynchronously", json!("10013"), "p-unload-declined"),
        ] {
            let body =
                json!({"card_id": card, "amount": amount, "transaction_reference": reference, "currency": "USD"});
            let a = s.patch(path, body).await;
            assert_eq!(a.status, 202, "{reference}: {}", a.body);
            s.advance(300).await;
        }
        let declined =
            json!({"card_id": card, "amount": "50000", "transaction_reference": "p-debit", "currency": "USD"});
        assert_eq!(s.patch("/cards/mock_debit_transaction", declined).await.status, 401);
        assert_eq!(s.post("/webhook/test", json!({})).await.status, 202);
        // A month on: the maintenance fee; near three months idle: the notice.
        s.advance(31 * 86_400).await;
        event(&receiver, "card_maintenance_fee_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        s.advance(55 * 86_400).await;
        event(&receiver, "card_delete_event.notification", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        let registered = s.post("/cardholder/register_cardholder", nigerian(43)).await;
        let other = registered.body["data"]["cardholder_id"].as_str().unwrap().to_string();
        event(&receiver, "cardholder_verification.successful", |d| {
            d["cardholder_id"] == other.as_str()
        })
        .await;
        let deleted = s.delete(&format!("/cardholder/delete_cardholder/{holder}")).await;
        assert_eq!(deleted.status, 200, "{}", deleted.body);

        let unload = event(&receiver, "card_unload_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        assert!(unload["description"].is_string(), "{unload}");
        let failed = event(&receiver, "card_unload_event.failed", |d| d["card_id"] == card.as_str()).await;
        assert!(
            failed["description"].is_string() && failed["error_description"].is_string(),
            "{failed}"
        );
        let gone = event(&receiver, "card_delete_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        assert_eq!(gone["currency"], "USD");
        for name in [
            "card_credit_event.successful",
            "card_credit_event.failed",
            "card_debit_event.declined",
        ] {
            let e = event(&receiver, name, |d| d["card_id"] == card.as_str()).await;
            for field in [
                "card_id",
                "cardholder_id",
                "amount",
                "currency",
                "transaction_reference",
                "livemode",
            ] {
                assert!(!e[field].is_null(), "{name} lacks {field}: {e}");
            }
            assert!(e["transaction_timestamp"].is_i64(), "{name}: {e}");
        }

        let doc = openapi(&s.server).await;
        let mut checked = BTreeSet::new();
        for delivery in receiver.deliveries() {
            let body: Value = serde_json::from_str(&delivery.body).unwrap();
            let name = body["event"].as_str().unwrap();
            let hook = &doc["webhooks"][name]["post"]["requestBody"]["content"]["application/json"]["schema"];
            assert!(hook.is_object(), "{name} is not documented");
            let mut schema = hook.clone();
            schema["components"] = doc["components"].clone();
            let validator = jsonschema::validator_for(&schema).unwrap();
            let errors: Vec<String> = validator.iter_errors(&body).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{name}: {errors:?} in {body}");
            let mut fields = BTreeSet::new();
            documented(&doc, &hook["properties"]["data"], &mut fields);
            for field in body["data"].as_object().unwrap().keys() {
                assert!(fields.contains(field), "{name} sends {field}, which is not documented");
            }
            checked.insert(name.to_string());
        }
        assert_eq!(checked.len(), 11, "{}: {checked:?}", db.backend());
    }
}

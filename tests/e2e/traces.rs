//! Traces over OpenTelemetry: `serve --otlp-endpoint` sends OTLP/HTTP JSON
//! to a real HTTP receiver standing for the collector. A request is a
//! trace rooted at its request span, which carries the `x-request-id` it
//! was answered with; its use case and repository steps are spans below
//! it; nothing secret is exported.

use crate::cards::Sandbox;
use crate::harness::{bearer, client};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

/// A span as OTLP's JSON has it, flattened.
#[derive(Debug)]
struct Span {
    name: String,
    trace: String,
    id: String,
    parent: String,
    attributes: Value,
}

impl Span {
    fn attribute(&self, key: &str) -> Option<&str> {
        let all = self.attributes.as_array()?;
        let found = all.iter().find(|a| a["key"] == key)?;
        found["value"]["stringValue"].as_str()
    }
}

/// Every span of every export the collector received.
fn spans(collector: &Receiver) -> Vec<Span> {
    let mut spans = vec![];
    for export in collector.deliveries() {
        let body: Value = serde_json::from_str(&export.body).expect("OTLP JSON");
        let resources = body["resourceSpans"].as_array().cloned().unwrap_or_default();
        for scope in resources
            .iter()
            .flat_map(|r| r["scopeSpans"].as_array().cloned().unwrap_or_default())
        {
            for span in scope["spans"].as_array().cloned().unwrap_or_default() {
                let text = |key: &str| span[key].as_str().unwrap_or_default().to_string();
                spans.push(Span {
                    name: text("name"),
                    trace: text("traceId"),
                    id: text("spanId"),
                    parent: text("parentSpanId"),
                    attributes: span["attributes"].clone(),
                });
            }
        }
    }
    spans
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_is_a_trace_rooted_at_its_request_id_over_its_use_case_and_repository_steps() {
    for db in TestDb::all().await {
        let collector = Receiver::start();
        let s = Sandbox::start_with(&db, None, &["--otlp-endpoint", &collector.url]);
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(1).await;
        let card = s.card(&holder, "5000").await;
        let debit = client()
            .patch(s.server.url("/v1/issuing/sandbox/cards/mock_debit_transaction"))
            .header("token", bearer(&s.key))
            .header("x-request-id", "trace-debit-1")
            .json(&json!({"card_id": card, "amount": "150", "transaction_reference": "traced-1"}))
            .send()
            .await
            .unwrap();
        assert_eq!(debit.status(), 200);
        // Stopping flushes what the exporter batched.
        assert!(s.server.terminate(), "serve with --otlp-endpoint stops on SIGTERM");
        let spans = spans(&collector);
        let root = spans
            .iter()
            .find(|s| s.name == "request" && s.attribute("request_id") == Some("trace-debit-1"))
            .unwrap_or_else(|| panic!("the request's span: {spans:#?}"));
        assert!(root.parent.is_empty(), "the request is the trace's root: {root:?}");
        let trace: Vec<&Span> = spans.iter().filter(|s| s.trace == root.trace).collect();
        let names: Vec<&str> = trace.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"mock_debit_transaction"), "the use case: {names:?}");
        let steps: Vec<&&Span> = trace.iter().filter(|s| s.name == "db").collect();
        assert!(!steps.is_empty(), "repository steps: {names:?}");
        assert!(
            steps.iter().all(|s| s
                .attribute("at")
                .is_some_and(|at| at.starts_with("issuing_adapters::db"))),
            "{steps:?}"
        );
        assert!(
            names.contains(&"group_commit"),
            "the debit's wait for its batch: {names:?}"
        );
        // Every span of the trace hangs from another of it, up to the root.
        let ids: Vec<&str> = trace.iter().map(|s| s.id.as_str()).collect();
        assert!(
            trace.iter().all(|s| s.parent.is_empty() == (s.id == root.id)),
            "{trace:#?}"
        );
        assert!(
            trace
                .iter()
                .all(|s| s.parent.is_empty() || ids.contains(&s.parent.as_str()))
        );
        // Another request is another trace.
        let others = spans
            .iter()
            .filter(|s| s.name == "request" && s.trace != root.trace)
            .count();
        assert!(others >= 3, "the setup's requests are traces of their own");
        let exported: String = collector.deliveries().into_iter().map(|d| d.body).collect();
        assert!(!exported.contains(&s.key), "no API key in the traces");
    }
}

//! `GET /metrics` on its own listener, scraped after real traffic and
//! read by Prometheus' own Python parser (`prometheus_client`): every
//! family docs/operations.md lists is there, labelled by route patterns
//! and kinds, never by ids or secrets.

use crate::cards::Sandbox;
use crate::docs::{python_has, run_with};
use crate::harness::{client, eventually};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::Value;

/// Prometheus' parser reads the exposition (the file named): each sample
/// as `[name, labels, value]`.
const PARSE: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
samples = [[s.name, s.labels, s.value] for f in text_string_to_metric_families(text) for s in f.samples]
print(json.dumps(samples))
"#;

fn parsed(text: &str) -> Vec<(String, Value, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("metrics.txt");
    std::fs::write(&file, text).unwrap();
    let out = run_with("python3", &["-c", PARSE, file.to_str().unwrap()], &[]);
    serde_json::from_str::<Vec<(String, Value, f64)>>(&out).expect("the parser's samples")
}

async fn scrape(url: &str) -> String {
    let response = client().get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("text/plain"), "{kind}");
    response.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_served_apart_and_read_by_prometheus_parser_with_every_family() {
    if !python_has("prometheus_client") {
        eprintln!("python3 lacks prometheus_client (pip install prometheus_client): the metrics are not parsed");
        return;
    }
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start_with(&db, Some(&receiver.url), &["--metrics-listen", "127.0.0.1:0"]);
        let url = s
            .server
            .metrics
            .clone()
            .expect("the metrics listener's address is printed");
        // Not on the API's listener.
        let api = client().get(s.server.url("/metrics")).send().await.unwrap();
        assert_eq!(api.status(), 404);
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(1).await;
        let card = s.card(&holder, "5000").await;
        s.debit(&card, 150, "5812", "CAFE NEPTUNE").await;
        // Once a minute per account: the second asks too soon.
        assert_eq!(s.get("/cards/fx-rate").await.status, 200);
        assert_eq!(
            s.get("/cards/fx-rate").await.status,
            420,
            "the contract's rate-limit status"
        );
        let delivered = |text: &String| {
            text.lines()
                .any(|l| l.starts_with("issuing_job_runs_total") && l.contains(r#"kind="deliver_webhook""#))
        };
        let text = eventually(async || scrape(&url).await, delivered).await;
        let samples = parsed(&text);
        let find = |name: &str, label: (&str, &str)| {
            samples
                .iter()
                .filter(|(n, labels, _)| n == name && labels[label.0] == label.1)
                .map(|(_, _, v)| *v)
                .sum::<f64>()
        };
        let route = "/v1/issuing/sandbox/cards/mock_debit_transaction";
        assert_eq!(find("issuing_http_requests_total", ("route", route)), 1.0, "{text}");
        assert!(find("issuing_http_request_duration_seconds_count", ("route", route)) >= 1.0);
        assert_eq!(
            find("issuing_rate_limit_refusals_total", ("code", "rate_limited")),
            1.0,
            "{text}"
        );
        assert!(find("issuing_commit_batch_size_count", ("committer", "debits")) >= 1.0);
        assert!(find("issuing_commit_wait_seconds_count", ("committer", "debits")) >= 1.0);
        assert!(find("issuing_job_runs_total", ("outcome", "done")) >= 1.0);
        let names: Vec<&str> = samples.iter().map(|(n, _, _)| n.as_str()).collect();
        for family in [
            "issuing_db_pool_wait_seconds_count",
            "issuing_db_pool_connections",
            "issuing_db_pool_max_connections",
            "issuing_db_pool_waiting_requests",
            "issuing_jobs",
            "issuing_job_oldest_due_seconds",
            "issuing_money_jobs_parked",
        ] {
            assert!(names.contains(&family), "{family} missing from {text}");
        }
        assert_eq!(find("issuing_jobs", ("kind", "settle_card_transfer")), 0.0, "{text}");
        // Routes are patterns: no card id, key or secret in any label.
        assert!(!text.contains(&card) && !text.contains(&holder) && !text.contains(&s.key));
        let other = client().get(format!("{}/v1/issuing/sandbox/cards/{card}", s.server.base));
        assert_eq!(other.send().await.unwrap().status(), 404);
        // Nor is a method a client made up.
        let brewed = reqwest::Method::from_bytes(b"BREW-4f2c").unwrap();
        client().request(brewed, s.server.url("/health")).send().await.unwrap();
        let after = scrape(&url).await;
        assert!(!after.contains(&card), "an unmatched path is not a label: {after}");
        assert!(after.contains(r#"route="unmatched""#), "{after}");
        assert!(
            !after.contains("BREW-4f2c") && after.contains(r#"method="other""#),
            "{after}"
        );
        // Its listener ends with the others on a stop signal.
        assert!(s.server.terminate(), "serve with --metrics-listen stops on SIGTERM");
    }
}

/// The `issuing_*` families `text` names, a histogram's series
/// (`_bucket`, `_sum`, `_count`) as their family.
fn families_named(text: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for (at, _) in text.match_indices("issuing_") {
        let name: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .unwrap_or(&name);
        names.insert(family.to_string());
    }
    names
}

/// docs/operations.md's metrics section: the table of families, and the
/// alert rules (the YAML block).
fn metrics_section() -> (&'static str, &'static str) {
    let operations = include_str!("../../docs/operations.md");
    let start = operations.find("## Metrics").expect("a metrics section");
    let section = &operations[start..start + operations[start..].find("\n## Overload").expect("its end")];
    let (table, rules) = section.split_once("```yaml\n").expect("the alert rules");
    (table, rules.split_once("```").expect("the rules' end").0)
}

#[test]
fn the_dashboard_and_the_alert_rules_chart_documented_families_only() {
    let (table, rules) = metrics_section();
    let documented = families_named(table);
    assert!(documented.len() >= 15, "{documented:?}");
    let dashboard: serde_json::Value =
        serde_json::from_str(include_str!("../../docs/grafana-dashboard.json")).expect("the dashboard is JSON");
    let panels = dashboard["panels"].as_array().expect("panels");
    let exprs: String = panels
        .iter()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .map(|t| t["expr"].as_str().expect("a query").to_string() + "\n")
        .collect();
    let charted = families_named(&exprs);
    assert!(
        charted.is_subset(&documented),
        "{:?}",
        charted.difference(&documented).collect::<Vec<_>>()
    );
    assert_eq!(charted, documented, "every documented family has a panel");
    let alerted = families_named(rules);
    assert!(
        alerted.is_subset(&documented),
        "{:?}",
        alerted.difference(&documented).collect::<Vec<_>>()
    );
}

/// Prometheus' own checker accepts the documented rules. CI installs
/// Debian's `prometheus` for it and sets `ISSUING_PROMTOOL=required`;
/// elsewhere, without `promtool`, the test says so and passes.
#[test]
fn promtool_accepts_the_alert_rules() {
    let (_, rules) = metrics_section();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("issuing.rules.yml");
    std::fs::write(&file, rules).unwrap();
    let checked = match std::process::Command::new("promtool")
        .arg("check")
        .arg("rules")
        .arg(&file)
        .output()
    {
        Ok(checked) => checked,
        Err(e) => {
            let required = std::env::var("ISSUING_PROMTOOL").is_ok_and(|v| v == "required");
            assert!(!required, "ISSUING_PROMTOOL=required, but promtool does not run: {e}");
            eprintln!("note: no promtool: the rules were not checked (apt install prometheus)");
            return;
        }
    };
    let said = String::from_utf8_lossy(&checked.stdout).into_owned() + &String::from_utf8_lossy(&checked.stderr);
    assert!(checked.status.success(), "{said}");
    // Every rule the document writes is one promtool read.
    let written = rules.matches("- alert:").count();
    assert!(written >= 6, "{rules}");
    assert!(said.contains(&format!("SUCCESS: {written} rules found")), "{said}");
}

//! docs/api.md and docs/webhooks.md are the reference an integrator reads
//! instead of the source: these tests hold them to it. The error catalogue
//! is every code the source returns and the docs' table of codes; every
//! operation of the OpenAPI document is in the docs, and every one that
//! answers 420 is in their table of rate limits; every event is in the
//! webhooks table.

use issuing_api::error_codes::CATALOGUE;
use regex::Regex;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn rust_sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The codes the source can answer with: the literals of every `fn
/// code(...) -> &'static str` body (errors and decline reasons), and the
/// code of every `ApiError::new` the api crate builds itself.
fn codes_in_the_source() -> BTreeSet<String> {
    let code_fn = Regex::new(r"(?m)^( *)(?:pub )?fn code\(&?self\) -> &'static str \{").unwrap();
    let literal = Regex::new(r#""([a-z][a-z0-9_]*)""#).unwrap();
    let built = Regex::new(r#"ApiError::new\(\s*[^,]+,\s*"([a-z_]+)""#).unwrap();
    let mut files = Vec::new();
    for layer in ["domain", "ports", "app", "api"] {
        rust_sources(&repo().join("crates").join(layer).join("src"), &mut files);
    }
    let mut codes = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for found in code_fn.captures_iter(&text) {
            let body_start = found.get(0).unwrap().end();
            let close = format!("\n{}}}", &found[1]);
            let body_end = body_start + text[body_start..].find(&close).expect("the function ends");
            codes.extend(
                literal
                    .captures_iter(&text[body_start..body_end])
                    .map(|c| c[1].to_string()),
            );
        }
        codes.extend(built.captures_iter(&text).map(|c| c[1].to_string()));
    }
    codes
}

/// The rows of the markdown table that follows `heading` in `doc`.
fn table_after(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("no {heading:?}"));
    doc[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_string())
                .collect()
        })
        .collect()
}

fn unticked(cell: &str) -> &str {
    cell.trim_matches('`')
}

#[test]
fn every_code_the_source_returns_is_catalogued_and_nothing_else() {
    let catalogued: BTreeSet<String> = CATALOGUE.iter().map(|c| c.code.to_string()).collect();
    assert_eq!(catalogued.len(), CATALOGUE.len(), "a code is catalogued twice");
    let source = codes_in_the_source();
    let missing: Vec<_> = source.difference(&catalogued).collect();
    let stale: Vec<_> = catalogued.difference(&source).collect();
    assert!(
        missing.is_empty(),
        "codes the source returns but the catalogue lacks: {missing:?}"
    );
    assert!(stale.is_empty(), "catalogued codes nothing returns: {stale:?}");
}

#[test]
fn the_docs_table_of_error_codes_is_the_catalogue() {
    let rows = table_after(&read("docs/api.md"), "## Error codes");
    let documented: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (unticked(&r[0]).to_string(), r[1].clone(), r[2].clone()))
        .collect();
    let catalogue: Vec<(String, String, String)> = CATALOGUE
        .iter()
        .map(|c| (c.code.to_string(), c.status.to_string(), c.meaning.to_string()))
        .collect();
    assert_eq!(documented, catalogue);
}

/// The document, and each operation's name: the last segment of its path
/// that is not a parameter (`get_card_balance`, `delete_card`).
fn operations() -> (serde_json::Value, Vec<(String, serde_json::Value)>) {
    let doc = issuing_api::openapi::document(&issuing_api::PublicUrls::default());
    let mut named = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let name = path.rsplit('/').find(|s| !s.starts_with('{')).unwrap().to_string();
        for (_, op) in item.as_object().unwrap().iter().filter(|(k, _)| *k != "servers") {
            named.push((name.clone(), op.clone()));
        }
    }
    (doc, named)
}

#[test]
fn every_operation_of_the_document_is_in_the_docs() {
    let docs = read("docs/api.md") + &read("docs/webhooks.md") + &read("docs/rewards.md");
    let (_, named) = operations();
    let missing: BTreeSet<_> = named
        .iter()
        .map(|(n, _)| n)
        .filter(|n| !docs.contains(n.as_str()))
        .collect();
    assert!(missing.is_empty(), "operations the docs never name: {missing:?}");
}

#[test]
fn the_docs_table_of_rate_limits_names_every_operation_that_answers_420() {
    let (_, named) = operations();
    let limited: BTreeSet<String> = named
        .iter()
        .filter(|(_, op)| op["responses"].get("420").is_some())
        .map(|(n, _)| n.clone())
        .collect();
    let rows = table_after(&read("docs/api.md"), "## Rate limits");
    let tick = Regex::new(r"`([a-z_\-]+)`").unwrap();
    let documented: BTreeSet<String> = rows
        .iter()
        .flat_map(|r| tick.captures_iter(&r[0]).map(|c| c[1].to_string()).collect::<Vec<_>>())
        .collect();
    assert_eq!(documented, limited);
}

#[test]
fn every_event_is_in_the_webhooks_table() {
    let rows = table_after(&read("docs/webhooks.md"), "## Events");
    let documented: BTreeSet<&str> = rows.iter().map(|r| unticked(&r[0])).collect();
    let sent: BTreeSet<&str> = domain::events::ALL.into_iter().collect();
    assert_eq!(documented, sent);
}

/// A path as the docs write it, without the parts they vary: the relay's
/// address, `/v1/issuing`, and the sandbox segment (bracketed or not).
fn bare(path: &str) -> String {
    let path = path.trim_start_matches("{relay}");
    ["/v1/issuing[/sandbox]", "/v1/issuing/sandbox", "/v1/issuing"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))
        .unwrap_or(path)
        .to_string()
}

/// The query parameters an operation of the document takes.
fn query_parameters(op: &serde_json::Value) -> BTreeSet<String> {
    op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["in"] == "query")
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

/// Every request docs/api.md writes out runs as written: `GET
/// /cards/get_card_balance?card_id=` is an operation of the document with
/// that method, and takes those query parameters; `get_all_lga?state=`
/// (an operation by its name) takes them too. A reader following the docs
/// literally once sent a query parameter no endpoint read.
#[test]
fn every_request_docs_api_writes_out_is_one_the_service_takes() {
    let docs = read("docs/api.md");
    let (doc, named) = operations();
    let mut checked = 0;
    let with_method = Regex::new(r"`(GET|POST|PATCH|PUT|DELETE) (\{relay\})?(/[^`?\s]*)(\?[^`\s]*)?`").unwrap();
    // The document describes the API, not itself.
    let the_document = ["/v1/openapi.json", "/v1/docs"];
    for found in with_method
        .captures_iter(&docs)
        .filter(|f| !the_document.contains(&&f[3]))
    {
        let relay = found.get(2).map_or("", |m| m.as_str());
        let (method, path) = (found[1].to_lowercase(), bare(&format!("{relay}{}", &found[3])));
        let ops: Vec<&serde_json::Value> = doc["paths"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(p, _)| bare(p) == path)
            .filter_map(|(_, item)| item.get(&method))
            .collect();
        assert!(!ops.is_empty(), "docs/api.md writes {}: no such operation", &found[0]);
        let asked = found.get(4).map_or("", |q| q.as_str());
        for name in asked.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
            let name = name.split('=').next().unwrap();
            assert!(
                ops.iter().all(|op| query_parameters(op).contains(name)),
                "docs/api.md writes {}: the operation takes no query parameter {name}",
                &found[0]
            );
        }
        checked += 1;
    }
    let by_name = Regex::new(r"`([a-z_]+)\?([a-z_]+=[^`\s]*)`").unwrap();
    for found in by_name.captures_iter(&docs) {
        let ops: Vec<&serde_json::Value> = named.iter().filter(|(n, _)| *n == found[1]).map(|(_, op)| op).collect();
        assert!(!ops.is_empty(), "docs/api.md writes {}: no such operation", &found[0]);
        for name in found[2].split('&').filter_map(|p| p.split('=').next()) {
            assert!(
                ops.iter().any(|op| query_parameters(op).contains(name)),
                "docs/api.md writes {}: the operation takes no query parameter {name}",
                &found[0]
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} requests checked");
}

//! The README's walk-through, run as written against a fresh server:
//! every command in order, each answer holding every field its comment
//! shows. A walk-through that drifts from the service fails here.

use crate::harness::{Server, ledger_check};
use adapters::test_db::TestDb;
use std::collections::BTreeMap;
use std::process::Command;

const README: &str = include_str!("../../README.md");

/// The shell blocks of the walk-through, in order.
fn walk_through() -> Vec<&'static str> {
    let start = README.find("## Walk-through").expect("a walk-through");
    let end = start + README[start..].find("Then stop the service").expect("its end");
    README[start..end]
        .split("```sh\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap())
        .collect()
}

/// A step of a block: a command (continuation lines joined) and the
/// answer its comment shows, if any.
struct Step {
    command: String,
    shown: Option<String>,
}

fn steps(block: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut pending = String::new();
    for line in block.lines() {
        if let Some(comment) = line.strip_prefix("# ") {
            let answer = comment.starts_with('{') || comment.starts_with("...");
            if let (true, Some(last)) = (answer && pending.is_empty(), steps.last_mut()) {
                last.shown = Some(comment.to_string());
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        pending.push_str(line);
        pending.push('\n');
        if !line.ends_with('\\') && !open_quote(&pending) {
            steps.push(Step {
                command: std::mem::take(&mut pending),
                shown: None,
            });
        }
    }
    steps
}

/// Whether a command still has a quoted string open (a JSON body written
/// over several lines), as bash reads quotes.
fn open_quote(command: &str) -> bool {
    let mut quote = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            _ => {}
        }
    }
    quote.is_some()
}

/// The `"field":value` pairs an answer's comment shows, but those whose
/// value the reader fills in (`card_...`) or elides.
fn shown_fields(shown: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut rest = shown;
    while let Some(at) = rest.find('"') {
        rest = &rest[at..];
        let Some(colon) = rest.find("\":") else { break };
        let key = &rest[..colon + 2];
        let value_start = &rest[colon + 2..];
        let end = if let Some(inner) = value_start.strip_prefix('"') {
            inner.find('"').map(|i| i + 2)
        } else {
            value_start
                .find([',', '}'])
                .filter(|_| !value_start.starts_with(['{', '[']))
        };
        match end {
            Some(end) => {
                let value = &value_start[..end];
                if !value.contains("...") && !value.starts_with(['{', '[']) {
                    fields.push(format!("{key}{value}"));
                }
                rest = &value_start[end..];
            }
            None => rest = value_start,
        }
    }
    fields
}

fn sh(command: &str, env: &BTreeMap<String, String>) -> String {
    let out = Command::new("bash")
        .args(["-c", command])
        .envs(env)
        .output()
        .expect("bash runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_walk_through_runs_as_written() {
    let db = TestDb::sqlite();
    let server = Server::start(&db);
    let mut env = BTreeMap::new();
    let mut last = String::new();
    let (mut checked, mut answers) = (0, 0);
    for block in walk_through() {
        for step in steps(block) {
            let command = step
                .command
                .replace("http://127.0.0.1:8080", &server.base)
                .replace("http://127.0.0.1:8081", &server.relay);
            // `NAME=value` lines: a pasted value comes from the service.
            if let Some((name, value)) = command.trim().split_once('=')
                && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            {
                let answer = serde_json::from_str::<serde_json::Value>(&last).unwrap_or_default();
                let value = match name {
                    _ if !value.contains("paste") => sh(&format!("echo {value}"), &env).trim().to_string(),
                    "KEY" => server.demo_key.clone(),
                    "CH" => answer["data"]["cardholder_id"]
                        .as_str()
                        .expect("a cardholder id")
                        .to_string(),
                    "CARD" => answer["data"]["card_id"].as_str().expect("a card id").to_string(),
                    // What the README's Python prints (run with the
                    // reference library by the test below).
                    "PIN" => adapters::crypto::aes_everywhere::encrypt(
                        b"1234",
                        &domain::Secret::new(server.demo_key.clone()),
                    ),
                    other => panic!("nothing to paste into {other}"),
                };
                env.insert(name.to_string(), value);
                continue;
            }
            last = sh(&command, &env);
            if let Some(shown) = step.shown {
                answers += 1;
                for field in shown_fields(&shown) {
                    assert!(last.contains(&field), "{command}\nshows {field}\nanswered {last}");
                    checked += 1;
                }
            }
        }
    }
    // Every answer the walk-through shows was compared, field by field.
    let shown = walk_through()
        .iter()
        .flat_map(|b| b.lines())
        .filter(|l| l.starts_with("# {") || l.starts_with("# ..."))
        .count();
    assert_eq!(answers, shown);
    assert!(checked >= 20, "{checked} fields checked");
    drop(server);
    let (passed, report) = ledger_check(&db);
    assert!(passed, "{report}");
}

#[test]
fn shown_fields_are_the_literal_pairs_of_a_comment() {
    let shown = r#"{"status":"success",...,"data":{"card_id":"card_...","balance":"1000","ok":true,"n":3}}"#;
    assert_eq!(
        shown_fields(shown),
        [
            r#""status":"success""#,
            r#""balance":"1000""#,
            r#""ok":true"#,
            r#""n":3"#
        ]
    );
}

/// A fenced block of `language` in `doc`, the `nth` one.
fn block<'a>(doc: &'a str, language: &str, nth: usize) -> &'a str {
    let fence = format!("```{language}\n");
    let start = doc.match_indices(&fence).nth(nth).expect("the block").0 + fence.len();
    &doc[start..start + doc[start..].find("```").unwrap()]
}

/// Whether `python3` can import `module` (a test that needs it says so
/// and stops where it cannot; CI installs every one).
pub(crate) fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

pub(crate) fn run_with(program: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A new account's sandbox test event, as its endpoint received it, with
/// the account's test key and test webhook secret.
async fn a_delivered_test_event() -> (crate::receiver::Delivery, String, String) {
    let receiver = crate::receiver::Receiver::start();
    let db = TestDb::sqlite();
    let server = Server::start(&db);
    let created = crate::harness::create_account(&db, Some(&receiver.url));
    let (key, secret) = (
        created["test_secret_key"].as_str().unwrap().to_string(),
        created["test_webhook_secret"].as_str().unwrap().to_string(),
    );
    let sent = crate::harness::client()
        .post(server.url("/v1/issuing/sandbox/webhook/test"))
        .header("token", crate::harness::bearer(&key))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 202);
    assert!(receiver.wait_for(20, |r| !r.deliveries().is_empty()).await);
    (receiver.deliveries().remove(0), key, secret)
}

/// docs/webhooks.md's Python and Node `verify` accept what the service
/// signs and refuse another secret, another body, and a malformed header,
/// without throwing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_verification_snippets_verify_a_real_delivery() {
    let doc = include_str!("../../docs/webhooks.md");
    let (delivery, _, secret) = a_delivered_test_event().await;
    let secret = secret.as_str();
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body");
    std::fs::write(&body, &delivery.body).unwrap();
    let tampered = dir.path().join("tampered");
    std::fs::write(&tampered, delivery.body.replace("test", "TEST")).unwrap();
    let header = delivery.issuing_signature.as_str();
    let short = format!("{},v1=abc", header.split(',').next().unwrap());
    let cases = [
        (body.to_str().unwrap(), header, secret, "true"),
        (body.to_str().unwrap(), header, "whsec_another", "false"),
        (tampered.to_str().unwrap(), header, secret, "false"),
        (body.to_str().unwrap(), short.as_str(), secret, "false"),
        (body.to_str().unwrap(), "garbage", secret, "false"),
    ];

    let python = block(doc, "python", 1);
    let verify = &python[python.find("def verify").unwrap()..python.find("app = Flask").unwrap()];
    let python = format!(
        "import hashlib, hmac, sys, time\n{verify}\nprint(str(verify(open(sys.argv[1], 'rb').read(), sys.argv[2], sys.argv[3])).lower())"
    );
    let node = block(doc, "javascript", 1);
    let verify = &node[node.find("function verify").unwrap()..node.find("const app").unwrap()];
    let node = format!(
        "const crypto = require('crypto');\n{verify}\nconst [file, header, secret] = process.argv.slice(1);\n\
         console.log(String(verify(require('fs').readFileSync(file), header, secret)));"
    );
    // Node is there wherever CI runs (the TypeScript client needs it); a
    // machine without it checks the Python snippet alone.
    let has_node = Command::new("node").arg("--version").output().is_ok();
    if !has_node {
        eprintln!("node is not installed: the Node snippet is not checked");
    }
    for (file, header, secret, expected) in cases {
        let answered = run_with("python3", &["-c", &python, file, header, secret], &[]);
        assert_eq!(answered, expected, "Python, {header}");
        if has_node {
            let answered = run_with("node", &["-e", &node, file, header, secret], &[]);
            assert_eq!(answered, expected, "Node, {header}");
        }
    }
}

/// docs/webhooks.md's Standard Webhooks snippets, with the maintained
/// `standardwebhooks` packages, accept a real delivery and refuse another
/// secret, another body and another time (skipped, saying so, where Python
/// lacks the package; CI installs it). The Node one runs where npm can
/// install its package.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standard_webhooks_packages_verify_a_real_delivery() {
    if !python_has("standardwebhooks") {
        eprintln!("python3 lacks standardwebhooks (pip install standardwebhooks): the snippets are not run");
        return;
    }
    let doc = include_str!("../../docs/webhooks.md");
    let (delivery, _, secret) = a_delivered_test_event().await;
    let [id, timestamp, signature] = &delivery.standard;
    assert_eq!(id, &delivery.event_id, "webhook-id is the event's id");
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body");
    std::fs::write(&body, &delivery.body).unwrap();
    let tampered = dir.path().join("tampered");
    std::fs::write(&tampered, delivery.body.replace("test", "TEST")).unwrap();
    let (body, tampered) = (body.to_str().unwrap(), tampered.to_str().unwrap());
    let later = (timestamp.parse::<i64>().unwrap() + 1).to_string();
    let another = "whsec_dGhlIG90aGVyIHNlY3JldCBvZiB0aGlydHktdHdvIGJ5dGVzIQ==";
    let cases = [
        (body, timestamp.as_str(), secret.as_str(), id.as_str()),
        (body, timestamp.as_str(), another, "null"),
        (tampered, timestamp.as_str(), secret.as_str(), "null"),
        (body, later.as_str(), secret.as_str(), "null"),
    ];
    let python = format!(
        "import sys\n{}\nheaders = {{'Webhook-Id': sys.argv[2], 'Webhook-Timestamp': sys.argv[3], 'Webhook-Signature': sys.argv[4]}}\n\
         event = verified_event(open(sys.argv[1], 'rb').read(), headers, sys.argv[5])\n\
         print('null' if event is None else event['event_id'])",
        block(doc, "python", 0)
    );
    let modules = dir.path().join("node");
    let has_node = Command::new("npm")
        .args([
            "install",
            "--silent",
            "--prefix",
            modules.to_str().unwrap(),
            "standardwebhooks@1",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_node {
        eprintln!("npm could not install standardwebhooks: the Node snippet is not checked");
    }
    let node = format!(
        "{}\nconst [file, id, timestamp, signature, secret] = process.argv.slice(1);\n\
         const headers = {{'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature}};\n\
         const event = verifiedEvent(require('fs').readFileSync(file, 'utf8'), headers, secret);\n\
         console.log(event === null ? 'null' : event.event_id);",
        block(doc, "javascript", 0)
    );
    let node_path = modules.join("node_modules");
    for (file, timestamp, secret, expected) in cases {
        let args = [file, id.as_str(), timestamp, signature.as_str(), secret];
        let answered = run_with("python3", &[&["-c", python.as_str()][..], &args].concat(), &[]);
        assert_eq!(answered, expected, "Python, {secret} {timestamp}");
        if has_node {
            let env = [("NODE_PATH", node_path.to_str().unwrap())];
            let answered = run_with("node", &[&["-e", node.as_str()][..], &args].concat(), &env);
            assert_eq!(answered, expected, "Node, {secret} {timestamp}");
        }
    }
}

/// docs/api.md's processor call, run as written against a service with a
/// sandbox processor secret: approved, and a second run too (its reference
/// is its own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_processor_snippet_runs_as_written() {
    let secret = "a-sandbox-processor-secret-of-32-chars-or-more";
    let db = TestDb::sqlite();
    let s = crate::cards::Sandbox::start_with(&db, None, &["--sandbox-processor-secret", secret]);
    s.fund_wallet(100_000).await;
    let holder = s.cardholder(61).await;
    let card = s.card(&holder, "5000").await;
    let snippet = block(include_str!("../../docs/api.md"), "python", 0);
    for _ in 0..2 {
        let env = [
            ("ISSUING_URL", s.server.base.as_str()),
            ("PROCESSOR_SECRET", secret),
            ("CARD_ID", card.as_str()),
        ];
        let answered = run_with("python3", &["-c", snippet], &env);
        assert!(answered.contains("\"decision\":\"approve\""), "{answered}");
    }
}

/// The README's PIN snippet and docs/webhooks.md's check of
/// `x-webhook-signature`, run with the reference AES Everywhere library
/// (skipped, saying so, where Python lacks it; CI installs it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_aes_everywhere_snippets_run_with_the_reference_library() {
    if !python_has("AesEverywhere") {
        eprintln!("python3 lacks aes-everywhere (pip install aes-everywhere): the snippets are not run");
        return;
    }
    let key = "sk_test_0123456789abcdef";
    let placeholder = "KEY = \"sk_test_paste_the_printed_key_here\"";
    let snippet = block(README, "python", 0);
    assert!(snippet.contains(placeholder), "{snippet}");
    let pin = snippet.replace(placeholder, "import sys\nKEY = sys.argv[1]");
    let ciphertext = run_with("python3", &["-c", &pin, key], &[]);
    let plain = adapters::crypto::aes_everywhere::decrypt(&ciphertext, &domain::Secret::new(key.to_string()));
    assert_eq!(plain.unwrap().expose(), b"1234", "{ciphertext}");

    let (delivery, key, secret) = a_delivered_test_event().await;
    let (header, key, secret) = (delivery.webhook_signature, key.as_str(), secret.as_str());
    let check = format!(
        "import sys\n{}\nprint(legacy_signature_ok(*sys.argv[1:]))",
        block(include_str!("../../docs/webhooks.md"), "python", 2)
    );
    for (webhook_secret, expected) in [(secret, "True"), ("whsec_another", "False")] {
        let answered = run_with("python3", &["-c", &check, &header, key, webhook_secret], &[]);
        assert_eq!(answered, expected, "{webhook_secret}");
    }
}

/// docs/production.md's go-live checklist, its commands run as written on
/// a fresh database of each kind, `/etc/issuing` a directory of the
/// test's: the key file made 0600, the schema migrated, an account and an
/// operator made, the rails shown, the ledger check passing. The
/// reconciliation, its last line, meets the simulator here (exit 2,
/// nothing to reconcile); tests/e2e/reconciliation.rs runs it on Sudo's
/// fake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_go_live_checklists_commands_run_as_written() {
    let doc = include_str!("../../docs/production.md");
    let checklist = &doc[doc.find("## Go-live checklist").expect("the checklist")..];
    let commands = block(checklist, "sh", 0);
    let bin_dir = crate::harness::binary().parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    for db in TestDb::all().await {
        let etc = tempfile::tempdir().unwrap();
        let script = commands.replace("/etc/issuing", etc.path().to_str().unwrap());
        let reconcile = "issuing reconcile transactions --mode live\n";
        assert!(script.ends_with(reconcile), "{script}");
        let key = etc.path().join("master.key");
        let run = |script: &str| {
            Command::new("bash")
                .args(["-e", "-c", script])
                .env_clear()
                .env("PATH", &path)
                .env("DATABASE_URL", db.url())
                .env("ISSUING_MASTER_KEY_FILE", &key)
                .output()
                .expect("bash runs")
        };
        let out = run(script.strip_suffix(reconcile).unwrap());
        let (said, errors) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{}: {said}\n{errors}", db.backend());
        let reconciled = run(reconcile);
        assert_eq!(reconciled.status.code(), Some(2), "{}", db.backend());
        let nothing = String::from_utf8_lossy(&reconciled.stderr);
        assert!(nothing.contains("nothing to reconcile"), "{nothing}");
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600, "{}", db.backend());
        for shown in [
            "migrations: the schema is up to date",
            "\"account_id\":",
            "https://ops.acme.ng/set-password?token=",
        ] {
            assert!(said.contains(shown), "{}: {shown} not in {said}", db.backend());
        }
    }
}

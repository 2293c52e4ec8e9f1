use crate::harness::{PG_MASTER_KEY, Server, bearer, client, issuing, ledger_check, run};
use adapters::test_db::TestDb;
use serde_json::Value;

fn create_account(db: &TestDb, extra: &[&str]) -> std::process::Output {
    run(issuing(db)
        .args(["accounts", "create", "--name", "Acme Fintech"])
        .args(extra))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_create_prints_keys_that_work_only_in_their_own_mode() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let out = create_account(&db, &["--webhook-url", "https://acme.test/hooks"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let created: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        let (test, live) = (
            created["test_secret_key"].as_str().unwrap(),
            created["live_secret_key"].as_str().unwrap(),
        );
        assert!(created["account_id"].as_str().unwrap().starts_with("acct_"));
        assert!(test.starts_with("sk_test_") && test.len() >= "sk_test_".len() + 32);
        assert!(live.starts_with("sk_live_") && live.len() >= "sk_live_".len() + 32);
        let (test_secret, live_secret) = (
            created["test_webhook_secret"].as_str().unwrap(),
            created["live_webhook_secret"].as_str().unwrap(),
        );
        assert!(test_secret.starts_with("whsec_") && live_secret.starts_with("whsec_"));
        assert_ne!(test_secret, live_secret, "each mode signs with its own secret");

        let sandbox = server.url("/v1/issuing/sandbox/cards/get_issuing_wallet_balance");
        let production = server.url("/v1/issuing/cards/get_issuing_wallet_balance");
        let get = |url: &str, key: Option<&str>| {
            let mut req = client().get(url);
            if let Some(k) = key {
                req = req.header("token", bearer(k));
            }
            req.send()
        };
        assert_eq!(
            get(&sandbox, Some(test)).await.unwrap().status(),
            200,
            "{}",
            db.backend()
        );
        assert_eq!(get(&production, Some(live)).await.unwrap().status(), 200);
        for (url, key) in [
            (&sandbox, Some(live)),
            (&production, Some(test)),
            (&sandbox, None),
            (&production, None),
        ] {
            let response = get(url, key).await.unwrap();
            assert_eq!(response.status(), 401, "{url} {key:?}");
            let body: Value = response.json().await.unwrap();
            assert!(body["message"].is_string() && body["code"].is_string(), "{body}");
        }
        let forged = format!("sk_test_{}", "x".repeat(40));
        assert_eq!(get(&sandbox, Some(&forged)).await.unwrap().status(), 401);
        // As Stripe's and Lithic's clients send a key: the same, by name.
        let by_authorization = |url: &str, key: &str| client().get(url).header("Authorization", bearer(key)).send();
        assert_eq!(by_authorization(&sandbox, test).await.unwrap().status(), 200);
        assert_eq!(by_authorization(&production, live).await.unwrap().status(), 200);
        assert_eq!(by_authorization(&production, test).await.unwrap().status(), 401);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_create_rejects_a_bad_webhook_url_and_stores_nothing() {
    for db in TestDb::all().await {
        assert!(run(issuing(&db).arg("migrate")).status.success());
        let out = create_account(&db, &["--webhook-url", "ftp://acme.test"]);
        assert!(!out.status.success(), "{}", db.backend());
        assert!(String::from_utf8_lossy(&out.stderr).contains("webhook_url"));
        assert!(out.stdout.is_empty());
        // Nothing was stored, so the next start still sees an empty
        // database and makes the demo account.
        let server = Server::start(&db);
        assert!(server.demo_key.starts_with("sk_test_"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_the_master_key_and_the_demo_key() {
    for db in TestDb::all().await {
        let first = Server::start(&db).demo_key.clone();
        let second = Server::start(&db);
        assert_eq!(second.demo_key, first, "{}", db.backend());
        let response = client()
            .get(second.url("/v1/issuing/sandbox/cards/get_issuing_wallet_balance"))
            .header("token", bearer(&first))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_with_a_wrong_key_is_refused_on_both_databases() {
    let other = "ff".repeat(32);
    for db in TestDb::all().await {
        Server::start(&db).stop();
        let out = run(issuing(&db)
            .env("ISSUING_MASTER_KEY", &other)
            .args(["accounts", "create", "--name", "X"]));
        assert!(!out.status.success(), "{}", db.backend());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("does not open the data in this database"),
            "{}: {err}",
            db.backend()
        );
        assert!(!err.contains(&other), "the key is echoed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_file_that_is_missing_or_readable_by_others_is_refused_and_never_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let db = TestDb::sqlite();
    let demo = Server::start(&db).demo_key.clone();
    let key_file = format!("{}.master.key", db.url().strip_prefix("sqlite://").unwrap());
    let create = || run(issuing(&db).args(["accounts", "create", "--name", "X"]));

    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = create();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("can be read by others"));
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();

    let saved = std::fs::read_to_string(&key_file).unwrap();
    std::fs::remove_file(&key_file).unwrap();
    let out = create();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is missing, but the database holds data sealed"));
    assert!(!std::path::Path::new(&key_file).exists(), "a new key was generated");

    // The key from a file of the operator's choosing, not the environment.
    let elsewhere = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(elsewhere.path(), &saved).unwrap();
    std::fs::set_permissions(elsewhere.path(), std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(issuing(&db)
        .env("ISSUING_MASTER_KEY_FILE", elsewhere.path())
        .args(["accounts", "create", "--name", "X"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    std::fs::write(&key_file, &saved).unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(Server::start(&db).demo_key, demo, "the restored key opens everything");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolled_key_overlaps_its_successor_until_it_expires_and_a_revoked_one_stops_at_once() {
    for db in TestDb::all().await {
        // Every request looks its key up: "at once" means the next request.
        let server = Server::start_with(&db, &["--key-cache-secs", "0"]);
        let created: Value = serde_json::from_slice(&create_account(&db, &[]).stdout).unwrap();
        let account = created["account_id"].as_str().unwrap();
        let (old_test, old_live) = (
            created["test_secret_key"].as_str().unwrap(),
            created["live_secret_key"].as_str().unwrap(),
        );
        let status = |key: String, path: &'static str| {
            let url = server.url(path);
            async move {
                client()
                    .get(url)
                    .header("token", bearer(&key))
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16()
            }
        };
        let (sandbox, production) = ("/v1/issuing/sandbox/events", "/v1/issuing/events");
        let roll = |mode: &str, overlap: &str| {
            run(issuing(&db).args([
                "accounts",
                "roll-key",
                account,
                "--mode",
                mode,
                "--expire-old-in",
                overlap,
            ]))
        };

        // A roll with an overlap: both keys work until the old one expires.
        let rolled = roll("test", "1h");
        assert!(rolled.status.success(), "{}", String::from_utf8_lossy(&rolled.stderr));
        let rolled: Value = serde_json::from_slice(&rolled.stdout).unwrap();
        let new_test = rolled["secret_key"].as_str().unwrap().to_string();
        assert!(new_test.starts_with("sk_test_") && new_test != old_test);
        assert_eq!(status(new_test.clone(), sandbox).await, 200, "{}", db.backend());
        assert_eq!(status(old_test.into(), sandbox).await, 200, "the overlap");

        // A roll ends every earlier key's overlap by its own end: a key
        // still overlapping from the last roll stops with a 0s roll too.
        let interim: Value = serde_json::from_slice(&roll("test", "7d").stdout).unwrap();
        let interim = interim["secret_key"].as_str().unwrap().to_string();
        let latest: Value = serde_json::from_slice(&roll("test", "0s").stdout).unwrap();
        for earlier in [&new_test, &interim] {
            assert_eq!(status(earlier.clone(), sandbox).await, 401, "{}", db.backend());
        }
        let new_test = latest["secret_key"].as_str().unwrap().to_string();
        assert_eq!(status(old_test.into(), sandbox).await, 401);
        assert_eq!(status(new_test.clone(), sandbox).await, 200);

        // The default: the old key stops now.
        let rolled: Value = serde_json::from_slice(&roll("live", "0s").stdout).unwrap();
        let new_live = rolled["secret_key"].as_str().unwrap().to_string();
        assert_eq!(status(old_live.into(), production).await, 401);
        assert_eq!(status(new_live.clone(), production).await, 200);
        assert_eq!(status(new_live, sandbox).await, 401, "still one mode per key");

        // Listed without the keys; revoked by id, a key in its overlap
        // stops at once.
        let overlapping = new_test;
        let rolled: Value = serde_json::from_slice(&roll("test", "1h").stdout).unwrap();
        let new_test = rolled["secret_key"].as_str().unwrap().to_string();
        assert_eq!(status(overlapping.clone(), sandbox).await, 200, "in its overlap");
        let listed = run(issuing(&db).args(["accounts", "keys", account]));
        let keys: Vec<Value> = String::from_utf8_lossy(&listed.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(keys.len(), 7, "{keys:?}");
        assert!(!String::from_utf8_lossy(&listed.stdout).contains("sk_"));
        let overlapping_id = keys
            .iter()
            .filter(|k| k["livemode"] == false)
            .max_by_key(|k| k["expires_at"].as_i64().unwrap_or(i64::MIN))
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let revoked = run(issuing(&db).args(["accounts", "revoke-key", account, &overlapping_id]));
        assert!(revoked.status.success(), "{}", String::from_utf8_lossy(&revoked.stderr));
        assert_eq!(status(overlapping, sandbox).await, 401, "{}", db.backend());
        assert_eq!(status(new_test, sandbox).await, 200);

        // Refusals change nothing.
        for (args, says) in [
            (
                vec!["roll-key", account, "--mode", "test", "--expire-old-in", "8d"],
                "7d",
            ),
            (
                vec!["roll-key", account, "--mode", "test", "--expire-old-in=-1s"],
                "-1s",
            ),
            (vec!["roll-key", "acct_nobody", "--mode", "test"], "no account"),
            (vec!["revoke-key", account, &overlapping_id], "no unexpired key"),
            (vec!["revoke-key", account, "%"], "no unexpired key"),
            (vec!["keys", "acct_nobody"], "no account"),
        ] {
            let out = run(issuing(&db).arg("accounts").args(&args));
            assert!(!out.status.success(), "{args:?}");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(says),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let listed = run(issuing(&db).args(["accounts", "keys", account]));
        assert_eq!(String::from_utf8_lossy(&listed.stdout).lines().count(), 7);
    }
}

/// The master key `db` was created with.
fn master_key_of(db: &TestDb) -> String {
    match db.url().strip_prefix("sqlite://") {
        Some(path) => std::fs::read_to_string(format!("{path}.master.key")).unwrap(),
        None => PG_MASTER_KEY.to_string(),
    }
}

/// The card's number, read in clear through the relay.
async fn card_number(s: &crate::cards::Sandbox, card: &str) -> String {
    s.advance(3).await;
    let path = format!("/cards/get_card_details?card_id={card}");
    let details = s.call_at(&s.server.relay, reqwest::Method::GET, &path, None).await;
    assert_eq!(details.status, 200, "{}", details.body);
    details.body["data"]["card_number"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_master_key_rotates_while_the_service_runs_and_the_old_key_then_opens_nothing() {
    use crate::cards::Sandbox;
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(52).await;
        let card = s.card(&holder, "1000").await;
        let before = card_number(&s, &card).await;
        assert!(before.len() >= 15 && before.chars().all(|c| c.is_ascii_digit()));
        let mut ops = crate::dashboard::operator(&db, &s.server).await;
        ops.set_up_two_step().await;
        let (old, new) = (master_key_of(&db), "ab".repeat(32));
        let both = [
            ("ISSUING_MASTER_KEY", new.as_str()),
            ("ISSUING_PREVIOUS_MASTER_KEY", old.as_str()),
        ];
        let Sandbox { server, key } = s;
        server.stop();

        // Restarted with both keys, the service reads what the old one
        // sealed, and keeps running while everything is sealed again.
        let s = Sandbox {
            server: Server::start_env(&db, &both),
            key,
        };
        assert_eq!(card_number(&s, &card).await, before, "{}", db.backend());
        let rotate = || run(issuing(&db).envs(both).args(["master-key", "rotate"]));
        let first = rotate();
        assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
        let first: Value = serde_json::from_slice(&first.stdout).unwrap();
        assert!(first["resealed"].as_u64().unwrap() >= 10, "{first}");
        let again: Value = serde_json::from_slice(&rotate().stdout).unwrap();
        assert_eq!(again["resealed"], 0, "{}: once", db.backend());
        assert_eq!(card_number(&s, &card).await, before);
        let Sandbox { server, key } = s;
        let logs = server.stop();
        assert!(!logs.contains(&new) && !logs.contains(&old), "a master key was logged");

        // The new key alone opens everything; the old one nothing.
        let s = Sandbox {
            server: Server::start_env(&db, &[("ISSUING_MASTER_KEY", new.as_str())]),
            key,
        };
        assert_eq!(card_number(&s, &card).await, before, "{}", db.backend());
        // The operator's second factor was sealed again too.
        ops.moved_to(s.server.dashboard.as_deref().unwrap());
        let signed_in = ops.sign_in("ops@example.ng", crate::dashboard::PASSWORD).await;
        assert_eq!(signed_in.status, 303, "{}", signed_in.body);
        let refused = run(issuing(&db)
            .env("ISSUING_MASTER_KEY", &old)
            .args(["accounts", "create", "--name", "X"]));
        assert!(!refused.status.success());
        assert!(String::from_utf8_lossy(&refused.stderr).contains("does not open the data"));
        let without_previous = run(issuing(&db)
            .env("ISSUING_MASTER_KEY", &new)
            .args(["master-key", "rotate"]));
        assert!(!without_previous.status.success());
        assert!(String::from_utf8_lossy(&without_previous.stderr).contains("ISSUING_PREVIOUS_MASTER_KEY"));
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

/// A process trusts a key it looked up for `--key-cache-secs`: a revoked
/// key keeps working there that long, and no longer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_key_stops_within_the_key_cache_window() {
    for db in TestDb::all().await {
        let server = Server::start_with(&db, &["--key-cache-secs", "3"]);
        let created: Value = serde_json::from_slice(&create_account(&db, &[]).stdout).unwrap();
        let (account, key) = (
            created["account_id"].as_str().unwrap(),
            created["test_secret_key"].as_str().unwrap(),
        );
        let status = || async {
            client()
                .get(server.url("/v1/issuing/sandbox/events"))
                .header("token", bearer(key))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        };
        let looked_up = std::time::Instant::now();
        assert_eq!(status().await, 200, "{}", db.backend());
        let listed = run(issuing(&db).args(["accounts", "keys", account]));
        let keys: Vec<Value> = String::from_utf8_lossy(&listed.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let test_key = keys.iter().find(|k| k["livemode"] == false).unwrap()["id"]
            .as_str()
            .unwrap();
        let revoked = run(issuing(&db).args(["accounts", "revoke-key", account, test_key]));
        assert!(revoked.status.success(), "{}", String::from_utf8_lossy(&revoked.stderr));
        if looked_up.elapsed() < std::time::Duration::from_secs(2) {
            assert_eq!(
                status().await,
                200,
                "{}: trusted while its lookup is fresh",
                db.backend()
            );
        }
        // Three seconds after the lookup at most (counted in whole
        // seconds: within 4), every request refuses it.
        tokio::time::sleep(std::time::Duration::from_millis(4_100).saturating_sub(looked_up.elapsed())).await;
        assert_eq!(status().await, 401, "{}: still trusted past the window", db.backend());
        server.stop();
    }
}

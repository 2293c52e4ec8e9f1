//! Live mode on the real providers' connectors, against fakes built from
//! their documentation (`adapters::connectors::*::fake`): the binary is
//! configured as an operator would, with credentials from the environment.

use crate::cardholders::{account_created, nigerian};
use crate::harness::{Server, bearer, client, get_json, issuing, run};
use crate::receiver::Receiver;
use adapters::connectors::smileid::fake::FakeSmileId;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

const PARTNER: &str = "085";
const LIVE_KEY: &str = "smile-live-api-key";
const LIVE: &str = "/v1/issuing";

fn smileid_env(fake: &FakeSmileId) -> Vec<(&'static str, String)> {
    vec![
        ("ISSUING_KYC_PROVIDER", "smileid".into()),
        ("ISSUING_SMILEID_PARTNER_ID", PARTNER.into()),
        ("ISSUING_SMILEID_API_KEY", LIVE_KEY.into()),
        ("ISSUING_SMILEID_API_URL", fake.url()),
        ("ISSUING_PUBLIC_URL", "https://issuing.example".into()),
    ]
}

fn start(db: &TestDb, env: &[(&'static str, String)]) -> Server {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Server::start_env(db, &env)
}

async fn register(server: &Server, key: &str, sync: bool, bvn: &str, n: u32) -> (u16, Value) {
    let path = match sync {
        true => "register_cardholder_synchronously",
        false => "register_cardholder",
    };
    let mut body = nigerian(n);
    body["identity"]["bvn"] = json!(bvn);
    let response = client()
        .post(server.url(&format!("{LIVE}/cardholder/{path}")))
        .header("token", bearer(key))
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn callback(server: &Server, body: &[u8]) -> (u16, Value) {
    let response = client()
        .post(server.url("/v1/connectors/smileid/callback"))
        .header("content-type", "application/json")
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smile_id_verifies_live_registrations_on_the_spot_and_by_callback() {
    for db in TestDb::all().await {
        let fake = FakeSmileId::start(PARTNER, LIVE_KEY).await;
        let receiver = Receiver::start();
        let server = start(&db, &smileid_env(&fake));
        let key = account_created(&db, Some(&receiver.url))["live_secret_key"]
            .as_str()
            .unwrap()
            .to_string();
        let (_, health) = get_json(&server, &key, "/health").await;
        assert_eq!(health["data"]["live_connectors"], "mixed", "{health}");

        // On the spot: Smile ID's verdict is the answer; a refusal stores nothing.
        let (status, body) = register(&server, &key, true, "22212345670", 1).await;
        assert_eq!(status, 201, "{body}");
        let verified = body["data"]["cardholder_id"].as_str().unwrap();
        let (_, got) = get_json(
            &server,
            &key,
            &format!("{LIVE}/cardholder/get_cardholder?cardholder_id={verified}"),
        )
        .await;
        assert_eq!(got["data"]["is_id_verified"], true, "{got}");
        for (bvn, n, want_status, want_code) in [
            ("22212345671", 2, 400, "identity_not_verifiable"),
            ("22212345674", 3, 400, "name_mismatch"),
            ("22212345673", 4, 504, "kyc_unavailable"),
        ] {
            let (status, body) = register(&server, &key, true, bvn, n).await;
            assert_eq!(
                (status, body["code"].as_str()),
                (want_status, Some(want_code)),
                "{bvn}: {body}"
            );
        }
        let (_, listed) = get_json(&server, &key, &format!("{LIVE}/cards/get_all_cardholder?page=1")).await;
        assert_eq!(listed["data"]["meta"]["total"], 1, "{listed}");

        // Asynchronously: the job is submitted with our callback URL, and
        // the callback (only once it is Smile ID's) decides.
        let (status, created) = register(&server, &key, false, "22212345680", 5).await;
        assert_eq!(status, 201, "{created}");
        let id = created["data"]["cardholder_id"].as_str().unwrap().to_string();
        let submitted = crate::harness::eventually(async || fake.submitted(&id), Option::is_some).await;
        let submitted = submitted.expect("the verification job submits to Smile ID");
        assert_eq!(
            submitted["callback_url"],
            "https://issuing.example/v1/connectors/smileid/callback"
        );
        let signed = fake.callback(&id).unwrap();
        let mut forged: Value = serde_json::from_slice(&signed).unwrap();
        forged["signature"] = json!("bm90IHNtaWxlIGlk");
        let (status, refused) = callback(&server, &serde_json::to_vec(&forged).unwrap()).await;
        assert_eq!(
            (status, refused["code"].as_str()),
            (401, Some("bad_provider_signature")),
            "{refused}"
        );
        let path = format!("{LIVE}/cardholder/get_cardholder?cardholder_id={id}");
        let (_, pending) = get_json(&server, &key, &path).await;
        assert_eq!(
            pending["data"]["is_id_verified"], false,
            "a forged callback changes nothing"
        );
        let (status, taken) = callback(&server, &signed).await;
        assert_eq!(
            (status, taken["data"]["outcome"].as_str()),
            (200, Some("applied")),
            "{taken}"
        );
        let (status, again) = callback(&server, &signed).await;
        assert_eq!(
            (status, again["data"]["outcome"].as_str()),
            (200, Some("already_decided"))
        );
        let (_, verified) = get_json(&server, &key, &path).await;
        assert_eq!(verified["data"]["is_id_verified"], true, "{verified}");
        let delivered = receiver
            .wait_for(30, |r| {
                r.deliveries()
                    .iter()
                    .any(|d| d.body.contains(&id) && d.body.contains("cardholder_verification.successful"))
            })
            .await;
        assert!(delivered, "{:?}", receiver.deliveries());
        let events = receiver
            .deliveries()
            .into_iter()
            .filter(|d| d.body.contains(&id) && d.body.contains("cardholder_verification"))
            .count();
        assert_eq!(events, 1, "one decision, one event");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connector_without_its_credentials_refuses_to_start_naming_them() {
    let db = TestDb::sqlite();
    let out = run(issuing(&db)
        .env("ISSUING_KYC_PROVIDER", "smileid")
        .env("ISSUING_SMILEID_PARTNER_ID", PARTNER)
        .env("ISSUING_PUBLIC_URL", "https://issuing.example")
        .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("ISSUING_SMILEID_API_KEY"), "{stderr}");
    let out = run(issuing(&db)
        .env("ISSUING_KYC_PROVIDER", "smileid")
        .env("ISSUING_SMILEID_PARTNER_ID", PARTNER)
        .env("ISSUING_SMILEID_API_KEY", LIVE_KEY)
        .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("--public-url"), "{stderr}");
    assert!(!stderr.contains(LIVE_KEY), "{stderr}");
}

//! Live mode on the real providers' connectors, against fakes built from
//! their documentation (`adapters::connectors::*::fake`): the binary is
//! configured as an operator would, with credentials from the environment.

use crate::cardholders::{account_created, nigerian};
use crate::cards::Sandbox;
use crate::harness::{Server, bearer, client, get_json, issuing, ledger_check, run};
use crate::receiver::Receiver;
use adapters::connectors::smileid::fake::FakeSmileId;
use adapters::connectors::sudo::fake::{FakeSudo, SETTLEMENT_ACCOUNT};
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
        // The fake listens on loopback, which live mode refuses otherwise.
        ("ISSUING_ALLOW_PROVIDER_URL_OVERRIDE", "1".into()),
    ]
}

pub(crate) fn start(db: &TestDb, env: &[(&'static str, String)]) -> Server {
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
        // The job asked once and waits (its next look is 30 s away), so
        // only a callback can decide now.
        let asked = async || fake.status_asked(&id);
        assert_eq!(crate::harness::eventually(asked, |n| *n > 0).await, 1);
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
        .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
        .args(["--dashboard-listen", "off"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("ISSUING_SMILEID_API_KEY"), "{stderr}");
    let out = run(issuing(&db)
        .env("ISSUING_KYC_PROVIDER", "smileid")
        .env("ISSUING_SMILEID_PARTNER_ID", PARTNER)
        .env("ISSUING_SMILEID_API_KEY", LIVE_KEY)
        .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
        .args(["--dashboard-listen", "off"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("--public-url"), "{stderr}");
    assert!(!stderr.contains(LIVE_KEY), "{stderr}");
    // Sudo refuses a cancellation without the account it credits.
    let out = run(issuing(&db)
        .env("ISSUING_SANDBOX_CARD_PROCESSOR", "sudo")
        .env("ISSUING_SANDBOX_SUDO_FUNDING_SOURCE_ID", FUNDING_SOURCE)
        .env("ISSUING_SANDBOX_SUDO_API_KEY", SUDO_KEY)
        .env("ISSUING_SANDBOX_SUDO_GATEWAY_SECRET", GATEWAY_SECRET)
        .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
        .args(["--dashboard-listen", "off"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("--sandbox-sudo-credit-account-id"),
        "{stderr}"
    );
    // An empty key file, and a gateway secret that is itself a header.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("sudo.key");
    std::fs::write(&empty, " \n").unwrap();
    std::fs::set_permissions(&empty, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let sudo = |key: (&str, &str), secret: &str| {
        run(issuing(&db)
            .env("ISSUING_SANDBOX_CARD_PROCESSOR", "sudo")
            .env("ISSUING_SANDBOX_SUDO_FUNDING_SOURCE_ID", FUNDING_SOURCE)
            .env("ISSUING_SANDBOX_SUDO_CREDIT_ACCOUNT_ID", SETTLEMENT_ACCOUNT)
            .env(key.0, key.1)
            .env("ISSUING_SANDBOX_SUDO_GATEWAY_SECRET", secret)
            .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
            .args(["--dashboard-listen", "off"]))
    };
    let out = sudo(
        ("ISSUING_SANDBOX_SUDO_API_KEY_FILE", empty.to_str().unwrap()),
        GATEWAY_SECRET,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("is empty"), "{stderr}");
    let bearer = format!("Bearer {GATEWAY_SECRET}");
    let out = sudo(("ISSUING_SANDBOX_SUDO_API_KEY", SUDO_KEY), &bearer);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("ISSUING_SANDBOX_SUDO_GATEWAY_SECRET"),
        "{stderr}"
    );
    assert!(!stderr.contains(GATEWAY_SECRET), "{stderr}");
}

pub(crate) const SUDO_KEY: &str = "sk_sudo_sandbox_key";
pub(crate) const FUNDING_SOURCE: &str = "63f0c0ffee0000000000000a";
pub(crate) const GATEWAY_SECRET: &str = "gateway-secret-of-at-least-32-characters";

pub(crate) fn sudo_env(fake: &FakeSudo) -> Vec<(&'static str, String)> {
    vec![
        ("ISSUING_SANDBOX_CARD_PROCESSOR", "sudo".into()),
        ("ISSUING_SANDBOX_SUDO_API_KEY", SUDO_KEY.into()),
        ("ISSUING_SANDBOX_SUDO_GATEWAY_SECRET", GATEWAY_SECRET.into()),
        ("ISSUING_SANDBOX_SUDO_FUNDING_SOURCE_ID", FUNDING_SOURCE.into()),
        ("ISSUING_SANDBOX_SUDO_CREDIT_ACCOUNT_ID", SETTLEMENT_ACCOUNT.into()),
        ("ISSUING_SUDO_API_URL", fake.url()),
        ("ISSUING_SUDO_VAULT_URL", fake.url()),
    ]
}

/// Sudo's `authorization.request` for `amount` (major units, as Sudo
/// writes it) on its card `card`.
pub(crate) fn authorization(id: &str, card: &str, amount: &str) -> Vec<u8> {
    format!(
        r#"{{"type":"authorization.request","data":{{"object":{{"_id":"{id}","card":{{"_id":"{card}","type":"virtual"}},
        "amount":0,"approved":false,"status":"pending","currency":"USD",
        "pendingRequest":{{"amount":{amount},"currency":"USD","merchantAmount":{amount},"merchantCurrency":"USD"}},
        "merchant":{{"category":"5812","name":"NETFLIX.COM","city":"LOS GATOS","country":"US"}},
        "transactionMetadata":{{"channel":"web","type":"purchase","reference":"ref-{id}"}}}}}}}}"#
    )
    .into_bytes()
}

pub(crate) async fn gateway(server: &Server, credential: Option<&str>, body: Vec<u8>) -> (u16, Value) {
    let mut request = client()
        .post(server.url("/v1/connectors/sudo/gateway"))
        .header("content-type", "application/json")
        .body(body);
    if let Some(credential) = credential {
        request = request.header("authorization", credential);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sudo_issues_the_cards_and_its_gateway_spends_them_through_the_ledger() {
    for db in TestDb::all().await {
        let fake = FakeSudo::start(SUDO_KEY, FUNDING_SOURCE).await;
        let s = Sandbox {
            server: start(&db, &sudo_env(&fake)),
            key: crate::cardholders::account(&db, None),
        };
        s.fund_wallet(20_000).await;
        let holder = s.cardholder(1).await;
        let card = s.card(&holder, "10300").await;
        s.card(&holder, "300").await;
        assert_eq!(fake.customers(), 1, "one customer per cardholder");
        assert_eq!(fake.cards().len(), 2);
        // The number is Sudo's, read from its vault at reveal time.
        s.advance(3).await;
        let shown = s.details_in_clear(&card).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let number = shown.body["data"]["card_number"].as_str().unwrap().to_string();
        let (sudo_id, kept) = fake
            .cards()
            .into_iter()
            .find(|(_, c)| c.number == number)
            .expect("the number shown is one Sudo keeps");
        assert_eq!(shown.body["data"]["cvv"], kept.cvv2.as_str());
        assert_eq!(shown.body["data"]["last_4"], &number[number.len() - 4..]);
        // Lists never ask Sudo's vault: the last 4 digits only.
        let calls = fake.server.received_requests().await.unwrap().len();
        s.advance(3).await;
        let listed = s
            .call_at(
                &s.server.relay,
                reqwest::Method::GET,
                "/cards/get_all_cards?page=1",
                None,
            )
            .await;
        assert_eq!(listed.status, 200, "{}", listed.body);
        let numbers: Vec<&str> = listed.body["data"]["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["card_number"].as_str().unwrap())
            .collect();
        assert!(
            numbers.iter().all(|n| n.starts_with("************") && n.len() == 16),
            "{numbers:?}"
        );
        assert_eq!(fake.server.received_requests().await.unwrap().len(), calls);
        // PINs of Sudo's Verve cards are Sudo's: set at creation from the
        // default one, then changed from the one set.
        let naira = json!({"cardholder_id": holder, "card_type": "virtual", "card_brand": "Mastercard",
                           "card_currency": "NGN", "pin": s.pin("2468")});
        let naira = s.post("/cards/create_card", naira).await;
        assert_eq!(naira.status, 200, "{}", naira.body);
        let naira = naira.body["data"]["card_id"].as_str().unwrap().to_string();
        let verve = || fake.cards().into_iter().find(|(_, c)| c.brand == "Verve").unwrap().1;
        assert_eq!(verve().pin, "2468");
        let changed = s
            .post(
                "/cards/update_card_pin",
                json!({"card_id": naira, "card_pin": s.pin("1357")}),
            )
            .await;
        assert_eq!(changed.status, 201, "{}", changed.body);
        assert_eq!(verve().pin, "1357");
        // A Mastercard's PIN stays the service's own.
        let usd = s
            .post(
                "/cards/update_card_pin",
                json!({"card_id": card, "card_pin": s.pin("9753")}),
            )
            .await;
        assert_eq!(usd.status, 201, "{}", usd.body);
        let deleted_naira = s.delete(&format!("/cards/delete_card/{naira}")).await;
        assert_eq!(deleted_naira.status, 200, "{}", deleted_naira.body);
        let verve_status = async || verve().status;
        assert_eq!(
            crate::harness::eventually(verve_status, |s| s == "canceled").await,
            "canceled"
        );
        // A physical card is refused before Sudo is asked anything.
        let newcomer = s.cardholder(2).await;
        let mut physical = s.card_body(&newcomer, "300");
        physical["card_type"] = json!("physical");
        let physical = s.post("/cards/create_card", physical).await;
        assert_eq!(
            (physical.status, physical.body["code"].as_str()),
            (400, Some("card_type_unavailable")),
            "{}",
            physical.body
        );
        let activation = json!({"cardholder_id": newcomer, "card_type": "physical", "card_brand": "Mastercard",
                                "card_currency": "USD", "card_token_number": "1234567890123"});
        let activated = s.post("/cards/activate_physical_card", activation).await;
        assert_eq!(activated.body["code"], "card_type_unavailable", "{}", activated.body);
        assert_eq!(fake.customers(), 1, "no customer made for a card that cannot be issued");
        // A card the wallet cannot fund is refused before Sudo issues one.
        let too_much = s.post("/cards/create_card", s.card_body(&holder, "10000")).await;
        assert_eq!(too_much.status, 401, "{}", too_much.body);
        assert_eq!(fake.cards().len(), 3, "nothing issued at Sudo for a refused card");

        // The gateway: authenticated, decided by the engine, exactly once.
        let bearer_secret = format!("Bearer {GATEWAY_SECRET}");
        let (status, refused) = gateway(&s.server, Some("Bearer wrong"), authorization("auth_0", &sudo_id, "1")).await;
        assert_eq!(
            (status, refused["code"].as_str()),
            (401, Some("bad_provider_signature")),
            "{refused}"
        );
        let (before, _) = s.balance(&card).await;
        let (status, approved) = gateway(
            &s.server,
            Some(&bearer_secret),
            authorization("auth_1", &sudo_id, "12.505"),
        )
        .await;
        assert_eq!(
            (status, approved["responseCode"].as_str()),
            (200, Some("00")),
            "{approved}"
        );
        assert_eq!(approved["data"]["responseCode"], "00");
        let (after, _) = s.balance(&card).await;
        assert!(
            before - after >= 1251,
            "12.505 USD is 1251 cents, rounded up: {before} -> {after}"
        );
        let (status, again) = gateway(
            &s.server,
            Some(GATEWAY_SECRET),
            authorization("auth_1", &sudo_id, "12.505"),
        )
        .await;
        assert_eq!((status, again["responseCode"].as_str()), (200, Some("00")), "{again}");
        assert_eq!(
            s.balance(&card).await.0,
            after,
            "a repeated authorization debits nothing more"
        );
        let (status, declined) = gateway(
            &s.server,
            Some(&bearer_secret),
            authorization("auth_2", &sudo_id, "150"),
        )
        .await;
        assert_eq!(
            (status, declined["responseCode"].as_str()),
            (400, Some("51")),
            "{declined}"
        );
        let unknown = authorization("auth_3", "62a1ffffffffffffffffffff", "1");
        let (_, unknown) = gateway(&s.server, Some(&bearer_secret), unknown).await;
        assert_eq!(unknown["responseCode"], "14", "{unknown}");
        let balance = format!(r#"{{"type":"card.balance","data":{{"object":{{"_id":"{sudo_id}"}}}}}}"#);
        let (status, told) = gateway(&s.server, Some(&bearer_secret), balance.into_bytes()).await;
        assert_eq!(status, 200, "{told}");
        let (_, available) = s.balance(&card).await;
        assert_eq!(
            told["data"]["balance"].to_string(),
            format!("{}.{:02}", available / 100, available % 100)
        );
        let (status, _) = gateway(
            &s.server,
            Some(&bearer_secret),
            b"{\"type\":\"authorization.request\"}".to_vec(),
        )
        .await;
        assert_eq!(status, 400);

        // Its status follows ours.
        let frozen = s.patch(&format!("/cards/freeze_card?card_id={card}"), json!({})).await;
        assert_eq!(frozen.status, 200, "{}", frozen.body);
        let at_sudo = async || fake.card(&sudo_id).unwrap().status;
        assert_eq!(
            crate::harness::eventually(at_sudo, |s| s == "inactive").await,
            "inactive"
        );
        let (_, frozen_debit) = gateway(&s.server, Some(&bearer_secret), authorization("auth_4", &sudo_id, "1")).await;
        assert_eq!(frozen_debit["responseCode"], "62", "{frozen_debit}");
        let deleted = s.delete(&format!("/cards/delete_card/{card}")).await;
        assert_eq!(deleted.status, 200, "{}", deleted.body);
        assert_eq!(
            crate::harness::eventually(at_sudo, |s| s == "canceled").await,
            "canceled"
        );

        // Sudo down: no card here, none there, no money moved.
        let wallet = s.wallet().await;
        fake.fail("POST", "^/cards$", 503, 1).await;
        let refused = s.post("/cards/create_card", s.card_body(&holder, "300")).await;
        assert_eq!(
            (refused.status, refused.body["code"].as_str()),
            (504, Some("processor_unavailable")),
            "{}",
            refused.body
        );
        assert_eq!(s.wallet().await, wallet);
        assert_eq!(fake.cards().len(), 3);
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{report}");

        // Reconciliation: nothing to say, then the card changed on Sudo's side.
        let reconcile = || {
            let mut cmd = issuing(&db);
            cmd.envs(sudo_env(&fake)).args(["reconcile", "cards", "--mode", "test"]);
            run(&mut cmd)
        };
        let clean = reconcile();
        assert!(clean.status.success(), "{}", String::from_utf8_lossy(&clean.stderr));
        assert!(clean.stdout.is_empty());
        let (other, _) = fake.cards().into_iter().find(|(_, c)| c.status == "active").unwrap();
        fake.set_status(&other, "inactive");
        let found = reconcile();
        assert_eq!(
            found.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&found.stderr)
        );
        let line: Value = serde_json::from_slice(&found.stdout).unwrap();
        assert_eq!(line["processor_card_id"], other.as_str());
        assert_eq!(
            (line["here"].as_str(), line["processor"].as_str()),
            (Some("active"), Some("frozen"))
        );
    }
}

/// Sudo's `transaction.refund` of `amount` (major units) for its
/// authorization `authorization`, as its webhook page shows it.
pub(crate) fn refund(id: &str, card: &str, authorization: &str, amount: &str) -> Vec<u8> {
    format!(
        r#"{{"type":"transaction.refund","environment":"development","business":"b1","data":{{"object":{{"_id":"{id}",
        "business":"b1","customer":"c1","account":"a1","card":"{card}","authorization":"{authorization}",
        "amount":{amount},"fee":0,"vat":0,"currency":"USD","type":"refund","merchantAmount":{amount},
        "merchant":{{"category":"5812","name":"NETFLIX.COM"}}}}}}}}"#
    )
    .into_bytes()
}

/// Sudo's `transaction.created` as its page shows it: no event `type`,
/// the object's `type` capture, its amount negative, `authorization`
/// null in the page's example.
fn captured(id: &str, card: &str, authorization: Option<&str>, amount: &str) -> Vec<u8> {
    let authorization = authorization.map_or("null".to_string(), |a| format!("\"{a}\""));
    format!(
        r#"{{"environment":"development","business":"b1","data":{{"object":{{"_id":"{id}","business":"b1",
        "customer":"c1","account":"a1","card":"{card}","authorization":{authorization},"amount":-{amount},"fee":0,
        "vat":0,"currency":"USD","type":"capture","merchantAmount":-{amount},"merchantCurrency":"USD",
        "merchant":{{"category":"5812","name":"NETFLIX.COM","country":"US"}},
        "transactionMetadata":{{"channel":"web","type":"purchase","reference":"r1"}}}}}}}}"#
    )
    .into_bytes()
}

fn declined(authorization: &str, card: &str) -> Vec<u8> {
    format!(
        r#"{{"type":"authorization.declined","data":{{"object":{{"_id":"{authorization}","card":"{card}","amount":0,
        "approved":false,"status":"closed","currency":"USD"}}}}}}"#
    )
    .into_bytes()
}

/// A sandbox on Sudo's fake (webhooks to `webhook_url`), its wallet
/// funded, with the verified cardholder `n`.
async fn holder_at_sudo(db: &TestDb, webhook_url: Option<&str>, n: u32) -> (FakeSudo, Sandbox, String) {
    let fake = FakeSudo::start(SUDO_KEY, FUNDING_SOURCE).await;
    let s = Sandbox {
        server: start(db, &sudo_env(&fake)),
        key: crate::cardholders::account(db, webhook_url),
    };
    s.fund_wallet(20_000).await;
    let holder = s.cardholder(n).await;
    (fake, s, holder)
}

/// A sandbox on Sudo's fake (webhooks to `webhook_url`) with a card of
/// 103.00 USD issued there: the fake, the sandbox, the card's id here and
/// at Sudo.
pub(crate) async fn card_at_sudo(db: &TestDb, webhook_url: Option<&str>) -> (FakeSudo, Sandbox, String, String) {
    let (fake, s, holder) = holder_at_sudo(db, webhook_url, 1).await;
    let card = s.card(&holder, "10300").await;
    let (sudo_id, _) = fake.cards().pop().unwrap();
    (fake, s, card, sudo_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sudos_refunds_and_late_declines_give_money_back_once_and_never_more_than_was_taken() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (_fake, s, card, sudo_id) = card_at_sudo(&db, Some(&receiver.url)).await;
        let secret = Some(GATEWAY_SECRET);
        let call = async |body: Vec<u8>| gateway(&s.server, secret, body).await;
        let (start, _) = s.balance(&card).await;
        assert_eq!(
            call(authorization("auth_1", &sudo_id, "40")).await.1["responseCode"],
            "00"
        );
        assert_eq!(s.balance(&card).await.0, start - 4000);
        // Sudo's capture of it, in the page's shape, naming the
        // authorization or not, of its amount or another: the approval
        // took the money, so each is acknowledged and moves nothing.
        for (authorization, amount) in [(Some("auth_1"), "40"), (None, "40"), (Some("auth_1"), "41.5")] {
            let (status, answer) = call(captured("tx_1", &sudo_id, authorization, amount)).await;
            assert_eq!((status, answer["responseCode"].as_str()), (200, Some("00")), "{answer}");
        }
        assert_eq!(s.balance(&card).await.0, start - 4000);

        // A partial refund, told twice: credited once, told once.
        for _ in 0..2 {
            let (status, answer) = call(refund("rf_1", &sudo_id, "auth_1", "15.00")).await;
            assert_eq!((status, answer["responseCode"].as_str()), (200, Some("00")), "{answer}");
        }
        assert_eq!(s.balance(&card).await.0, start - 2500);
        let told = crate::cards::event(&receiver, "card_reversal_event.successful", |d| {
            d["reversal_reference"] == "rf_1"
        })
        .await;
        assert_eq!(
            (
                told["amount"].as_str(),
                told["transaction_reference"].as_str(),
                told["card_transaction_type"].as_str(),
                told["credited_to"].as_str(),
                told["card_id"].as_str(),
            ),
            (
                Some("1500"),
                Some("auth_1"),
                Some("REFUND"),
                Some("card"),
                Some(card.as_str())
            ),
            "{told}"
        );
        assert!(told["enriched_data"]["merchant_name"].is_string(), "{told}");

        // Ten refunds at once, each of all of it: what is left comes back, once.
        let refunds = (0..10).map(|n| call(refund(&format!("rf_c{n}"), &sudo_id, "auth_1", "40")));
        for (status, answer) in futures::future::join_all(refunds).await {
            assert_eq!(status, 200, "{answer}");
        }
        assert_eq!(s.balance(&card).await.0, start, "never more than the debit took");
        call(declined("auth_1", &sudo_id)).await;
        assert_eq!(s.balance(&card).await.0, start);

        // An approval Sudo declined in the end (it stopped waiting): all back.
        assert_eq!(
            call(authorization("auth_2", &sudo_id, "10")).await.1["responseCode"],
            "00"
        );
        assert_eq!(s.balance(&card).await.0, start - 1000);
        let (status, _) = call(declined("auth_2", &sudo_id)).await;
        assert_eq!(status, 200);
        assert_eq!(s.balance(&card).await.0, start);
        let reversed = crate::cards::event(&receiver, "card_reversal_event.successful", |d| {
            d["reversal_reference"] == "auth_2"
        })
        .await;
        assert_eq!(
            (reversed["amount"].as_str(), reversed["card_transaction_type"].as_str()),
            (Some("1000"), Some("REVERSAL"))
        );

        // Asked again once given back: declined, nothing debited.
        let (status, again) = call(authorization("auth_2", &sudo_id, "10")).await;
        assert_eq!((status, again["responseCode"].as_str()), (400, Some("05")), "{again}");
        assert_eq!(s.balance(&card).await.0, start);
        // Declined before our approval was recorded (Sudo stopped waiting
        // first): the approval, when it comes, debits nothing.
        assert_eq!(call(declined("auth_late", &sudo_id)).await.0, 200);
        let (status, late) = call(authorization("auth_late", &sudo_id, "10")).await;
        assert_eq!((status, late["responseCode"].as_str()), (400, Some("05")), "{late}");
        assert_eq!(s.balance(&card).await.0, start);

        // Nothing of another's, of no debit, or unauthenticated.
        let before = s.balance(&card).await.0;
        let (status, _) = gateway(&s.server, Some("Bearer wrong"), refund("rf_x", &sudo_id, "auth_2", "1")).await;
        assert_eq!(status, 401);
        for body in [
            refund("rf_y", &sudo_id, "auth_none", "1"),
            refund("rf_z", "62a1ffffffffffffffffffff", "auth_2", "1"),
        ] {
            assert_eq!(call(body).await.0, 200);
        }
        assert_eq!(s.balance(&card).await.0, before);

        // A monthly fee is no debit of Sudo's: nothing of it comes back.
        s.advance(32 * 86_400).await;
        let fee = crate::cards::event(&receiver, "card_maintenance_fee_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        let charged = s.balance(&card).await.0;
        let fee_reference = fee["transaction_reference"].as_str().unwrap();
        assert_eq!(call(refund("rf_fee", &sudo_id, fee_reference, "3")).await.0, 200);
        assert_eq!(s.balance(&card).await.0, charged, "{fee}");

        // A refund after the card is deleted goes to the wallet.
        assert_eq!(
            call(authorization("auth_3", &sudo_id, "5")).await.1["responseCode"],
            "00"
        );
        let deleted = s.delete(&format!("/cards/delete_card/{card}")).await;
        assert_eq!(deleted.status, 200, "{}", deleted.body);
        let wallet = s.wallet().await;
        assert_eq!(call(refund("rf_3", &sudo_id, "auth_3", "5")).await.0, 200);
        assert_eq!(s.wallet().await, wallet + 500);
        let to_wallet = crate::cards::event(&receiver, "card_reversal_event.successful", |d| {
            d["reversal_reference"] == "rf_3"
        })
        .await;
        assert_eq!(to_wallet["credited_to"], "issuing_wallet");
        let reversals = receiver
            .deliveries()
            .iter()
            .filter(|d| d.accepted && d.body.contains("card_reversal_event.successful"))
            .count();
        assert_eq!(reversals, 4, "rf_1, the one concurrent refund, auth_2, rf_3");
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
        // The captures that do not match an approval are told, by Sudo's ids.
        let logs = s.server.stop();
        let told = |what: &str| logs.lines().any(|l| l.contains(what) && l.contains("tx_1"));
        assert!(told("captured what no approval here took"), "{logs}");
        assert!(told("captured another amount") && logs.contains("4150"), "{logs}");
        assert!(!logs.contains(GATEWAY_SECRET));
    }
}

/// Twenty `create_card` at once under one `transaction_reference` make one
/// card at Sudo (a paid issuance) and one here: the others wait their
/// turn and find the reference taken, and none is issued then cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creations_raced_under_one_reference_make_one_card_at_sudo() {
    for db in TestDb::all().await {
        let (fake, s, holder) = holder_at_sudo(&db, None, 4).await;
        let mut body = s.card_body(&holder, "1000");
        body["transaction_reference"] = json!("one-card");
        let creations = (0..20).map(|_| s.post("/cards/create_card", body.clone()));
        let answers = futures::future::join_all(creations).await;
        let made: Vec<_> = answers.iter().filter(|a| a.status == 200).collect();
        assert_eq!(
            made.len(),
            1,
            "{}: {:?}",
            db.backend(),
            answers.iter().map(|a| &a.body).collect::<Vec<_>>()
        );
        for a in answers.iter().filter(|a| a.status != 200) {
            assert_eq!(a.body["code"], "transaction_reference_used", "{}", a.body);
        }
        let cards = fake.cards();
        assert_eq!(cards.len(), 1, "one card issued at Sudo, none cancelled: {cards:?}");
        assert_eq!(cards[0].1.status, "active");
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

/// A provider's body past its route's limit (256 KiB for Sudo's gateway,
/// 2 MiB for Smile ID's callback) is answered the JSON 413 every other
/// body gets; one at the limit is read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_provider_body_is_the_apis_json_413() {
    let db = TestDb::sqlite();
    let fake = FakeSudo::start(SUDO_KEY, FUNDING_SOURCE).await;
    let server = start(&db, &sudo_env(&fake));
    // A JSON document of exactly `len` bytes.
    let padded = |len: usize| format!(r#"{{"type":"x","pad":"{}"}}"#, "a".repeat(len - 21)).into_bytes();
    assert_eq!(padded(100).len(), 100);
    let (status, answer) = gateway(&server, Some(GATEWAY_SECRET), padded(256 * 1024 + 1)).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (413, Some("payload_too_large")),
        "{answer}"
    );
    assert!(answer["message"].as_str().unwrap().contains("262144"), "{answer}");
    let (status, answer) = gateway(&server, Some(GATEWAY_SECRET), padded(256 * 1024)).await;
    assert_ne!(status, 413, "{answer}");
    let (status, answer) = callback(&server, &padded(2 * 1024 * 1024 + 1)).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (413, Some("payload_too_large")),
        "{answer}"
    );
    let (status, answer) = callback(&server, &padded(2 * 1024 * 1024)).await;
    assert_ne!(status, 413, "{answer}");
}

/// A card Sudo terminated (`card.terminated`, the card in `data` as its
/// page shows it) ends here too: its balance back to the wallet and one
/// `card_delete_event.successful`, however often and however concurrently
/// Sudo tells it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_sudo_terminates_ends_here_once_with_its_money_back() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (fake, s, card, sudo_id) = card_at_sudo(&db, Some(&receiver.url)).await;
        let (on_card, _) = s.balance(&card).await;
        let wallet = s.wallet().await;
        fake.set_status(&sudo_id, "canceled");
        let told = format!(r#"{{"type":"card.terminated","data":{{"_id":"{sudo_id}","status":"canceled"}}}}"#);
        let calls = (0..5).map(|_| gateway(&s.server, Some(GATEWAY_SECRET), told.clone().into_bytes()));
        for (status, answer) in futures::future::join_all(calls).await {
            assert_eq!((status, answer["responseCode"].as_str()), (200, Some("00")), "{answer}");
        }
        assert_eq!(gateway(&s.server, Some(GATEWAY_SECRET), told.into_bytes()).await.0, 200);
        assert_eq!(s.wallet().await, wallet + on_card, "{}", db.backend());
        let deleted = crate::cards::event(&receiver, "card_delete_event.successful", |d| {
            d["card_id"] == card.as_str()
        })
        .await;
        assert_eq!(deleted["reason"], "processor_terminated", "{deleted}");
        let found = s.get(&format!("/cards/get_card_balance?card_id={card}")).await;
        assert_ne!(found.status, 200, "{}", found.body);
        let deletions = receiver
            .deliveries()
            .iter()
            .filter(|d| d.accepted && d.body.contains("card_delete_event.successful"))
            .count();
        assert_eq!(deletions, 1);
        assert_eq!(fake.card(&sudo_id).unwrap().status, "canceled");
        let (ok, report) = ledger_check(&db);
        assert!(ok, "{}: {report}", db.backend());
    }
}

/// Whether `cmd` starts and logs a line holding `said` within 30 s (then
/// it is stopped), and what it logged.
fn starts_saying(cmd: &mut std::process::Command, said: &str) -> (bool, String) {
    use std::io::{BufRead, BufReader};
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let (tx, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let (mut seen, mut found) = (String::new(), false);
    while let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(30)) {
        seen.push_str(&line);
        seen.push('\n');
        if line.contains(said) {
            found = true;
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    (found, seen)
}

/// The rails of a mode are recorded when `serve` first runs on them; a
/// `worker` or `reconcile` started without them (the simulator, by
/// default) refuses to start and says how they differ, and starts when
/// given the same rails as its own flags; only `issuing rails set`
/// changes them, kept with its note. Live mode refuses a provider URL on
/// loopback or over http unless told it is a test's fake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_process_runs_on_the_rails_recorded_for_its_mode() {
    for db in TestDb::all().await {
        let fake = FakeSudo::start(SUDO_KEY, FUNDING_SOURCE).await;
        let env = sudo_env(&fake);
        let server = start(&db, &env);
        let secrets = [
            ("ISSUING_SANDBOX_SUDO_API_KEY", SUDO_KEY),
            ("ISSUING_SANDBOX_SUDO_GATEWAY_SECRET", GATEWAY_SECRET),
        ];
        for command in [&["worker"][..], &["reconcile", "cards", "--mode", "test"]] {
            let out = run(issuing(&db).envs(secrets).args(command));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{command:?} on {}: {stderr}", db.backend());
            assert!(
                stderr.contains("test mode runs on other rails")
                    && stderr.contains("card processor: simulator here, sudo recorded")
                    && stderr.contains("issuing rails set --mode test"),
                "{stderr}"
            );
        }
        let sudo_flags = [
            "--sandbox-card-processor",
            "sudo",
            "--sudo-api-url",
            &fake.url(),
            "--sudo-vault-url",
            &fake.url(),
            "--sandbox-sudo-funding-source-id",
            FUNDING_SOURCE,
            "--sandbox-sudo-credit-account-id",
            SETTLEMENT_ACCOUNT,
        ];
        let said = format!(
            "test mode runs on card processor sudo ({}), KYC sandbox, funding source {FUNDING_SOURCE}",
            fake.url().trim_end_matches('/')
        );
        let (started, log) = starts_saying(issuing(&db).envs(secrets).arg("worker").args(sudo_flags), &said);
        assert!(started, "the worker on the recorded rails, on {}: {log}", db.backend());
        let reconciled = run(issuing(&db)
            .envs(secrets)
            .args(["reconcile", "cards", "--mode", "test"])
            .args(sudo_flags));
        assert!(
            reconciled.status.success(),
            "{}",
            String::from_utf8_lossy(&reconciled.stderr)
        );
        // A card issued on Sudo is served by Sudo: the rails do not change
        // under it.
        let s = Sandbox {
            server,
            key: crate::cardholders::account(&db, None),
        };
        s.fund_wallet(1_000).await;
        let holder = s.cardholder(3).await;
        let card = s.card(&holder, "300").await;
        let note = ["--note", "trials end: TICKET-7"];
        let refused = run(issuing(&db).args(["rails", "set", "--mode", "test"]).args(note));
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{stderr}");
        assert!(stderr.contains("1 card(s) issued on card processor sudo"), "{stderr}");
        assert_eq!(s.delete(&format!("/cards/delete_card/{card}")).await.status, 200);
        drop(s);

        // Back to the simulator, on purpose: recorded, with its note.
        let set = run(issuing(&db).args(["rails", "set", "--mode", "test"]).args(note));
        assert!(set.status.success(), "{}", String::from_utf8_lossy(&set.stderr));
        let empty_note = run(issuing(&db).args(["rails", "set", "--mode", "test", "--note", " "]));
        assert!(!empty_note.status.success());
        let shown = run(issuing(&db).args(["rails", "show"]));
        let shown: Value = serde_json::from_slice(&shown.stdout).unwrap();
        assert_eq!(shown["rails"]["test"]["card_processor"], "simulator", "{shown}");
        assert_eq!(shown["rails"]["live"]["card_processor"], "simulator", "{shown}");
        let changes = shown["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 1, "{shown}");
        assert_eq!(changes[0]["note"], "trials end: TICKET-7");
        assert_eq!(changes[0]["before"]["card_processor"], "sudo");
        let (started, log) = starts_saying(issuing(&db).arg("worker"), "test mode runs on card processor simulator");
        assert!(started, "{log}");

        // Live money never goes to a loopback or plain-http provider.
        let live = [
            ("ISSUING_SUDO_API_KEY", SUDO_KEY),
            (
                "ISSUING_SUDO_GATEWAY_SECRET",
                "live-gateway-secret-of-at-least-32-chars",
            ),
        ];
        let live_flags = [
            "--card-processor",
            "sudo",
            "--sudo-funding-source-id",
            FUNDING_SOURCE,
            "--sudo-credit-account-id",
            SETTLEMENT_ACCOUNT,
        ];
        let out = run(issuing(&db)
            .envs(live)
            .args(["serve", "--listen", "127.0.0.1:0", "--relay-listen", "127.0.0.1:0"])
            .args(["--dashboard-listen", "off", "--sudo-api-url", &fake.url()])
            .args(live_flags));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(
            stderr.contains("--sudo-api-url") && stderr.contains("--allow-provider-url-override"),
            "{stderr}"
        );
    }
}

/// Sudo's gateway call has a budget (`--sudo-gateway-budget-ms`): an
/// authorization that cannot be recorded within it is declined `91`
/// (issuer unavailable) at once and never recorded, even when what held
/// it up ends; one a batch already took is answered with the truth, late.
/// Both are counted in `/metrics`. On PostgreSQL, where another session
/// can hold a card's row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_authorization_past_its_budget_is_declined_and_never_recorded() {
    let Some(db) = TestDb::postgres_from_env().await else {
        return;
    };
    let fake = FakeSudo::start(SUDO_KEY, FUNDING_SOURCE).await;
    let mut env = sudo_env(&fake);
    env.push(("ISSUING_SUDO_GATEWAY_BUDGET_MS", "500".into()));
    env.push(("ISSUING_METRICS_LISTEN", "127.0.0.1:0".into()));
    let s = Sandbox {
        server: start(&db, &env),
        key: crate::cardholders::account(&db, None),
    };
    s.fund_wallet(20_000).await;
    let holder = s.cardholder(1).await;
    let stuck = s.card(&holder, "5000").await;
    let stuck_at_sudo = fake.cards().pop().unwrap().0;
    let waiting = s.card(&holder, "5000").await;
    let waiting_at_sudo = fake.cards().into_iter().find(|(id, _)| *id != stuck_at_sudo).unwrap().0;
    // Another session holds the first card's row for two seconds: its
    // authorization's batch waits for it, and the next batch behind it.
    let mut holder_session = std::process::Command::new("psql")
        .args([
            db.url(),
            "-c",
            &format!("BEGIN; SELECT 1 FROM cards WHERE id = '{stuck}' FOR UPDATE; SELECT pg_sleep(2); COMMIT;"),
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let secret = Some(GATEWAY_SECRET);
    let first = gateway(&s.server, secret, authorization("auth_stuck", &stuck_at_sudo, "10"));
    let second = async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let started = std::time::Instant::now();
        let answer = gateway(&s.server, secret, authorization("auth_late", &waiting_at_sudo, "10")).await;
        (answer, started.elapsed())
    };
    let (first, (second, took)) = tokio::join!(first, second);
    assert_eq!(
        (first.0, first.1["responseCode"].as_str()),
        (200, Some("00")),
        "{}",
        first.1
    );
    assert_eq!(
        (second.0, second.1["responseCode"].as_str()),
        (400, Some("91")),
        "{}",
        second.1
    );
    assert!(
        took < std::time::Duration::from_millis(1_000),
        "answered within its budget: {took:?}"
    );
    // It has ended by now (the late answer came after its commit).
    assert!(holder_session.wait().unwrap().success());
    // Nothing of the declined one, ever; the late one stands.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let lookup = |card: &str, reference: &str| {
        format!("/cards/get_card_transaction_by_id?card_id={card}&client_transaction_reference={reference}")
    };
    assert_eq!(s.get(&lookup(&stuck, "auth_stuck")).await.status, 200);
    let none = s.get(&lookup(&waiting, "auth_late")).await;
    assert_eq!(none.status, 400, "{}", none.body);
    assert_eq!(s.balance(&waiting).await.0, 5_000);
    let metrics = client()
        .get(s.server.metrics.clone().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for outcome in ["declined", "answered_late"] {
        let line = format!("issuing_gateway_budget_missed_total{{outcome=\"{outcome}\"}} 1");
        assert!(metrics.contains(&line), "{line}: {metrics}");
    }
    s.server.stop();
    let (ok, out) = ledger_check(&db);
    assert!(ok, "{out}");
}

/// Sudo's `authorization.declined` raced with the approval of the same
/// authorization, through the gateway, round after round: no 5xx, and the
/// card ends where it started (each approval is given back by its
/// decline, or refused as a repeat of a voided one); on PostgreSQL no
/// deadlock to break (docs/architecture.md, "Lock order").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_decline_raced_with_its_approval_through_the_gateway_leaves_the_card_as_it_was() {
    const ROUNDS: usize = 60;
    for db in TestDb::all().await {
        let (_fake, s, card, sudo_id) = card_at_sudo(&db, None).await;
        let (start_balance, _) = s.balance(&card).await;
        let secret = Some(GATEWAY_SECRET);
        let mut answers = vec![];
        for round in 0..ROUNDS {
            let id = format!("auth_race_{round}");
            let (approval, decline) = tokio::join!(
                gateway(&s.server, secret, authorization(&id, &sudo_id, "1")),
                gateway(&s.server, secret, declined(&id, &sudo_id)),
            );
            answers.extend([approval, decline]);
        }
        let failed: Vec<_> = answers.iter().filter(|(status, _)| *status >= 500).collect();
        assert!(failed.is_empty(), "{}: {failed:?}", db.backend());
        assert_eq!(s.balance(&card).await.0, start_balance, "{}", db.backend());
        s.server.stop();
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

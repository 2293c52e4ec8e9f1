use crate::harness::{Server, advance_clock, bearer, client, get_json, issuing, on_fakes, run};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

const BASE: &str = "/v1/issuing/sandbox";

/// An account with its company profile on file (and a webhook URL).
/// The sandbox key of a new account with a complete company profile.
pub(crate) fn account(db: &TestDb, webhook_url: Option<&str>) -> String {
    account_created(db, webhook_url)["test_secret_key"]
        .as_str()
        .unwrap()
        .to_string()
}

/// What `accounts create` printed for a new account with a complete
/// company profile (keys and webhook secrets of both modes).
pub(crate) fn account_created(db: &TestDb, webhook_url: Option<&str>) -> Value {
    let mut cmd = issuing(db);
    cmd.args([
        "accounts",
        "create",
        "--name",
        "Acme",
        "--company-address",
        "1 Marina, Lagos",
    ])
    .args(["--utility-bill-url", "https://acme.test/bill.pdf"]);
    if let Some(url) = webhook_url {
        cmd.args(["--webhook-url", url]);
    }
    let out = run(&mut cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A Nigerian registration on the BVN route, unique by `n` (phone and BVN);
/// the BVN ends in 15, neither a simulator outcome suffix nor a digit on
/// which Smile ID's fake refuses, so it verifies on both.
pub(crate) fn nigerian(n: u32) -> Value {
    json!({
        "first_name": "Adaeze",
        "last_name": "Okafor",
        "address": {"address": "Admiralty Way", "city": "Lekki", "state": "Lagos", "country": "Nigeria",
                    "postal_code": "106104", "house_no": "12B", "lga": "Eti Osa"},
        "phone": format!("+2348031{n:06}"),
        "email_address": "adaeze@example.com",
        "identity": {"id_type": "NIGERIAN_BVN_VERIFICATION", "bvn": format!("22{n:07}15"),
                     "selfie_image": "https://img.test/selfie.jpg"},
        "meta_data": {"user_id": n}
    })
}

/// A registration of each country's shape, by name (each verifies on the
/// simulator; Smile ID has a person review the Kenyan voter's card).
pub(crate) fn shapes() -> Vec<(&'static str, Value)> {
    let person = |country: &str, state: &str, postal: &str, phone: &str, identity: Value| {
        json!({
            "first_name": "Amina", "last_name": "Wanjiru",
            "address": {"address": "Kenyatta Avenue", "city": "Capital", "state": state, "country": country,
                        "postal_code": postal, "house_no": "7"},
            "phone": phone, "email_address": "amina@example.com", "identity": identity
        })
    };
    let with_names = |id_type: &str, id_no: &str| {
        json!({"id_type": id_type, "id_no": id_no, "first_name": "Amina", "last_name": "Wanjiru",
               "date_of_birth": "1992-07-14", "gender": "female", "selfie_image": "https://img.test/s.jpg"})
    };
    vec![
        ("nigeria bvn", nigerian(1)),
        (
            "nigeria nin",
            person(
                "Nigeria",
                "Lagos",
                "100001",
                "+2348091234567",
                json!({"id_type": "NIGERIAN_NIN", "id_no": "12345678905", "id_image": "https://img.test/id.jpg", "bvn": "22298765432"}),
            ),
        ),
        (
            "ghana",
            person(
                "Ghana",
                "Greater Accra",
                "GA-183-8164",
                "+233241234567",
                json!({"id_type": "GHANIAN_GHANA_CARD", "id_no": "GHA-123456789", "id_image": "https://img.test/id.jpg",
                       "selfie_image": "https://img.test/s.jpg"}),
            ),
        ),
        (
            "uganda",
            person(
                "Uganda",
                "Central",
                "",
                "+256772123456",
                with_names("UGANDA_NATIONAL_ID", "CM9012345678"),
            ),
        ),
        (
            "kenya",
            person(
                "Kenya",
                "Nairobi City",
                "00100",
                "+254712345678",
                with_names("KENYAN_VOTERS_ID", "KE12345678"),
            ),
        ),
    ]
}

async fn register(server: &Server, key: &str, sync: bool, body: &Value) -> (u16, Value) {
    let path = if sync {
        "register_cardholder_synchronously"
    } else {
        "register_cardholder"
    };
    let response = client()
        .post(server.url(&format!("{BASE}/cardholder/{path}")))
        .header("token", bearer(key))
        .json(body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn id(body: &Value) -> String {
    body["data"]["cardholder_id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_country_shape_registers_and_reads_back() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let key = account(&db, None);
        for (shape, body) in shapes() {
            let (status, created) = register(&server, &key, true, &body).await;
            assert_eq!(status, 201, "{} {shape}: {created}", db.backend());
            let (status, got) = get_json(
                &server,
                &key,
                &format!("{BASE}/cardholder/get_cardholder?cardholder_id={}", id(&created)),
            )
            .await;
            assert_eq!(status, 200);
            // Smile ID cannot look up a Kenyan voter's card: a person reviews it.
            let reviewed = on_fakes() && shape == "kenya";
            assert_eq!(
                (
                    got["data"]["is_active"].as_bool(),
                    got["data"]["is_id_verified"].as_bool()
                ),
                (Some(!reviewed), Some(!reviewed)),
                "{shape}: {got}"
            );
            assert_eq!(got["data"]["phone"], body["phone"]);
        }
        let (_, got) = get_json(&server, &key, &format!("{BASE}/cards/get_all_cardholder?page=1")).await;
        assert_eq!(got["data"]["meta"]["total"], 5);
        let first = &got["data"]["cardholders"][4];
        assert_eq!(first["address"]["lga"], "Eti-Osa");
        let (_, one) = get_json(
            &server,
            &key,
            &format!(
                "{BASE}/cardholder/get_cardholder?cardholder_id={}",
                first["cardholder_id"].as_str().unwrap()
            ),
        )
        .await;
        assert_eq!(
            one["meta_data"],
            json!({"user_id": 1}),
            "meta_data is a sibling of data"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_registration_error_has_its_status_and_names_the_problem() {
    for db in TestDb::all().await {
        registration_errors_on(&db).await;
    }
}

async fn registration_errors_on(db: &TestDb) {
    let server = Server::start(db);
    let key = account(db, None);
    type Spoil = fn(&mut Value);
    let cases: Vec<(Spoil, u16, &str)> = vec![
        (|b| b["first_name"] = json!("Al"), 400, "first_name"),
        (|b| b["last_name"] = json!("O"), 400, "last_name"),
        (|b| b["identity"]["bvn"] = json!("2221234567"), 400, "11 digits"),
        (|b| b["address"]["country"] = json!("Togo"), 400, "address.country"),
        (|b| b["address"]["address"] = json!("12"), 400, "address.address"),
        (
            |b| b["address"]["postal_code"] = json!("1234"),
            400,
            "address.postal_code",
        ),
        (|b| b["address"]["house_no"] = json!("#?"), 400, "address.house_no"),
        (|b| b["address"]["lga"] = json!("Kano Municipal"), 400, "address.lga"),
        (|b| b["address"]["state"] = json!("Texas"), 400, "address.state"),
        (|b| b["phone"] = json!("08031234567"), 400, "phone"),
        (
            |b| b["identity"]["selfie_image"] = json!("not a url"),
            400,
            "identity.selfie_image",
        ),
        (
            |b| b["identity"]["id_type"] = json!("KENYAN_VOTERS_ID"),
            400,
            "identity.id_type",
        ),
        (
            |b| {
                b["identity"] = json!({"id_type": "NIGERIAN_NIN", "id_no": "!!", "id_image": "https://i.test/x", "bvn": "22211112222"})
            },
            400,
            "identity.id_no",
        ),
        (
            |b| {
                b.as_object_mut().unwrap().remove("identity");
            },
            400,
            "identity: is required",
        ),
        (|b| b["first_name"] = json!(5), 400, "first_name: invalid type"),
    ];
    // The verifier's refusals, by the identity number it is given.
    let refusals: Vec<(Spoil, u16, &str)> = match on_fakes() {
        false => vec![
            (
                |b| b["identity"]["bvn"] = json!("22212340000"),
                400,
                "could not be verified",
            ),
            (|b| b["identity"]["bvn"] = json!("22212346666"), 400, "blacklisted"),
            (
                |b| b["identity"]["bvn"] = json!("22212343333"),
                400,
                "does not match the uploaded ID",
            ),
            (
                |b| b["identity"]["bvn"] = json!("22212342222"),
                400,
                "does not match the name",
            ),
            (|b| b["identity"]["bvn"] = json!("22212344444"), 400, "OTP"),
            (|b| b["identity"]["bvn"] = json!("22212345555"), 400, "several BVNs"),
            (
                |b| b["identity"]["bvn"] = json!("22212349999"),
                451,
                "blacklisted for fraud",
            ),
        ],
        // Smile ID's fake: by the number's last digit (its sandbox's data).
        true => vec![
            (
                |b| b["identity"]["bvn"] = json!("22212345671"),
                400,
                "could not be verified",
            ),
            (
                |b| b["identity"]["bvn"] = json!("22212345674"),
                400,
                "does not match the name",
            ),
        ],
    };
    for (n, (spoil, status, says)) in cases.into_iter().chain(refusals).enumerate() {
        let mut body = nigerian(100 + n as u32);
        spoil(&mut body);
        let (got, answer) = register(&server, &key, true, &body).await;
        assert_eq!(got, status, "{says}: {answer}");
        assert!(answer["message"].as_str().unwrap().contains(says), "{says}: {answer}");
    }
    // Uganda and Kenya carry a date of birth.
    let mut kenya = shapes().remove(4).1;
    kenya["identity"]["gender"] = json!("unknown");
    let (status, answer) = register(&server, &key, true, &kenya).await;
    assert_eq!(
        (
            status,
            answer["message"].as_str().unwrap().starts_with("identity.gender")
        ),
        (400, true),
        "{answer}"
    );
    let mut uganda = shapes().remove(3).1;
    uganda["identity"]["date_of_birth"] = json!("14/07/1992");
    let (status, answer) = register(&server, &key, true, &uganda).await;
    assert_eq!(
        (
            status,
            answer["message"]
                .as_str()
                .unwrap()
                .starts_with("identity.date_of_birth")
        ),
        (400, true),
        "{answer}"
    );

    // BVN and phone belong to one cardholder; a retry of the same identity
    // within a minute is 420.
    let (status, _) = register(&server, &key, true, &nigerian(1)).await;
    assert_eq!(status, 201);
    let (status, answer) = register(&server, &key, true, &nigerian(1)).await;
    assert_eq!(status, 420, "{answer}");
    advance_clock(&server, &key, 61).await;
    let mut same_bvn = nigerian(2);
    same_bvn["identity"]["bvn"] = nigerian(1)["identity"]["bvn"].clone();
    let (status, answer) = register(&server, &key, true, &same_bvn).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (400, Some("bvn_already_used")),
        "{answer}"
    );
    let mut same_phone = nigerian(3);
    same_phone["phone"] = nigerian(1)["phone"].clone();
    let (status, answer) = register(&server, &key, true, &same_phone).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (400, Some("phone_already_used")),
        "{answer}"
    );

    // The account's own profile is required: the demo account has one, a
    // bare account does not.
    let bare = run(issuing(db).args(["accounts", "create", "--name", "Bare"]));
    let bare: Value = serde_json::from_slice(&bare.stdout).unwrap();
    let (status, answer) = register(&server, bare["test_secret_key"].as_str().unwrap(), true, &nigerian(4)).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (403, Some("account_profile_incomplete"))
    );
    let bare_id = bare["account_id"].as_str().unwrap();
    let update = [
        "--company-address",
        "2 Broad Street, Lagos",
        "--utility-bill-url",
        "https://bare.test/bill.pdf",
    ];
    assert!(
        run(issuing(db).args(["accounts", "update", bare_id]).args(update))
            .status
            .success()
    );
    assert!(
        !run(issuing(db).args(["accounts", "update", "acct_nobody"]).args(update))
            .status
            .success()
    );
    assert!(
        !run(issuing(db).args(["accounts", "update", bare_id])).status.success(),
        "nothing to change"
    );
    advance_clock(&server, bare["test_secret_key"].as_str().unwrap(), 61).await;
    let (status, answer) = register(&server, bare["test_secret_key"].as_str().unwrap(), true, &nigerian(4)).await;
    assert_eq!(status, 201, "{answer}");
    let (status, _) = register(&server, &server.demo_key, true, &nigerian(5)).await;
    assert_eq!(status, 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asynchronous_outcomes_arrive_by_webhook_and_manual_review_decides() {
    if on_fakes() {
        return; // The simulator's outcomes by BVN suffix; connectors.rs has Smile ID's.
    }
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start(&db);
        let key = account(&db, Some(&receiver.url));
        let mut ids = Vec::new();
        for (n, bvn) in [
            (1, "22212345678"),
            (2, "22212341111"),
            (3, "22212341112"),
            (4, "22212342222"),
            (5, "22212349999"),
        ] {
            let mut body = nigerian(n);
            body["identity"]["bvn"] = json!(bvn);
            if bvn == "22212341112" {
                body["identity"]["bvn"] = json!("22212351111");
            }
            let (status, created) = register(&server, &key, false, &body).await;
            assert_eq!(status, 201, "{}: {created}", db.backend());
            ids.push(id(&created));
        }
        let event_of = |r: &Receiver, id: &str| {
            r.deliveries()
                .into_iter()
                .filter(|d| d.accepted)
                .map(|d| serde_json::from_str::<Value>(&d.body).unwrap())
                .find(|b| b["data"]["cardholder_id"] == id)
        };
        assert!(
            receiver
                .wait_for(30, |r| ids.iter().all(|id| event_of(r, id).is_some()))
                .await,
            "{:?}",
            receiver.deliveries()
        );
        let names: Vec<String> = ids
            .iter()
            .map(|id| event_of(&receiver, id).unwrap()["event"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "cardholder_verification.successful",
                "cardholder_verification.manual_review",
                "cardholder_verification.manual_review",
                "cardholder_verification.failed",
                "cardholder_verification.failed",
            ]
        );
        let failed = event_of(&receiver, &ids[3]).unwrap();
        assert!(
            failed["data"]["error_description"].as_str().unwrap().contains("name"),
            "{failed}"
        );
        assert_eq!(failed["data"]["is_active"], false);

        let listed = run(issuing(&db).args(["review", "list"]));
        let in_review = String::from_utf8_lossy(&listed.stdout).into_owned();
        assert!(
            in_review.contains(&ids[1]) && in_review.contains(&ids[2]),
            "{in_review}"
        );
        // What a reviewer decides on, the identity number masked.
        let case: Value = in_review
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|c| c["cardholder_id"] == ids[1].as_str())
            .unwrap();
        assert_eq!(case["selfie_image"], "https://img.test/selfie.jpg");
        let number = case["id_number"].as_str().unwrap();
        assert!(
            number.len() == 11 && number.starts_with("*******") && !number[7..].contains('*'),
            "{case}"
        );
        // The verifier's reason, as the README promises (it was null).
        assert!(
            case["reason"].as_str().is_some_and(|r| r.contains("manual review")) && case.get("date_of_birth").is_some(),
            "{case}"
        );
        assert!(run(issuing(&db).args(["review", "approve", &ids[1]])).status.success());
        assert!(
            run(issuing(&db).args(["review", "reject", &ids[2], "--reason", "document unreadable"]))
                .status
                .success()
        );
        assert!(
            !run(issuing(&db).args(["review", "approve", &ids[0]])).status.success(),
            "not in review"
        );
        let count = |r: &Receiver, id: &str, event: &str| {
            r.deliveries()
                .into_iter()
                .filter(|d| d.accepted && d.body.contains(id) && d.body.contains(event))
                .count()
        };
        assert!(
            receiver
                .wait_for(30, |r| count(r, &ids[1], ".successful") == 1
                    && count(r, &ids[2], ".failed") == 1)
                .await
        );
        let (_, approved) = get_json(
            &server,
            &key,
            &format!("{BASE}/cardholder/get_cardholder?cardholder_id={}", ids[1]),
        )
        .await;
        assert_eq!(approved["data"]["is_active"], true);
        let (_, rejected) = get_json(
            &server,
            &key,
            &format!("{BASE}/cardholder/get_cardholder?cardholder_id={}", ids[2]),
        )
        .await;
        assert_eq!(
            (
                rejected["data"]["is_active"].as_bool(),
                rejected["data"]["error_description"].as_str()
            ),
            (Some(false), Some("document unreadable"))
        );
        let (_, blacklisted) = get_json(
            &server,
            &key,
            &format!("{BASE}/cardholder/get_cardholder?cardholder_id={}", ids[4]),
        )
        .await;
        assert_eq!(blacklisted["data"]["identity_details"]["blacklisted"], true);

        // A card for the rejected one says why, and that waiting will not help.
        let card = client()
            .post(server.url(&format!("{BASE}/cards/create_card")))
            .header("token", bearer(&key))
            .json(
                &json!({"cardholder_id": ids[2], "card_type": "virtual", "card_brand": "Mastercard",
                "card_currency": "USD", "card_limit": "500000", "funding_amount": "300"}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(card.status(), 401);
        let refused: Value = card.json().await.unwrap();
        assert_eq!(refused["code"], "cardholder_not_verified");
        assert!(
            refused["message"].as_str().unwrap().contains("failed or was rejected"),
            "{refused}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_and_delete() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let key = account(&db, None);
        let (_, a) = register(&server, &key, true, &nigerian(1)).await;
        let (_, b) = register(&server, &key, true, &nigerian(2)).await;
        let patch = |body: Value| {
            client()
                .patch(server.url(&format!("{BASE}/cardholder/update_cardholder")))
                .header("token", bearer(&key))
                .json(&body)
                .send()
        };
        let updated = patch(json!({"cardholder_id": id(&a), "last_name": "Okonkwo", "meta_data": {"tier": 2}}))
            .await
            .unwrap();
        assert_eq!(updated.status(), 200, "{}", db.backend());
        let updated: Value = updated.json().await.unwrap();
        assert_eq!(updated["data"]["last_name"], "Okonkwo");
        let emailed = patch(json!({"cardholder_id": id(&a), "email_address": "ada.new@example.com"}))
            .await
            .unwrap();
        assert_eq!(emailed.status(), 200, "{}", db.backend());
        let (_, read) = get_json(
            &server,
            &key,
            &format!("{BASE}/cardholder/get_cardholder?cardholder_id={}", id(&a)),
        )
        .await;
        assert_eq!(read["data"]["email_address"], "ada.new@example.com", "{}", db.backend());
        // Integrations name the cardholder in the query too.
        let by_query = |query: String, body: Value| {
            client()
                .patch(server.url(&format!("{BASE}/cardholder/update_cardholder{query}")))
                .header("token", bearer(&key))
                .json(&body)
                .send()
        };
        let queried = by_query(format!("?cardholder_id={}", id(&a)), json!({"first_name": "Adaora"}))
            .await
            .unwrap();
        assert_eq!(queried.status(), 200, "{}", db.backend());
        let queried: Value = queried.json().await.unwrap();
        assert_eq!(queried["data"]["first_name"], "Adaora");
        for (query, body, says) in [
            (
                format!("?cardholder_id={}", id(&b)),
                json!({"cardholder_id": id(&a)}),
                "different values",
            ),
            (String::new(), json!({"first_name": "Adaora"}), "is required"),
        ] {
            let refused = by_query(query, body).await.unwrap();
            assert_eq!(refused.status(), 400);
            let refused: Value = refused.json().await.unwrap();
            let message = refused["message"].as_str().unwrap();
            assert!(
                message.starts_with("cardholder_id: ") && message.contains(says),
                "{message}"
            );
        }
        let bad_email = patch(json!({"cardholder_id": id(&a), "email_address": "not an email"}))
            .await
            .unwrap();
        assert_eq!(bad_email.status(), 400);
        let refused: Value = bad_email.json().await.unwrap();
        assert!(
            refused["message"].as_str().unwrap().starts_with("email_address:"),
            "{refused}"
        );
        let taken = patch(json!({"cardholder_id": id(&a), "phone": nigerian(2)["phone"]}))
            .await
            .unwrap();
        assert_eq!(taken.status(), 400);
        let bad = patch(json!({"cardholder_id": id(&a), "first_name": "X"}))
            .await
            .unwrap();
        assert_eq!(bad.status(), 400);

        let delete = |cid: String| {
            client()
                .delete(server.url(&format!("{BASE}/cardholder/delete_cardholder/{cid}")))
                .header("token", bearer(&key))
                .send()
        };
        assert_eq!(delete(id(&b)).await.unwrap().status(), 200);
        assert_eq!(delete(id(&b)).await.unwrap().status(), 400);
        let (status, gone) = get_json(
            &server,
            &key,
            &format!("{BASE}/cardholder/get_cardholder?cardholder_id={}", id(&b)),
        )
        .await;
        assert_eq!((status, gone["code"].as_str()), (400, Some("cardholder_not_found")));
        assert_eq!(
            patch(json!({"cardholder_id": id(&b), "last_name": "Again"}))
                .await
                .unwrap()
                .status(),
            400
        );
        // Its phone and BVN are free again.
        advance_clock(&server, &key, 61).await;
        assert_eq!(register(&server, &key, true, &nigerian(2)).await.0, 201);
        // Live mode sees none of the sandbox's cardholders.
        let (_, live) = get_json(&server, &key, &format!("{BASE}/cards/get_all_cardholder")).await;
        assert_eq!(live["data"]["meta"]["total"], 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_are_consistent_at_0_1_20_21_and_1000_cardholders() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let key = account(&db, None);
        let (server, key) = (&server, &key);
        let page =
            |n: u32| async move { get_json(server, key, &format!("{BASE}/cards/get_all_cardholder?page={n}")).await };
        let mut registered = 0u32;
        for (total, pages) in [(0u32, 0u32), (1, 1), (20, 1), (21, 2), (1000, 50)] {
            while registered < total {
                let batch: Vec<u32> = (registered..total.min(registered + 25)).collect();
                let calls = batch
                    .iter()
                    .map(|n| async move { register(server, key, true, &nigerian(10_000 + n)).await.0 });
                for status in futures::future::join_all(calls).await {
                    assert_eq!(status, 201, "{}", db.backend());
                }
                registered += batch.len() as u32;
            }
            let (_, first) = page(1).await;
            let meta = &first["data"]["meta"];
            let next = if pages > 1 { json!(2) } else { json!(null) };
            assert_eq!(
                meta,
                &json!({"total": total, "pages": pages, "previous": null, "next": next}),
                "{} at {total}",
                db.backend()
            );
            assert_eq!(
                first["data"]["cardholders"].as_array().unwrap().len(),
                total.min(20) as usize
            );
            if pages > 1 {
                let (_, last) = page(pages).await;
                assert_eq!(last["data"]["meta"]["previous"], pages - 1);
                assert_eq!(last["data"]["meta"]["next"], Value::Null);
                let expected = total as usize - 20 * (pages as usize - 1);
                assert_eq!(last["data"]["cardholders"].as_array().unwrap().len(), expected);
            }
        }
        // `limit` sizes the page, from 1 to 100.
        let limited = |query: &'static str| async move {
            get_json(server, key, &format!("{BASE}/cards/get_all_cardholder?{query}")).await
        };
        let (_, hundred) = limited("limit=100&page=10").await;
        assert_eq!(
            hundred["data"]["meta"],
            json!({"total": 1000, "pages": 10, "previous": 9, "next": null})
        );
        assert_eq!(hundred["data"]["cardholders"].as_array().unwrap().len(), 100);
        let (_, one) = limited("limit=1&page=1000").await;
        assert_eq!(one["data"]["cardholders"].as_array().unwrap().len(), 1);
        assert_eq!(one["data"]["meta"]["previous"], 999);
        for bad in ["limit=0", "limit=101", "limit=-1", "limit=1.5"] {
            let (status, refused) = limited(bad).await;
            assert_eq!(status, 400, "{bad}: {refused}");
            assert!(refused["message"].as_str().unwrap().starts_with("limit: "), "{refused}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn states_and_lgas_come_from_the_reference_data() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let key = &server.demo_key;
        let states = client()
            .get(server.url(&format!("{BASE}/cardholder/get_all_states?country=Nigeria")))
            .header("token", bearer(key))
            .send()
            .await
            .unwrap();
        assert_eq!(states.status(), 201);
        let states: Value = states.json().await.unwrap();
        assert_eq!(states["data"]["states"].as_array().unwrap().len(), 37);
        let (status, lgas) = get_json(&server, key, &format!("{BASE}/cardholder/get_all_lga?state=Lagos")).await;
        assert_eq!(status, 200);
        assert_eq!(lgas["data"]["lgas"].as_array().unwrap().len(), 20);
        let (status, _) = get_json(&server, key, &format!("{BASE}/cardholder/get_all_states?country=Togo")).await;
        assert_eq!(status, 400);
        let (status, _) = get_json(&server, key, &format!("{BASE}/cardholder/get_all_lga?state=Atlantis")).await;
        assert_eq!(status, 400);

        // Ghana and Uganda both have a Central region: the country decides.
        let lgas_url = |query: &str| format!("{BASE}/cardholder/get_all_lga?{query}");
        let (status, uganda) = get_json(&server, key, &lgas_url("state=Central&country=Uganda")).await;
        assert_eq!(status, 200);
        assert_eq!(uganda["data"]["lgas"].as_array().unwrap().len(), 26);
        let (status, shared) = get_json(&server, key, &lgas_url("state=Central")).await;
        assert_eq!(status, 400);
        assert_eq!(
            shared["message"],
            "state: names a region of Ghana and Uganda: give country too"
        );
        // Common names and any case.
        for abuja in ["Abuja", "FCT", "abuja"] {
            let (status, fct) = get_json(&server, key, &lgas_url(&format!("state={abuja}"))).await;
            assert_eq!(status, 200, "{abuja}");
            assert_eq!(fct["data"]["lgas"].as_array().unwrap().len(), 6, "{abuja}");
        }
        let (status, _) = get_json(&server, key, &lgas_url("state=Nairobi&country=KE")).await;
        assert_eq!(status, 200);
    }
}

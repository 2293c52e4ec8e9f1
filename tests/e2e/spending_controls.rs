//! Spending controls over HTTP: a card's own and its account's, refused
//! naming the field and the rule when malformed, applied to sandbox
//! debits, the processor's authorizations and 3-D Secure completions with
//! a decline code each, on windows of the test clock, and never passed by
//! concurrent debits; on SQLite and PostgreSQL.

use crate::card_transactions::{SANDBOX_PROCESSOR_SECRET, events_for, processor_sandbox};
use crate::cards::{Sandbox, unix_now};
use crate::harness::{bearer, client, ledger_check, sandbox_totals};
use crate::naira_cards::digits;
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

impl Sandbox {
    /// Moves the test clock to 01:00 GMT of a Monday whose month lasts
    /// 9 days more, so that the test's days, weeks and month are whole.
    async fn to_a_monday(&self) {
        let now = unix_now();
        let day = now.div_euclid(86_400);
        let mut monday = (day + 7 - (day + 3).rem_euclid(7)) * 86_400 + 3_600;
        let month = |at: i64| domain::Timestamp::from_unix(at).month_key();
        while month(monday) != month(monday + 9 * 86_400) {
            monday += 7 * 86_400;
        }
        self.advance(monday - now).await;
    }

    async fn card_controls(&self, card: &str) -> Value {
        let a = self.get(&format!("/cards/spending_controls?card_id={card}")).await;
        assert_eq!(a.status, 200, "{}", a.body);
        a.body["data"].clone()
    }

    /// A sandbox debit of `cents` on `card`, with `extra` fields: its status
    /// and decline code (none when approved).
    pub(crate) async fn spend(&self, card: &str, cents: i64, extra: Value) -> (u16, Option<String>) {
        let mut body = json!({"card_id": card, "amount": cents.to_string()});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let a = self.patch("/cards/mock_debit_transaction", body).await;
        (a.status, a.body["code"].as_str().map(str::to_string))
    }
}

fn declined(code: &str) -> (u16, Option<String>) {
    (400, Some(code.to_string()))
}

const APPROVED: (u16, Option<String>) = (200, None);

fn assert_ledger(db: &TestDb) {
    let (ok, out) = ledger_check(db);
    assert!(ok, "{}: {out}", db.backend());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_controls_are_refused_naming_the_field_and_change_nothing() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(81).await;
        let card = s.card(&holder, "10000").await;
        let path = format!("/cards/spending_controls?card_id={card}");
        for (body, field) in [
            (json!({"allowed_categories": []}), "allowed_categories"),
            (json!({"allowed_channels": []}), "allowed_channels"),
            (
                json!({"allowed_categories": ["5411"], "blocked_categories": ["5812"]}),
                "blocked_categories",
            ),
            (json!({"blocked_categories": ["Gambling"]}), "blocked_categories[0]"),
            (
                json!({"blocked_categories": ["5411", "54\u{0}1"]}),
                "blocked_categories[1]",
            ),
            (
                json!({"allowed_categories": ["ＬＯＤＧＩＮＧ"]}),
                "allowed_categories[0]",
            ),
            (json!({"blocked_categories": vec!["5411"; 101]}), "blocked_categories"),
            (json!({"allowed_channels": ["ATM"]}), "allowed_channels[0]"),
            (json!({"allowed_countries": ["NGA"]}), "allowed_countries[0]"),
            (json!({"allowed_countries": ["N\u{0}"]}), "allowed_countries[0]"),
            (json!({"allowed_countries": ["NG", "XX"]}), "allowed_countries[1]"),
            (json!({"daily_limit": "0"}), "daily_limit"),
            (json!({"weekly_limit": "-1"}), "weekly_limit"),
            (json!({"monthly_limit": "1.5"}), "monthly_limit"),
            (json!({"lifetime_limit": "1000000000000001"}), "lifetime_limit"),
            (
                json!({"per_authorization_limit": "99999999999999999999999"}),
                "per_authorization_limit",
            ),
            // A misspelt control would otherwise lift every other one.
            (json!({"daily_limt": "100"}), "daily_limt"),
        ] {
            for at in [path.as_str(), "/spending_controls"] {
                let a = s.put(at, body.clone()).await;
                let message = a.body["message"].as_str().unwrap_or_default();
                assert_eq!(a.status, 400, "{at} {body}: {}", a.body);
                assert!(message.starts_with(&format!("{field}:")), "{at} {body}: {message}");
            }
        }
        let none = json!({
            "allowed_categories": null, "blocked_categories": [], "allowed_channels": null,
            "allowed_countries": null, "per_authorization_limit": null, "daily_limit": null,
            "weekly_limit": null, "monthly_limit": null, "lifetime_limit": null,
        });
        let view = s.card_controls(&card).await;
        assert_eq!(view["spending_controls"], none, "nothing changed");
        assert_eq!(s.get("/spending_controls").await.body["data"], none);
        let other = s.get("/cards/spending_controls?card_id=card_nope").await;
        assert_eq!(
            (other.status, other.body["code"].as_str()),
            (400, Some("card_not_found"))
        );
        // A group is taken in any case and kept as the catalogue spells it;
        // countries in upper case; an empty body removes them all.
        let set = s
            .put(
                &path,
                json!({"allowed_categories": ["lodging", "5411"], "allowed_countries": ["ng"]}),
            )
            .await;
        assert_eq!(set.status, 200, "{}", set.body);
        let controls = &set.body["data"]["spending_controls"];
        assert_eq!(controls["allowed_categories"], json!(["Lodging", "5411"]));
        assert_eq!(controls["allowed_countries"], json!(["NG"]));
        assert_eq!(s.put(&path, json!({})).await.body["data"]["spending_controls"], none);
        // A PUT takes an Idempotency-Key as every write does.
        let keyed = async |body: Value| {
            client()
                .put(s.server.url(&format!("/v1/issuing/sandbox{path}")))
                .header("token", bearer(&s.key))
                .header("Idempotency-Key", "controls-1")
                .json(&body)
                .send()
                .await
                .unwrap()
        };
        let first = keyed(json!({"daily_limit": "500"})).await;
        assert_eq!(first.status(), 200);
        let again = keyed(json!({"daily_limit": "500"})).await;
        assert_eq!(again.headers()["Idempotent-Replayed"], "true");
        assert_eq!(keyed(json!({"daily_limit": "600"})).await.status(), 422);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_control_declines_with_its_code_on_the_test_clocks_windows() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = Sandbox::start(&db, Some(&receiver.url));
        s.to_a_monday().await;
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(82).await;
        let card = s.card(&holder, "50000").await;
        let set = s
            .put(
                &format!("/cards/spending_controls?card_id={card}"),
                json!({"blocked_categories": ["Transportation"], "allowed_channels": ["online", "pos"],
                       "allowed_countries": ["NG", "US"], "per_authorization_limit": 5_000, "daily_limit": "8000",
                       "weekly_limit": "12000"}),
            )
            .await;
        assert_eq!(set.status, 200, "{}", set.body);
        let uber = json!({"merchant": "UBER *TRIP HELP.UBER.COM", "merchant_category_code": "4121",
                          "merchant_country": "NG"});
        assert_eq!(s.spend(&card, 100, uber).await, declined("spending_control_category"));
        // The network's code decides the group, never the descriptor: a
        // taxi's code under a streaming service's name is still a taxi.
        let disguised = json!({"merchant": "NETFLIX.COM", "merchant_category_code": "4121"});
        assert_eq!(
            s.spend(&card, 100, disguised).await,
            declined("spending_control_category")
        );
        assert_eq!(
            s.spend(&card, 100, json!({"channel": "atm"})).await,
            declined("spending_control_channel")
        );
        let ghana = json!({"merchant": "SHOPRITE ACCRA", "merchant_country": "GH", "channel": "pos"});
        assert_eq!(s.spend(&card, 100, ghana).await, declined("spending_control_country"));
        let unknown = json!({"merchant": "SHOPRITE LAGOS"});
        assert_eq!(s.spend(&card, 100, unknown).await, declined("spending_control_country"));
        assert_eq!(
            s.spend(&card, 5_001, json!({})).await,
            declined("spending_control_limit_per_authorization")
        );
        assert_eq!(s.spend(&card, 5_000, json!({})).await, APPROVED);
        assert_eq!(
            s.spend(&card, 3_001, json!({"channel": "pos"})).await,
            declined("spending_control_limit_daily")
        );
        assert_eq!(s.spend(&card, 3_000, json!({"channel": "pos"})).await, APPROVED);
        // The next day of the test clock starts the day again; not the week.
        s.advance(86_400).await;
        assert_eq!(
            s.spend(&card, 4_001, json!({})).await,
            declined("spending_control_limit_weekly")
        );
        assert_eq!(s.spend(&card, 4_000, json!({})).await, APPROVED);
        let view = s.card_controls(&card).await;
        assert_eq!(
            view["spent"],
            json!({"daily": "4000", "weekly": "12000", "monthly": "12000", "lifetime": "12000"})
        );
        // The account's controls apply on top of the card's: a debit must
        // pass both.
        let account = s.put("/spending_controls", json!({"lifetime_limit": "12500"})).await;
        assert_eq!(account.status, 200, "{}", account.body);
        assert_eq!(account.body["data"]["lifetime_limit"], "12500");
        s.advance(7 * 86_400).await;
        assert_eq!(
            s.spend(&card, 501, json!({})).await,
            declined("spending_control_limit_lifetime")
        );
        assert_eq!(s.spend(&card, 500, json!({})).await, APPROVED);
        let view = s.card_controls(&card).await;
        assert_eq!(view["spent"]["weekly"], "500", "a new week");
        assert_eq!(view["spent"]["lifetime"], "12500");

        // Each decline was told, with its code; the card kept what was
        // not approved, and no decline counts towards deleting the card.
        let mut codes: Vec<String> = events_for(&receiver, "card_debit_event.declined", &card, 9)
            .await
            .into_iter()
            .map(|d| d["decline_code"].as_str().unwrap().to_string())
            .collect();
        codes.sort();
        assert_eq!(
            codes,
            [
                "spending_control_category",
                "spending_control_category",
                "spending_control_channel",
                "spending_control_country",
                "spending_control_country",
                "spending_control_limit_daily",
                "spending_control_limit_lifetime",
                "spending_control_limit_per_authorization",
                "spending_control_limit_weekly",
            ]
        );
        assert_eq!(s.balance(&card).await.0, 50_000 - 12_500);
        assert_eq!(sandbox_totals(&db)["USD"]["card_spend"], 12_500);
        assert_ledger(&db);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_processor_and_3ds_completions_are_held_to_the_controls() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let s = processor_sandbox(&db, &receiver);
        s.fund_wallet(100_000).await;
        s.fund_ngn_wallet(10_000_000).await;
        let holder = s.cardholder(83).await;
        let card = s.card(&holder, "20000").await;
        let naira = s.funded_naira_card(&holder, 5_000_000).await;
        let set = s
            .put(
                "/spending_controls",
                json!({"allowed_channels": ["online", "pos"], "allowed_countries": ["NG"]}),
            )
            .await;
        assert_eq!(set.status, 200, "{}", set.body);
        let authorize = async |channel: &str, country: &str, reference: &str| {
            let body = json!({"card_id": card, "amount": "700", "merchant": "SHOPRITE LAGOS", "channel": channel,
                              "merchant_country": country, "transaction_reference": reference});
            let a = s
                .processor("authorizations", &body, Some((SANDBOX_PROCESSOR_SECRET, 0)))
                .await;
            assert_eq!(a.status, 200, "{}", a.body);
            (
                a.body["data"]["decision"].clone(),
                a.body["data"]["reason_code"].clone(),
            )
        };
        assert_eq!(
            authorize("atm", "NG", "p1").await,
            (json!("decline"), json!("spending_control_channel"))
        );
        assert_eq!(
            authorize("pos", "KE", "p2").await,
            (json!("decline"), json!("spending_control_country"))
        );
        assert_eq!(
            authorize("pos", "ng", "p3").await,
            (json!("approve"), json!("approved"))
        );
        let bad = json!({"card_id": card, "amount": "700", "merchant": "SHOPRITE", "channel": "teleport",
                         "transaction_reference": "p4"});
        let refused = s
            .processor("authorizations", &bad, Some((SANDBOX_PROCESSOR_SECRET, 0)))
            .await;
        assert_eq!(refused.status, 400, "{}", refused.body);

        // A 3-D Secure debit waits with its merchant's country; its
        // completion is decided under the controls then in force.
        let challenge = json!({"card_id": naira, "amount": "25000", "transaction_reference": "t1", "three_ds": true,
                               "merchant": "JUMIA ACCRA", "merchant_country": "GH"});
        let mut at_pos = challenge.clone();
        at_pos["channel"] = json!("pos");
        let refused = s.patch("/naira_cards/mock_debit_naira_card", at_pos).await;
        let message = refused.body["message"].as_str().unwrap_or_default();
        assert!(
            refused.status == 400 && message.starts_with("channel:"),
            "3-D Secure is online: {}",
            refused.body
        );
        let opened = s.patch("/naira_cards/mock_debit_naira_card", challenge).await;
        assert_eq!(opened.status, 202, "{}", opened.body);
        let code = digits(&s.otp(&naira, "25000").await);
        let done = s
            .post(
                "/naira_cards/complete_3ds",
                json!({"card_id": naira, "transaction_reference": "t1", "otp": code}),
            )
            .await;
        assert_eq!(
            (done.status, done.body["code"].as_str()),
            (400, Some("spending_control_country")),
            "{}",
            done.body
        );
        assert_eq!(s.balance(&card).await.0, 20_000 - 700);
        assert_ledger(&db);
    }
}

/// 200 debits at once against a daily limit: the approved total reaches
/// the limit as closely as whole debits can and never passes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_debits_never_pass_a_daily_limit() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        s.to_a_monday().await;
        s.fund_wallet(200_000).await;
        let holder = s.cardholder(84).await;
        let card = s.card(&holder, "100000").await;
        let path = format!("/cards/spending_controls?card_id={card}");
        assert_eq!(s.put(&path, json!({"daily_limit": "10000"})).await.status, 200);
        let answers = futures::future::join_all((0..200).map(|_| s.spend(&card, 97, json!({})))).await;
        let approved = answers.iter().filter(|a| **a == APPROVED).count() as i64;
        let limited = answers
            .iter()
            .filter(|a| **a == declined("spending_control_limit_daily"))
            .count();
        assert_eq!(approved + limited as i64, 200, "{answers:?}");
        assert_eq!(approved, 10_000 / 97, "{}", db.backend());
        assert_eq!(
            s.card_controls(&card).await["spent"]["daily"],
            (approved * 97).to_string()
        );
        assert_eq!(s.balance(&card).await.0, 100_000 - approved * 97);
        assert_ledger(&db);
    }
}

//! Rewards over HTTP and the CLI: the catalogue import, assigning and
//! listing rewards, claiming a deal on its hosted page, the reward rules
//! through the test clock, and the spending charts page; on SQLite and
//! PostgreSQL.

use crate::cardholders::account_created;
use crate::cards::{Answer, Sandbox, event};
use crate::harness::{Server, client, issuing, ledger_check, run};
use crate::receiver::Receiver;
use adapters::test_db::TestDb;
use serde_json::{Value, json};

/// A sandbox of a new account with webhooks to `receiver`, and its id.
pub(crate) fn sandbox(db: &TestDb, receiver: &Receiver) -> (Sandbox, String) {
    let server = Server::start(db);
    let created = account_created(db, Some(&receiver.url));
    let sandbox = Sandbox {
        server,
        key: created["test_secret_key"].as_str().unwrap().to_string(),
    };
    (sandbox, created["account_id"].as_str().unwrap().to_string())
}

/// `issuing` with `args`: whether it succeeded, and what it printed.
fn cli(db: &TestDb, args: &[&str]) -> (bool, String) {
    let out = run(issuing(db).args(args));
    let printed = String::from_utf8_lossy(if out.status.success() { &out.stdout } else { &out.stderr });
    (out.status.success(), printed.into_owned())
}

/// Imports `catalogue` written to a file ending in `extension`.
pub(crate) fn import(db: &TestDb, extension: &str, catalogue: &str) -> (bool, String) {
    let file = tempfile::Builder::new().suffix(extension).tempfile().unwrap();
    std::fs::write(file.path(), catalogue).unwrap();
    cli(db, &["rewards", "import", file.path().to_str().unwrap()])
}

/// A catalogue of one deal of two products.
pub(crate) fn one_deal() -> String {
    let promo = |id: &str, code: &str, description: &str| {
        json!({"id": id, "coupon_code": code, "merchant": "Jumia", "description": description,
               "valid_till": "2030-01-31", "success_record": 90, "upvotes": 3, "downvotes": 1,
               "product_link": "https://www.jumia.com.ng/"})
    };
    json!({"deals": [{"id": "deal_phones", "merchant": "Jumia", "description": "Pick a phone accessory",
                      "products": [{"name": "Charger", "promo_code": promo("promo_charger", "CHARGE20", "20% off fast chargers & cables")},
                                   {"name": "Case", "promo_code": promo("promo_case", "CASE15", "15% off phone cases & screen guards")}]}]})
    .to_string()
}

impl Sandbox {
    pub(crate) async fn rewards(&self, holder: &str) -> Vec<Value> {
        let a = self
            .get(&format!("/reward/get_cardholder_rewards?cardholder_id={holder}"))
            .await;
        assert_eq!(a.status, 200, "{}", a.body);
        a.body["data"]["rewards"].as_array().unwrap().clone()
    }

    pub(crate) async fn card_token(&self, card: &str) -> String {
        self.advance(3).await;
        let a = self
            .get(&format!("/cards/generate_token_for_card_details?card_id={card}"))
            .await;
        assert_eq!(a.status, 200, "{}", a.body);
        a.body["data"]["token"].as_str().unwrap().to_string()
    }

    /// Debits of 85.49 USD in all: 32.50 on transport (two), 45.99 at a
    /// department store, 7.00 for lodging (a service provider).
    pub(crate) async fn spend_in_three_categories(&self, card: &str) {
        self.debit(card, 1_250, "4121", "BOLT.EU/R/9").await;
        self.debit(card, 2_000, "4121", "KANO TAXI SERVICES").await;
        self.debit(card, 4_599, "5311", "ADEBAYO DEPT STORE").await;
        self.debit(card, 700, "7011", "LAGOS GUEST HOUSE").await;
    }

    /// A debit of `cents` at a merchant of category `mcc`.
    pub(crate) async fn debit(&self, card: &str, cents: u32, mcc: &str, merchant: &str) {
        let body =
            json!({"card_id": card, "amount": cents.to_string(), "merchant_category_code": mcc, "merchant": merchant});
        let a = self.patch("/cards/mock_debit_transaction", body).await;
        assert_eq!(a.status, 200, "{}", a.body);
    }
}

/// A page of the API listener, with a cookie or not.
async fn page(s: &Sandbox, path: &str, cookie: Option<&str>) -> Answer {
    let mut request = client().get(s.server.url(path));
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    html(request.send().await.unwrap()).await
}

async fn html(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = Value::String(response.text().await.unwrap());
    Answer { status, body, headers }
}

async fn claim(s: &Sandbox, cookie: Option<&str>, form: &str) -> Answer {
    let mut request = client()
        .post(s.server.url("/web/rewards"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string());
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    html(request.send().await.unwrap()).await
}

fn text(a: &Answer) -> &str {
    a.body.as_str().unwrap_or_default()
}

fn deal_url(token: &str, card_token: &str, merchant: &str, environment: Option<&str>) -> String {
    let env = environment.map(|e| format!("&environment={e}")).unwrap_or_default();
    format!("/web/rewards?reward_token={token}&card_token={card_token}&merchant={merchant}{env}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deal_is_assigned_listed_and_claimed_once_on_its_page() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (s, _) = sandbox(&db, &receiver);
        // A catalogue that breaks a rule is refused whole, with its line.
        let bad = "type,id,merchant,description,coupon_code,valid_till,success_record,upvotes,downvotes,product_link,deal_id,product\n\
                   PROMO_CODE,p1,Jumia,x,J10,2030-01-31,90,1,0,https://www.jumia.com.ng/,,\n\
                   PROMO_CODE,p2,Nobody,x,N10,2030-01-31,90,1,0,https://nobody.test/,,\n";
        let (ok, said) = import(&db, ".csv", bad);
        assert!(!ok && said.contains("line 3: merchant:"), "{said}");
        let (ok, said) = import(&db, ".json", &one_deal());
        assert!(ok, "{said}");
        s.fund_wallet(10_000).await;
        let holder = s.cardholder(61).await;
        let card = s.card(&holder, "1000").await;

        let assigned = s.post("/reward/assign_reward", json!({"cardholder_id": holder})).await;
        assert_eq!(
            (assigned.status, &assigned.body["data"]),
            (201, &json!({})),
            "{}",
            assigned.body
        );
        let told = event(&receiver, "reward_assigned_event.successful", |d| {
            d["cardholder_id"] == holder.as_str()
        })
        .await;
        let mut keys: Vec<&str> = told.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        let contract = [
            "cardholder_id",
            "issuing_app_id",
            "livemode",
            "reward_description",
            "reward_id",
            "reward_type",
        ];
        assert_eq!(keys, contract, "{}", db.backend());
        assert_eq!(
            (told["reward_type"].as_str(), told["livemode"].as_bool()),
            (Some("DEAL"), Some(false))
        );
        for (path, status) in [
            ("/reward/assign_reward", 400),
            ("/reward/get_cardholder_rewards?cardholder_id=ch_nope", 400),
        ] {
            let a = match status {
                _ if path.contains('?') => s.get(path).await,
                _ => s.post(path, json!({"cardholder_id": "ch_nope"})).await,
            };
            assert_eq!(a.status, status, "{path}: {}", a.body);
        }
        let rewards = s.rewards(&holder).await;
        assert_eq!(rewards.len(), 1);
        let deal = &rewards[0];
        assert_eq!(deal["reward_id"], told["reward_id"]);
        assert_eq!(
            (deal["reward_type"].as_str(), deal["has_been_claimed"].as_bool()),
            (Some("DEAL"), Some(false))
        );
        assert_eq!(deal["DEAL"]["merchant"], "Jumia");
        let token = deal["reward_token"].as_str().unwrap().to_string();

        // Wrong links say what is wrong and use nothing up.
        let card_token = s.card_token(&card).await;
        let wrong_merchant = page(&s, &deal_url(&token, &card_token, "Konga", Some("sandbox")), None).await;
        assert_eq!(wrong_merchant.status, 400, "{}", text(&wrong_merchant));
        assert!(text(&wrong_merchant).contains("merchant"));
        let production = page(&s, &deal_url(&token, &card_token, "Jumia", None), None).await;
        assert_eq!(production.status, 401, "a sandbox reward is no production one");
        let flipped = if token.ends_with('0') { '1' } else { '0' };
        let forged = format!("{}{flipped}", &token[..token.len() - 1]);
        let forged = page(&s, &deal_url(&forged, &card_token, "Jumia", Some("sandbox")), None).await;
        assert_eq!(forged.status, 401);
        // Another cardholder's card with this real token is answered as the
        // forged token is, whatever else the link says: nothing tells the
        // token is real.
        let stranger = s.cardholder(62).await;
        let strangers_card = s.card(&stranger, "1000").await;
        let strangers_token = s.card_token(&strangers_card).await;
        for merchant in ["Jumia", "Konga"] {
            let url = deal_url(&token, &strangers_token, merchant, Some("sandbox"));
            let theirs = page(&s, &url, None).await;
            assert_eq!(
                (theirs.status, text(&theirs)),
                (forged.status, text(&forged)),
                "{merchant}"
            );
        }

        let opened = page(&s, &deal_url(&token, &card_token, "Jumia", Some("sandbox")), None).await;
        assert_eq!(opened.status, 200, "{}", text(&opened));
        let csp = opened.headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'none'") && !csp.contains("unsafe"), "{csp}");
        assert_eq!(opened.headers["referrer-policy"], "no-referrer");
        let set_cookie = opened.headers["set-cookie"].to_str().unwrap();
        assert!(
            set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Strict"),
            "{set_cookie}"
        );
        let cookie = set_cookie.split(';').next().unwrap().to_string();
        let html = text(&opened);
        assert!(
            html.contains("Charger") && html.contains("chargers &amp; cables"),
            "escaped: {html}"
        );
        let csrf = html
            .split("name=\"csrf\" value=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string();
        let again = page(&s, &deal_url(&token, &card_token, "Jumia", Some("sandbox")), None).await;
        assert_eq!(again.status, 401, "the card token was used");

        for (cookie, form, status) in [
            (None, format!("csrf={csrf}&product=Case"), 401),
            (Some(cookie.as_str()), "csrf=0&product=Case".to_string(), 400),
            (Some(cookie.as_str()), format!("csrf={csrf}&product=Laptop"), 400),
        ] {
            let refused = claim(&s, cookie, &form).await;
            assert_eq!(refused.status, status, "{form}: {}", text(&refused));
        }
        let form = format!("csrf={csrf}&product=Case");
        let claims = futures::future::join_all((0..2).map(|_| claim(&s, Some(&cookie), &form))).await;
        for claimed in &claims {
            assert_eq!(claimed.status, 200, "{}", text(claimed));
            assert!(text(claimed).contains("CASE15"), "a double click shows the one code");
        }
        let rewards = s.rewards(&holder).await;
        assert_eq!(rewards.len(), 1);
        let code = &rewards[0];
        assert_eq!(
            (code["reward_type"].as_str(), code["has_been_claimed"].as_bool()),
            (Some("PROMO_CODE"), Some(true))
        );
        assert_eq!(code["PROMO_CODE"]["coupon_code"], "CASE15");
        assert_eq!(code["PROMO_CODE"]["valid_till_date"], "31/01/2030");
        assert!(code.get("reward_token").is_none());
        let claimed = page(
            &s,
            &deal_url(&token, &s.card_token(&card).await, "Jumia", Some("sandbox")),
            None,
        )
        .await;
        assert_eq!(claimed.status, 409, "{}", text(&claimed));
        assert!(
            text(&claimed).contains("CASE15"),
            "the code claimed is shown: {}",
            text(&claimed)
        );
        // Shapes are told apart from lookups, and a HEAD does no work.
        for (reward_token, card_token, says) in [
            ("garbage", "x".repeat(48), "reward_token"),
            (token.as_str(), "short".to_string(), "card_token"),
        ] {
            let url = deal_url(reward_token, &card_token, "Jumia", Some("sandbox"));
            let refused = page(&s, &url, None).await;
            assert_eq!(refused.status, 400, "{}", text(&refused));
            assert!(text(&refused).contains(says), "{}", text(&refused));
        }
        let link_token = s.card_token(&card).await;
        let headed = client()
            .head(s.server.url(&deal_url(&token, &link_token, "Jumia", Some("sandbox"))))
            .send()
            .await
            .unwrap();
        assert_eq!(headed.status(), 200);
        assert!(headed.headers().contains_key("content-security-policy"));
        let after = page(&s, &deal_url(&token, &link_token, "Jumia", Some("sandbox")), None).await;
        assert_eq!(after.status, 409, "the HEAD left the card token: {}", text(&after));

        // Another cardholder's card does not open this cardholder's deal,
        // and its token is left to its owner.
        s.post("/reward/assign_reward", json!({"cardholder_id": holder})).await;
        let fresh = s.rewards(&holder).await[1]["reward_token"]
            .as_str()
            .unwrap()
            .to_string();
        let foreign = page(&s, &deal_url(&fresh, &strangers_token, "Jumia", Some("sandbox")), None).await;
        assert_eq!(foreign.status, 401, "{}", text(&foreign));
        let redeem = format!("/cards/get_card_details_from_token?token={strangers_token}");
        let kept = s.call_at(&s.server.relay, reqwest::Method::GET, &redeem, None).await;
        assert_eq!(
            kept.status, 200,
            "the other cardholder's token was not used up: {}",
            kept.body
        );
        // The production path has no assign_reward.
        assert_eq!(
            client()
                .post(s.server.url("/v1/issuing/reward/assign_reward"))
                .send()
                .await
                .unwrap()
                .status(),
            404
        );
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reward_rules_earn_a_reward_once_a_period_through_the_test_clock() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (s, account) = sandbox(&db, &receiver);
        let rules = s.get("/reward/rules").await;
        assert_eq!(
            rules.body["data"],
            json!({"enabled": false, "spend_threshold": "9900", "monthly_debits": 2, "inactivity_days": 21})
        );
        for (body, field) in [
            (json!({"enabled": true}), "enabled"),
            (json!({"monthly_debits": 0}), "monthly_debits"),
            (json!({"inactivity_days": 367}), "inactivity_days"),
            (json!({"spend_threshold": "1000000000000001"}), "spend_threshold"),
            (json!({"spend_threshold": "-1"}), "spend_threshold"),
        ] {
            let refused = s.patch("/reward/rules", body.clone()).await;
            assert_eq!(refused.status, 400, "{body}: {}", refused.body);
            assert!(
                refused.body["message"].as_str().unwrap().contains(field),
                "{}",
                refused.body
            );
        }
        let changed = s.patch("/reward/rules", json!({"inactivity_days": 30})).await;
        assert_eq!(changed.body["data"]["inactivity_days"], 30, "{}", changed.body);
        let (ok, said) = cli(&db, &["accounts", "update", &account, "--rewards", "on"]);
        assert!(ok, "{said}");
        let (ok, said) = cli(
            &db,
            &[
                "rewards",
                "rules",
                &account,
                "--mode",
                "test",
                "--inactivity-days",
                "21",
            ],
        );
        assert!(ok, "{said}");
        let printed: Value = serde_json::from_str(said.trim()).unwrap();
        assert_eq!(
            (printed["enabled"].as_bool(), printed["inactivity_days"].as_u64()),
            (Some(true), Some(21))
        );
        let (ok, said) = cli(&db, &["rewards", "rules", "acct_nope", "--mode", "test"]);
        assert!(!ok && said.contains("account_id"), "{said}");

        s.fund_wallet(100_000).await;
        let holder = s.cardholder(63).await;
        let card = s.card(&holder, "50000").await;
        let earned = |n: usize| {
            let receiver = &receiver;
            let holder = holder.clone();
            async move {
                let arrived = receiver
                    .wait_for(20, |r| {
                        r.deliveries()
                            .iter()
                            .filter(|d| d.body.contains("reward_assigned_event") && d.body.contains(&holder))
                            .count()
                            >= n
                    })
                    .await;
                assert!(arrived, "{n} rewards");
            }
        };
        // 60 USD: neither rule yet. 120 USD in two debits: both rules.
        s.debit(&card, 6_000, "4121", "BOLT.EU/R/1").await;
        s.debit(&card, 6_000, "4121", "BOLT.EU/R/2").await;
        earned(2).await;
        s.debit(&card, 6_000, "4121", "BOLT.EU/R/3").await;
        tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
        assert_eq!(s.rewards(&holder).await.len(), 2, "once a month per rule");
        // Three weeks without a debit: the inactivity rule.
        s.advance(21 * 86_400 + 60).await;
        earned(3).await;
        // A new month: the month rules again.
        s.advance(31 * 86_400).await;
        s.debit(&card, 5_000, "4121", "BOLT.EU/R/4").await;
        s.debit(&card, 5_000, "4121", "BOLT.EU/R/5").await;
        earned(5).await;
        assert_eq!(s.rewards(&holder).await.len(), 5);
        let (ok, out) = ledger_check(&db);
        assert!(ok, "{}: {out}", db.backend());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_charts_page_draws_a_cards_spending_by_month_and_by_category() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (s, _) = sandbox(&db, &receiver);
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(64).await;
        let card = s.card(&holder, "20000").await;
        s.spend_in_three_categories(&card).await;
        let pan = s.details_in_clear(&card).await;
        let pan = pan.body["data"]["card_number"].as_str().unwrap().to_string();

        let pie = page(
            &s,
            &format!(
                "/web/graphs?card_token={}&chart_type=pie_chart",
                s.card_token(&card).await
            ),
            None,
        )
        .await;
        assert_eq!(pie.status, 200, "{}", text(&pie));
        let drawn = text(&pie);
        assert!(drawn.contains("<svg"), "{drawn}");
        for shown in [
            "Transportation: USD 32.50",
            "Retail outlets: USD 45.99",
            "Service providers: USD 7.00",
        ] {
            assert!(drawn.contains(shown), "{shown} in {drawn}");
        }
        assert!(!drawn.contains(&pan), "no card number on the page");
        let bar = page(
            &s,
            &format!(
                "/web/graphs?card_token={}&chart_type=bar_chart",
                s.card_token(&card).await
            ),
            None,
        )
        .await;
        assert_eq!(bar.status, 200);
        assert!(
            text(&bar).contains("85.49") && text(&bar).contains("USD 85.49"),
            "{}",
            text(&bar)
        );

        let token = s.card_token(&card).await;
        let unknown = page(
            &s,
            &format!("/web/graphs?card_token={token}&chart_type=line_chart"),
            None,
        )
        .await;
        assert_eq!(unknown.status, 400);
        assert!(text(&unknown).contains("chart_type"));
        let used = page(
            &s,
            &format!("/web/graphs?card_token={token}&chart_type=pie_chart"),
            None,
        )
        .await;
        assert_eq!(used.status, 200, "a refused chart type used nothing");
        let reused = page(
            &s,
            &format!("/web/graphs?card_token={token}&chart_type=pie_chart"),
            None,
        )
        .await;
        assert_eq!(reused.status, 401);
        let expired = s.card_token(&card).await;
        s.advance(301).await;
        let late = page(
            &s,
            &format!("/web/graphs?card_token={expired}&chart_type=bar_chart"),
            None,
        )
        .await;
        assert_eq!(late.status, 401);

        let quiet = s.card(&holder, "1000").await;
        let empty = page(
            &s,
            &format!(
                "/web/graphs?card_token={}&chart_type=pie_chart",
                s.card_token(&quiet).await
            ),
            None,
        )
        .await;
        assert_eq!(empty.status, 200);
        assert!(text(&empty).contains("No spending") && !text(&empty).contains("<svg"));
        for (method, path, allow) in [
            ("DELETE", "/web/graphs", "GET, HEAD"),
            ("PUT", "/web/rewards", "GET, HEAD, POST"),
        ] {
            let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
            let refused = html(client().request(method, s.server.url(path)).send().await.unwrap()).await;
            assert_eq!(
                (refused.status, refused.headers["allow"].to_str().unwrap()),
                (405, allow)
            );
            assert!(text(&refused).contains("<h1>"), "an HTML page");
        }
        let css = client().get(s.server.url("/web/page.css")).send().await.unwrap();
        assert_eq!(css.headers()["content-type"], "text/css; charset=utf-8");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promo_code_shows_unavailable_once_its_last_day_ended() {
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let (s, _) = sandbox(&db, &receiver);
        let tomorrow = {
            let clock = s.get("/test_clock").await;
            let now = clock.body["data"]["now"].as_i64().unwrap();
            domain::Timestamp::from_unix(now + 86_400).gmt()[..10].to_string()
        };
        let catalogue = json!({"promo_codes": [{"id": "promo_soon", "coupon_code": "SOON10", "merchant": "Konga",
            "description": "10% off today and tomorrow", "valid_till": tomorrow, "success_record": 70,
            "upvotes": 1, "downvotes": 0, "product_link": "https://www.konga.com/"}]});
        let (ok, said) = import(&db, ".json", &catalogue.to_string());
        assert!(ok, "{said}");
        let holder = s.cardholder(65).await;
        let assigned = s.post("/reward/assign_reward", json!({"cardholder_id": holder})).await;
        assert_eq!(assigned.status, 201, "{}", assigned.body);
        let shown = |r: &Vec<Value>| r[0]["PROMO_CODE"]["is_available"].as_bool();
        assert_eq!(shown(&s.rewards(&holder).await), Some(true));
        s.advance(2 * 86_400).await;
        assert_eq!(shown(&s.rewards(&holder).await), Some(false), "{}", db.backend());
        // Nothing left to give: the only promo code expired.
        let none = s.post("/reward/assign_reward", json!({"cardholder_id": holder})).await;
        assert_eq!(
            (none.status, none.body["code"].as_str()),
            (400, Some("no_reward_available"))
        );
    }
}

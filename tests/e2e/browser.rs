//! The hosted pages and the dashboard in a real headless Chromium
//! (Debian's `chromium` and `chromium-driver`), driven over WebDriver:
//! claiming a deal by clicking and reading the charts the browser drew, at
//! a phone's size; running an account from the dashboard, at a laptop's.
//!
//! Without chromedriver the test says it was skipped, unless
//! `ISSUING_BROWSER_TESTS=required` (CI) makes that a failure. With
//! `ISSUING_SCREENSHOTS=<dir>` it saves the pages' screenshots there (the
//! ones in docs/images were made so).

use crate::cardholders::nigerian;
use crate::cards::Sandbox;
use crate::dashboard::{PASSWORD, operator_link, totp_code};
use crate::harness::{Server, eventually, ledger_check, on_fakes};
use crate::receiver::Receiver;
use crate::rewards::{import, one_deal, sandbox};
use adapters::test_db::TestDb;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// chromedriver on a free port, stopped when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The driver, or `None` (said) when this machine has no Chromium.
fn driver() -> Option<Driver> {
    let present = std::path::Path::new(CHROMEDRIVER).exists() && std::path::Path::new(CHROMIUM).exists();
    if !present {
        let required = std::env::var("ISSUING_BROWSER_TESTS").is_ok_and(|v| v == "required");
        assert!(
            !required,
            "ISSUING_BROWSER_TESTS=required, but {CHROMEDRIVER} or {CHROMIUM} is missing"
        );
        eprintln!("note: no {CHROMEDRIVER}: the browser tests were skipped (apt install chromium chromium-driver)");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    })
}

/// The window a test's Chromium has.
#[derive(Clone, Copy)]
enum Window {
    /// 390x844, emulating a phone (a desktop window would not go below 500 wide).
    Phone,
    /// 1280x800.
    Laptop,
}

/// A headless Chromium session with `window`.
async fn chromium(driver: &Driver, window: Window) -> Client {
    let mut args = vec![
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
    ];
    let mut options = json!({"binary": CHROMIUM});
    match window {
        Window::Phone => {
            options["mobileEmulation"] = json!({"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2.0}});
        }
        Window::Laptop => args.push("--window-size=1280,800"),
    }
    options["args"] = json!(args);
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("goog:chromeOptions".into(), options);
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("a Chromium session")
}

/// Saves a screenshot of the page as `name` when asked to.
async fn keep(browser: &Client, name: &str) {
    if let Ok(dir) = std::env::var("ISSUING_SCREENSHOTS") {
        let png = browser.screenshot().await.unwrap();
        std::fs::write(std::path::Path::new(&dir).join(name), png).unwrap();
    }
}

async fn heading(browser: &Client) -> String {
    browser.find(Locator::Css("h1")).await.unwrap().text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deal_is_claimed_and_the_charts_are_read_in_a_real_browser() {
    let Some(driver) = driver() else { return };
    let db = TestDb::sqlite();
    let receiver = Receiver::start();
    let (s, _) = sandbox(&db, &receiver);
    let (ok, said) = import(&db, ".json", &one_deal());
    assert!(ok, "{said}");
    s.fund_wallet(100_000).await;
    let holder = s.cardholder(71).await;
    let card = s.card(&holder, "20000").await;
    s.post("/reward/assign_reward", json!({"cardholder_id": holder})).await;
    let token = s.rewards(&holder).await[0]["reward_token"]
        .as_str()
        .unwrap()
        .to_string();
    let browser = chromium(&driver, Window::Phone).await;

    // Pick the second product, claim, and see its code.
    let deal = |card_token: &str| {
        s.server.url(&format!(
            "/web/rewards?reward_token={token}&card_token={card_token}&merchant=Jumia&environment=sandbox"
        ))
    };
    let link = deal(&s.card_token(&card).await);
    browser.goto(&link).await.unwrap();
    assert_eq!(heading(&browser).await, "Jumia");
    let width = browser.execute("return window.innerWidth", vec![]).await.unwrap();
    assert_eq!(width, json!(390), "a phone's viewport");
    keep(&browser, "deal-page.png").await;
    browser
        .find(Locator::Css("input[value='Case']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .find(Locator::Css("button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let code = browser.wait().for_element(Locator::Css(".code")).await.unwrap();
    assert_eq!(code.text().await.unwrap(), "CASE15");
    keep(&browser, "deal-claimed.png").await;
    let claimed = &s.rewards(&holder).await[0];
    assert_eq!(
        (claimed["reward_type"].as_str(), claimed["has_been_claimed"].as_bool()),
        (Some("PROMO_CODE"), Some(true))
    );
    // The same link again: its card token was used.
    browser.goto(&link).await.unwrap();
    assert_eq!(heading(&browser).await, "This link has expired");
    // A fresh link: the deal is a promo code now, shown to its cardholder.
    browser.goto(&deal(&s.card_token(&card).await)).await.unwrap();
    assert_eq!(heading(&browser).await, "Already claimed");
    let code = browser.find(Locator::Css(".code")).await.unwrap();
    assert_eq!(code.text().await.unwrap(), "CASE15");

    // The charts of known debits in three categories.
    s.spend_in_three_categories(&card).await;
    let chart = |kind: &'static str| {
        let s: &Sandbox = &s;
        let card = card.clone();
        async move {
            let token = s.card_token(&card).await;
            s.server
                .url(&format!("/web/graphs?card_token={token}&chart_type={kind}"))
        }
    };
    let pie = chart("pie_chart").await;
    browser.goto(&pie).await.unwrap();
    let drawn = svg_texts(&browser).await;
    for shown in [
        "Transportation: USD 32.50",
        "Retail outlets: USD 45.99",
        "Service providers: USD 7.00",
    ] {
        assert!(drawn.iter().any(|t| t == shown), "{shown} in {drawn:?}");
    }
    keep(&browser, "charts-pie.png").await;
    browser.goto(&chart("bar_chart").await).await.unwrap();
    let drawn = svg_texts(&browser).await;
    assert!(drawn.iter().any(|t| t == "85.49"), "{drawn:?}");
    keep(&browser, "charts-bar.png").await;
    // A used card token, and an expired one.
    browser.goto(&pie).await.unwrap();
    assert_eq!(heading(&browser).await, "This link has expired");
    let expired = chart("pie_chart").await;
    s.advance(301).await;
    browser.goto(&expired).await.unwrap();
    assert_eq!(heading(&browser).await, "This link has expired");
    browser.close().await.unwrap();
}

/// The text of every `<text>` element of the page's SVG, as drawn.
async fn svg_texts(browser: &Client) -> Vec<String> {
    let mut texts = vec![];
    for element in browser.find_all(Locator::Css("svg text")).await.unwrap() {
        let text = element.html(true).await.unwrap();
        texts.push(text.trim().replace("&amp;", "&"));
    }
    texts
}

/// Fills the fields of the form matched by `form` and submits it, and
/// waits for the page it leads to.
async fn submit(browser: &Client, form: &str, fields: &[(&str, &str)]) {
    let found = browser.form(Locator::Css(form)).await.unwrap();
    for (name, value) in fields {
        found.set_by_name(name, value).await.unwrap();
    }
    navigating(browser, found.submit()).await;
}

/// Clicks the button matched by `css`, and waits for the page it leads to.
async fn click(browser: &Client, css: &str) {
    let button = browser.find(Locator::Css(css)).await.unwrap();
    navigating(browser, button.click()).await;
}

/// Runs `action`, then waits until this page's body is gone (the next
/// page loaded), for at most 10 seconds.
async fn navigating<T, E: std::fmt::Debug>(browser: &Client, action: impl Future<Output = Result<T, E>>) {
    let body = browser.find(Locator::Css("body")).await.unwrap();
    action.await.unwrap();
    for _ in 0..200 {
        if body.tag_name().await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the page did not change");
}

async fn text_of(browser: &Client, css: &str) -> String {
    browser.find(Locator::Css(css)).await.unwrap().text().await.unwrap()
}

/// A 1x1 PNG, served as a KYC case's images.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// An HTTP server answering every request with [`PIXEL`], for as long as
/// the tests run: where a case's images are stored.
fn image_host() -> String {
    use base64::Engine;
    use std::io::{Read, Write};
    let png = base64::engine::general_purpose::STANDARD.decode(PIXEL).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            let _ = stream.read(&mut [0; 4096]);
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                png.len()
            );
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&png));
        }
    });
    url
}

/// axe-core's script, when installed (`npm ci --prefix tests/axe`);
/// `ISSUING_AXE=required` (CI) makes its absence a failure.
fn axe() -> Option<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/axe/node_modules/axe-core/axe.min.js"
    );
    let script = std::fs::read_to_string(path).ok();
    if script.is_none() {
        let required = std::env::var("ISSUING_AXE").is_ok_and(|v| v == "required");
        assert!(!required, "ISSUING_AXE=required, but {path} is missing");
        eprintln!("note: no axe-core: the accessibility checks were skipped (npm ci --prefix tests/axe)");
    }
    script
}

/// What axe-core finds against WCAG 2.1 A and AA on the page: nothing.
async fn accessible(browser: &Client, axe: &Option<String>, screen: &str) {
    let Some(axe) = axe else { return };
    browser.execute(axe, vec![]).await.unwrap();
    let run = "const done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
          .then(r => done(r.violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))));";
    let found = browser.execute_async(run, vec![]).await.unwrap();
    assert_eq!(found, json!([]), "{screen}: axe-core found these broken");
}

/// Sets a password through a link, then signs in with it.
async fn first_sign_in(browser: &Client, link: &str, email: &str) {
    browser.goto(link).await.unwrap();
    assert_eq!(heading(browser).await, "Set your password");
    submit(browser, "form[action='/set-password']", &[("password", PASSWORD)]).await;
    assert_eq!(heading(browser).await, "Sign in");
    submit(
        browser,
        "form[action='/login']",
        &[("email", email), ("password", PASSWORD)],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_runs_an_account_from_its_making_to_a_frozen_card_in_a_real_browser() {
    if on_fakes() {
        return; // The simulator's manual review by BVN suffix.
    }
    let Some(driver) = driver() else { return };
    let axe = axe();
    for db in TestDb::all().await {
        let receiver = Receiver::start();
        let server = Server::start(&db);
        let console = server.dashboard.clone().unwrap();
        let browser = chromium(&driver, Window::Laptop).await;

        // The operator's first sign-in, from the CLI's link.
        let link = operator_link(&db, &console, "ops@example.ng");
        first_sign_in(&browser, &link, "ops@example.ng").await;
        assert_eq!(heading(&browser).await, "Accounts");
        // Two-step sign-in first: the operator changes nothing without it.
        browser.goto(&format!("{console}/security")).await.unwrap();
        accessible(&browser, &axe, "security").await;
        let secret_field = browser.find(Locator::Css("input[name='secret']")).await.unwrap();
        let totp = secret_field.attr("value").await.unwrap().unwrap();
        submit(&browser, "form[action='/security']", &[("code", &totp_code(&totp))]).await;
        // Signed out by it: the next sign-in asks for the code.
        assert_eq!(heading(&browser).await, "Sign in");
        let code = totp_code(&totp);
        let signing_in = [("email", "ops@example.ng"), ("password", PASSWORD), ("code", &code)];
        submit(&browser, "form[action='/login']", &signing_in).await;
        browser.goto(&format!("{console}/security")).await.unwrap();
        assert!(
            text_of(&browser, "[data-second-factor]")
                .await
                .starts_with("Two-step sign-in is on")
        );
        browser.goto(&format!("{console}/operator")).await.unwrap();
        keep(&browser, "dashboard-operator-accounts.png").await;
        accessible(&browser, &axe, "accounts").await;
        let fields = [
            ("name", "Acme Pay"),
            ("admin_email", "ada@acme.ng"),
            ("company_address", "1 Marina, Lagos"),
            ("utility_bill_url", "https://acme.test/bill.pdf"),
        ];
        submit(&browser, "form[action='/operator/accounts']", &fields).await;
        assert_eq!(heading(&browser).await, "Account made");
        let invitation = text_of(&browser, "[data-link]").await;
        let account = text_of(&browser, "main p code").await;
        click(&browser, "header form button").await;

        // The admin: two keys rolled (each shown once), the sandbox funded.
        first_sign_in(&browser, &invitation, "ada@acme.ng").await;
        assert_eq!(heading(&browser).await, "Acme Pay");
        let mut keys = vec![];
        for mode in ["test", "live"] {
            let fields = [("mode", mode), ("expire_old_in_hours", "0")];
            submit(&browser, "form[action='/keys/roll']", &fields).await;
            assert_eq!(heading(&browser).await, "Your new secret key");
            keys.push(text_of(&browser, "[data-secret]").await);
            browser.goto(&format!("{console}/?mode=test")).await.unwrap();
        }
        let s = Sandbox {
            server,
            key: keys[0].clone(),
        };
        submit(
            &browser,
            "form[action='/wallet/fund']",
            &[("currency", "USD"), ("amount", "50000")],
        )
        .await;
        assert_eq!(text_of(&browser, "[data-wallet='USD']").await, "USD 500.00");
        assert_eq!(s.wallet().await, 50_000, "{}: the API sees the funding", db.backend());
        keep(&browser, "dashboard-home.png").await;
        accessible(&browser, &axe, "home").await;

        // Through the API with the rolled key: a webhook, a cardholder, a card.
        s.patch("/webhook", json!({"url": receiver.url})).await;
        let holder = s.cardholder(31).await;
        let card = s.card(&holder, "10000").await;
        s.spend_in_three_categories(&card).await;
        let (imported, said) = import(&db, ".json", &one_deal());
        assert!(imported, "{said}");
        s.post("/reward/assign_reward", json!({"cardholder_id": holder})).await;
        let mut pending = nigerian(32);
        pending["identity"]["bvn"] = json!("22212341111");
        let images = image_host();
        pending["identity"]["id_image"] = json!(format!("{images}/id.png"));
        pending["identity"]["selfie_image"] = json!(format!("{images}/selfie.png"));
        let in_review = s.post("/cardholder/register_cardholder", pending).await;
        let in_review = in_review.body["data"]["cardholder_id"].as_str().unwrap().to_string();

        // Found by name, its card frozen.
        browser.goto(&format!("{console}/cardholders?mode=test")).await.unwrap();
        submit(&browser, "form[role='search']", &[("q", "OKAFOR")]).await;
        let found = browser.find_all(Locator::Css("tbody tr")).await.unwrap();
        assert_eq!(found.len(), 2, "both cardholders of the name");
        accessible(&browser, &axe, "cardholders").await;
        browser
            .goto(&format!("{console}/cardholders/{holder}?mode=test"))
            .await
            .unwrap();
        let earned = text_of(&browser, "table:last-of-type tbody tr").await;
        assert!(earned.contains("Jumia deal"), "the reward earned: {earned}");
        accessible(&browser, &axe, "cardholder").await;
        click(&browser, "tbody a").await;
        click(&browser, "form[action$='/freeze'] button").await;
        assert_eq!(text_of(&browser, "[data-state]").await, "frozen");
        // Its spending charted, and each debit with its merchant.
        let month = text_of(&browser, "figure.chart + table tbody tr:last-child").await;
        assert!(month.ends_with("USD 85.49"), "{month}");
        let merchants = browser
            .find_all(Locator::Css("table:last-of-type tbody td:nth-child(2)"))
            .await
            .unwrap();
        let mut names = vec![];
        for cell in merchants {
            names.push(cell.text().await.unwrap());
        }
        assert_eq!(
            names,
            ["Lagos Guest House", "Adebayo Dept Store", "Kano Taxi Services", "Bolt"]
        );
        keep(&browser, "dashboard-card.png").await;
        accessible(&browser, &axe, "card").await;
        let details = s.get(&format!("/cards/get_card_details?card_id={card}")).await;
        assert_eq!(details.body["data"]["is_active"], false, "the API sees the card frozen");

        // An event redelivered: the receiver gets it once more.
        let delivered = |r: &Receiver| r.deliveries().iter().filter(|d| d.accepted).count();
        assert!(receiver.wait_for(30, |r| delivered(r) >= 1).await);
        let before = delivered(&receiver);
        browser.goto(&format!("{console}/events?mode=test")).await.unwrap();
        keep(&browser, "dashboard-events.png").await;
        accessible(&browser, &axe, "events").await;
        click(&browser, "tbody a").await;
        click(&browser, "form[action$='/redeliver'] button").await;
        assert!(receiver.wait_for(30, |r| delivered(r) > before).await, "redelivered");

        // Reward rules.
        browser.goto(&format!("{console}/rewards?mode=test")).await.unwrap();
        accessible(&browser, &axe, "rewards").await;
        let rules = [
            ("spend_threshold", "25000"),
            ("monthly_debits", "4"),
            ("inactivity_days", "10"),
        ];
        submit(&browser, "form[action='/rewards/rules']", &rules).await;
        let read = s.get("/reward/rules").await.body;
        assert_eq!(
            (
                &read["data"]["spend_threshold"],
                &read["data"]["monthly_debits"],
                &read["data"]["inactivity_days"]
            ),
            (&json!("25000"), &json!(4), &json!(10)),
            "{read}"
        );
        click(&browser, "header form button").await;

        // The operator approves the KYC case and credits the live wallet.
        let code = totp_code(&totp);
        let signing_in = [("email", "ops@example.ng"), ("password", PASSWORD), ("code", &code)];
        submit(&browser, "form[action='/login']", &signing_in).await;
        // The case reaches the queue once the automated check has run.
        let approve = format!("form[action='/operator/reviews/{in_review}'] input[value='approve'] ~ button");
        let queued = async || {
            browser.goto(&format!("{console}/operator/reviews")).await.unwrap();
            browser.find(Locator::Css(&approve)).await.is_ok()
        };
        assert!(eventually(queued, |found| *found).await, "the case is in the queue");
        // Its images, through the console from the URLs stored on the case.
        let drawn =
            "return [...document.querySelectorAll('.images img')].map(i => [i.alt, i.complete && i.naturalWidth])";
        let shown = eventually(
            async || browser.execute(drawn, vec![]).await.unwrap(),
            |w| w[0][1] == json!(1),
        )
        .await;
        assert_eq!(shown, json!([["The selfie", 1]]), "the BVN route keeps the selfie");
        keep(&browser, "dashboard-reviews.png").await;
        accessible(&browser, &axe, "reviews").await;
        click(&browser, &approve).await;
        let got = s
            .get(&format!("/cardholder/get_cardholder?cardholder_id={in_review}"))
            .await;
        assert_eq!(
            (&got.body["data"]["is_active"], &got.body["data"]["is_id_verified"]),
            (&json!(true), &json!(true)),
            "the API sees the case approved: {}",
            got.body
        );
        browser
            .goto(&format!("{console}/operator/accounts/{account}"))
            .await
            .unwrap();
        let credit = [
            ("currency", "USD"),
            ("amount", "250000"),
            ("reference", "WIRE-0001"),
            ("note", "first wire"),
        ];
        submit(&browser, "form[action$='/credit']", &credit).await;
        assert_eq!(text_of(&browser, "[data-wallet='USD']").await, "USD 2,500.00");
        let live = crate::harness::client()
            .get(s.server.url("/v1/issuing/cards/get_issuing_wallet_balance"))
            .header("token", crate::harness::bearer(&keys[1]))
            .send()
            .await
            .unwrap()
            .json::<serde_json::Value>()
            .await
            .unwrap();
        assert_eq!(live["data"]["issuing_balance_USD"], "250000", "{live}");
        browser.goto(&format!("{console}/operator/ledger")).await.unwrap();
        click(&browser, "main form button").await;
        assert_eq!(text_of(&browser, "[data-ledger]").await, "Ledger check passed.");
        accessible(&browser, &axe, "ledger").await;
        browser.goto(&format!("{console}/audit")).await.unwrap();
        keep(&browser, "dashboard-audit.png").await;
        accessible(&browser, &axe, "audit log").await;
        browser.close().await.unwrap();

        // The main screens at a phone's width.
        let phone = chromium(&driver, Window::Phone).await;
        phone.goto(&format!("{console}/login")).await.unwrap();
        keep(&phone, "dashboard-phone-sign-in.png").await;
        accessible(&phone, &axe, "sign in").await;
        submit(
            &phone,
            "form[action='/login']",
            &[("email", "ada@acme.ng"), ("password", PASSWORD)],
        )
        .await;
        assert_eq!(heading(&phone).await, "Acme Pay");
        let width = phone
            .execute("return document.documentElement.scrollWidth", vec![])
            .await
            .unwrap();
        assert_eq!(width, json!(390), "nothing wider than the phone");
        keep(&phone, "dashboard-phone-home.png").await;
        accessible(&phone, &axe, "home at a phone's width").await;
        phone.goto(&format!("{console}/cards/{card}?mode=test")).await.unwrap();
        keep(&phone, "dashboard-phone-card.png").await;
        phone.close().await.unwrap();
        let (ok, said) = ledger_check(&db);
        assert!(ok, "{said}");
    }
}

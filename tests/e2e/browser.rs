//! The hosted pages in a real headless Chromium (Debian's `chromium` and
//! `chromium-driver`), driven over WebDriver at a phone's size: claiming
//! a deal by clicking, and reading the charts the browser drew.
//!
//! Without chromedriver the test says it was skipped, unless
//! `ISSUING_BROWSER_TESTS=required` (CI) makes that a failure. With
//! `ISSUING_SCREENSHOTS=<dir>` it saves the pages' screenshots there (the
//! ones in docs/images were made so).

use crate::cards::Sandbox;
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

/// A headless Chromium window of a phone's size (390x844).
async fn phone(driver: &Driver) -> Client {
    let mut capabilities = serde_json::Map::new();
    // A phone's viewport (a desktop window would not go below 500 wide).
    let options = json!({"binary": CHROMIUM,
                         "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                  "--hide-scrollbars"],
                         "mobileEmulation": {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2.0}}});
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
    let browser = phone(&driver).await;

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

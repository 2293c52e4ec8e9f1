//! The dashboard over HTTP, as an attacker tries it: another account's
//! ids, a viewer acting, forms without their CSRF token, wrong passwords,
//! signed-out sessions; and no secret in the audit log or the logs. The
//! flows themselves run in a real browser (browser.rs).

use crate::cards::Sandbox;
use crate::harness::{Server, client_builder, issuing, ledger_check, run};
use adapters::test_db::TestDb;

/// The operators' and invitees' password in these tests.
pub const PASSWORD: &str = "correct horse battery staple";

const DOC: &str = include_str!("../../docs/dashboard.md");

/// docs/dashboard.md's `issuing operators create`, run as written but for
/// the dashboard's address (this server's) and the email: its one-time
/// link, which the command prints as the doc shows.
pub fn operator_link(db: &TestDb, dashboard: &str, email: &str) -> String {
    let block = DOC.split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    let (command, shown) = block.split_once("\n# ").expect("a command and what it prints");
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(args[..3], ["issuing", "operators", "create"], "{command}");
    let out = run(issuing(db).args(args[1..].iter().map(|a| match *a {
        "ops@example.ng" => email,
        "http://127.0.0.1:8082" => dashboard,
        other => other,
    })));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    let link = said.split_whitespace().last().expect("a link").to_string();
    assert!(link.starts_with(&format!("{dashboard}/set-password?token=")), "{said}");
    let prefix = shown.split("usr_").next().unwrap();
    assert!(said.starts_with(prefix), "{said} is not as the doc shows: {shown}");
    link
}

/// The text between `start` and the next `end` in `page`, after `from`.
pub fn between<'a>(page: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let at = page.find(start)? + start.len();
    page[at..].split(end).next()
}

/// A console client that keeps its session cookie and its CSRF token, and
/// follows no redirect (tests read where they go).
pub struct Console {
    pub base: String,
    http: reqwest::Client,
    cookie: Option<String>,
    csrf: String,
    /// The TOTP secret of the user's second factor, once set up.
    totp: Option<String>,
    /// Who signed in last.
    email: String,
}

/// The authenticator's code of `secret` now.
pub fn totp_code(secret: &str) -> String {
    let totp = totp_rs::TOTP::new(totp_rs::Algorithm::SHA1, 6, 1, 30, secret.as_bytes().to_vec()).unwrap();
    totp.generate(crate::cards::unix_now() as u64)
}

pub struct Page {
    pub status: u16,
    pub location: String,
    /// The session cookie set, as a `Cookie` header sends it back.
    pub cookie: Option<String>,
    pub body: String,
}

impl Console {
    pub fn new(base: &str) -> Console {
        Console {
            base: base.to_string(),
            http: client_builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookie: None,
            csrf: String::new(),
            totp: None,
            email: String::new(),
        }
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Page {
        let request = match &self.cookie {
            Some(cookie) => request.header("cookie", cookie),
            None => request,
        };
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let header = |name: &str| {
            let value = response.headers().get(name)?.to_str().unwrap();
            Some(value.split(';').next().unwrap().to_string())
        };
        let (location, cookie) = (header("location").unwrap_or_default(), header("set-cookie"));
        Page {
            status,
            location,
            cookie,
            body: response.text().await.unwrap(),
        }
    }

    pub async fn get(&self, path: &str) -> Page {
        self.send(self.http.get(format!("{}{path}", self.base))).await
    }

    /// Posts `fields` with the session's CSRF token.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        let mut all = fields.to_vec();
        all.push(("csrf", &self.csrf));
        self.post_exactly(path, &all).await
    }

    fn form(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::RequestBuilder {
        self.http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(serde_urlencoded::to_string(fields).unwrap())
    }

    /// Posts `fields` as they are (no CSRF token added).
    pub async fn post_exactly(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        self.send(self.form(path, fields)).await
    }

    /// The same, with a header a client chose.
    pub async fn post_with(&self, (name, value): (&str, &str), path: &str, fields: &[(&str, &str)]) -> Page {
        self.send(self.form(path, fields).header(name, value)).await
    }

    /// Sets a password through a one-time link.
    pub async fn set_password(&self, link: &str, password: &str) -> Page {
        let token = link.split("token=").nth(1).unwrap();
        self.post_exactly("/set-password", &[("token", token), ("password", password)])
            .await
    }

    /// Signs in (with the authenticator's code once two-step sign-in is
    /// set up); on success keeps the cookie and reads the CSRF token.
    pub async fn sign_in(&mut self, email: &str, password: &str) -> Page {
        let code = self.totp.as_deref().map(totp_code).unwrap_or_default();
        let page = self
            .post_exactly("/login", &[("email", email), ("password", password), ("code", &code)])
            .await;
        if page.status == 303 {
            self.email = email.to_string();
            self.cookie = page.cookie.clone();
            let security = self.get("/security").await;
            self.csrf = between(&security.body, "name=\"csrf\" value=\"", "\"")
                .unwrap()
                .to_string();
        }
        page
    }

    /// The same user on another server's dashboard, signed out.
    pub fn moved_to(&mut self, base: &str) {
        self.base = base.to_string();
        self.cookie = None;
    }

    /// Sets up two-step sign-in with the secret the security page shows.
    pub async fn set_up_two_step(&mut self) {
        let page = self.get("/security").await;
        let secret = between(&page.body, "name=\"secret\" value=\"", "\"")
            .unwrap()
            .to_string();
        let set = self
            .post("/security", &[("secret", &secret), ("code", &totp_code(&secret))])
            .await;
        assert_eq!((set.status, set.location.as_str()), (303, "/login"), "{}", set.body);
        // Every session signed in without it ended: this one too.
        assert_eq!(self.get("/security").await.location, "/login");
        self.totp = Some(secret);
        let email = self.email.clone();
        assert_eq!(self.sign_in(&email, PASSWORD).await.status, 303);
        assert!(self.get("/security").await.body.contains("data-second-factor=\"on\""));
    }

    /// A new user from a one-time link shown on `page`, signed in.
    pub async fn invited(base: &str, page: &str, email: &str) -> Console {
        let link = between(page, "data-link>", "<")
            .expect("an invitation link")
            .to_string();
        let mut console = Console::new(base);
        assert_eq!(console.set_password(&link, PASSWORD).await.status, 303);
        assert_eq!(console.sign_in(email, PASSWORD).await.status, 303);
        console
    }
}

/// An operator signed in on a server's dashboard, with no second factor
/// yet.
pub async fn operator(db: &TestDb, server: &Server) -> Console {
    let base = server.dashboard.clone().expect("the dashboard listens");
    let mut console = Console::new(&base);
    let link = operator_link(db, &base, "ops@example.ng");
    assert_eq!(console.set_password(&link, PASSWORD).await.status, 303);
    assert_eq!(console.sign_in("ops@example.ng", PASSWORD).await.status, 303);
    console
}

/// Without `--dashboard-url`, `operators create` links to the address
/// `--dashboard-listen` (or its variable) gives, as `serve` would serve
/// it; with none to link to, it asks for the URL and makes no operator.
#[test]
fn the_operators_link_follows_the_dashboards_listener() {
    let db = TestDb::sqlite();
    run(issuing(&db).arg("migrate"));
    let said = |args: &[&str], listen: Option<&str>| {
        let mut cmd = issuing(&db);
        cmd.args(["operators", "create"]).args(args);
        if let Some(listen) = listen {
            cmd.env("ISSUING_DASHBOARD_LISTEN", listen);
        }
        let out = run(&mut cmd);
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), said)
    };
    let (made, out) = said(
        &["--email", "a@example.ng", "--dashboard-listen", "10.0.0.5:9443"],
        None,
    );
    assert!(
        made && out.contains(" at http://10.0.0.5:9443/set-password?token="),
        "{out}"
    );
    let (made, out) = said(&["--email", "b@example.ng"], Some("127.0.0.1:18082"));
    assert!(
        made && out.contains(" at http://127.0.0.1:18082/set-password?token="),
        "{out}"
    );
    for listen in ["off", "127.0.0.1:0"] {
        let (made, out) = said(&["--email", "c@example.ng"], Some(listen));
        assert!(!made && out.contains("--dashboard-url: required"), "{listen}: {out}");
    }
    let (made, out) = said(
        &["--email", "c@example.ng", "--dashboard-url", "https://ops.example.ng"],
        Some("off"),
    );
    assert!(
        made && out.contains(" at https://ops.example.ng/set-password?token="),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_keeps_accounts_apart_viewers_reading_and_forms_to_their_session() {
    for db in TestDb::all().await {
        let s = Sandbox::start(&db, None);
        let mut ops = operator(&db, &s.server).await;
        // The operator changes nothing without a second factor.
        let refused = ops
            .post(
                "/operator/accounts",
                &[("name", "Acme"), ("admin_email", "ada@acme.ng")],
            )
            .await;
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert!(refused.body.contains("two-step sign-in"), "{}", refused.body);
        ops.set_up_two_step().await;
        let made = ops
            .post(
                "/operator/accounts",
                &[
                    ("name", "Acme"),
                    ("admin_email", "ada@acme.ng"),
                    ("company_address", "1 Marina, Lagos"),
                    ("utility_bill_url", "https://acme.test/bill.pdf"),
                ],
            )
            .await;
        assert_eq!(made.status, 200, "{}", made.body);
        let admin = Console::invited(&ops.base, &made.body, "ada@acme.ng").await;
        // A taken admin email makes no account.
        let accounts = |page: &str| page.matches("/operator/accounts/acct_").count();
        let before = accounts(&ops.get("/operator").await.body);
        let taken = ops
            .post(
                "/operator/accounts",
                &[("name", "Again"), ("admin_email", "ADA@acme.ng")],
            )
            .await;
        assert_eq!(taken.status, 400, "{}", taken.body);
        assert_eq!(accounts(&ops.get("/operator").await.body), before, "no account made");
        // The operator invites to an account it names, and to no other.
        let acme = between(&made.body, "<p><code>", "<").unwrap().to_string();
        // Its link is on the console's own address, whatever Host a client names.
        let second = [
            ("account", acme.as_str()),
            ("email", "bo@acme.ng"),
            ("role", "admin"),
            ("csrf", &ops.csrf),
        ];
        let invited = ops
            .post_with(("x-forwarded-host", "evil.example"), "/users/invite", &second)
            .await;
        assert_eq!(invited.status, 200);
        let link = between(&invited.body, "data-link>", "<").unwrap();
        assert!(link.starts_with(&format!("{}/set-password?token=", ops.base)), "{link}");
        let nowhere = [("account", "acct_nope"), ("email", "cy@acme.ng"), ("role", "admin")];
        assert_eq!(ops.post("/users/invite", &nowhere).await.status, 404);
        let operator = [
            ("account", acme.as_str()),
            ("email", "op2@acme.ng"),
            ("role", "operator"),
        ];
        assert_eq!(
            ops.post("/users/invite", &operator).await.status,
            403,
            "operators come from the CLI only"
        );
        // Another account's cardholder and card (the sandbox's own).
        s.fund_wallet(100_000).await;
        let holder = s.cardholder(7).await;
        let card = s.card(&holder, "5000").await;
        for path in [
            format!("/cardholders/{holder}"),
            format!("/cards/{card}"),
            "/events/evt_nope".into(),
        ] {
            assert_eq!(admin.get(&path).await.status, 404, "{path}: {}", db.backend());
        }
        // A query read twice, and an id with a NUL: refused, no panic, no 503.
        assert_eq!(admin.get("/?mode=test&mode=live").await.status, 400);
        assert_eq!(admin.get("/cards/%00").await.status, 404);
        let freeze = admin.post(&format!("/cards/{card}/freeze"), &[("mode", "test")]).await;
        assert_eq!(freeze.status, 404, "{}", freeze.body);
        let d = s.get(&format!("/cards/get_card_details?card_id={card}")).await;
        assert_eq!(
            d.body["data"]["is_active"], true,
            "the other account's card is untouched"
        );
        // The operator's screens are not an account user's.
        let image = format!("/operator/reviews/{holder}/selfie_image");
        for path in [
            "/operator",
            "/operator/reviews",
            "/operator/jobs",
            "/operator/ledger",
            &image,
        ] {
            assert_eq!(admin.get(path).await.status, 403, "{path}");
        }
        // The operator sees only a case's stored images, of a case in review.
        for path in [
            image.as_str(),
            "/operator/reviews/ch_nope/id_image",
            "/operator/reviews/x/../../etc",
        ] {
            assert_eq!(ops.get(path).await.status, 404, "{path}");
        }

        // A viewer reads and cannot act.
        let invited = admin
            .post("/users/invite", &[("email", "vic@acme.ng"), ("role", "viewer")])
            .await;
        assert_eq!(invited.status, 200, "{}", invited.body);
        let viewer = Console::invited(&ops.base, &invited.body, "vic@acme.ng").await;
        assert_eq!(viewer.get("/?mode=test").await.status, 200);
        for (path, fields) in [
            ("/wallet/fund", vec![("currency", "USD"), ("amount", "1000")]),
            ("/keys/roll", vec![("mode", "test"), ("expire_old_in_hours", "0")]),
            ("/users/invite", vec![("email", "eve@acme.ng"), ("role", "admin")]),
            (
                "/rewards/rules",
                vec![
                    ("mode", "test"),
                    ("spend_threshold", "1"),
                    ("monthly_debits", "1"),
                    ("inactivity_days", "1"),
                ],
            ),
        ] {
            assert_eq!(viewer.post(path, &fields).await.status, 403, "a viewer posting {path}");
        }
        assert_eq!(viewer.get("/audit").await.status, 403, "the audit log is the admin's");

        // Every form needs its own session's token: none, or the viewer's.
        let home = admin.get("/?mode=test").await;
        let wallet = between(&home.body, "data-wallet=\"USD\">", "<").unwrap().to_string();
        let fund = [("currency", "USD"), ("amount", "5000")];
        assert_eq!(admin.post_exactly("/wallet/fund", &fund).await.status, 403);
        let mut forged = fund.to_vec();
        forged.push(("csrf", &viewer.csrf));
        assert_eq!(admin.post_exactly("/wallet/fund", &forged).await.status, 403);
        let home = admin.get("/?mode=test").await;
        assert_eq!(
            between(&home.body, "data-wallet=\"USD\">", "<").unwrap(),
            wallet,
            "nothing moved"
        );
        // A sign-in form posted from another site.
        let sign_in = [("email", "ada@acme.ng"), ("password", PASSWORD)];
        let cross = Console::new(&ops.base)
            .post_with(("origin", "https://evil.example"), "/login", &sign_in)
            .await;
        assert_eq!((cross.status, cross.cookie), (403, None));

        // Signed out, the cookie is worth nothing.
        assert_eq!(viewer.post("/logout", &[]).await.status, 303);
        let after = viewer.get("/?mode=test").await;
        assert_eq!((after.status, after.location.as_str()), (303, "/login"));
        assert_eq!(viewer.post("/wallet/fund", &fund).await.status, 303);
        let (ok, said) = ledger_check(&db);
        assert!(ok, "{said}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_wrong_passwords_lock_the_login_and_no_secret_reaches_the_audit_log_or_the_logs() {
    for db in TestDb::all().await {
        let server = Server::start(&db);
        let mut ops = operator(&db, &server).await;
        ops.set_up_two_step().await;
        // Signed in again: the password alone is not enough, nor a wrong code.
        let totp = ops.totp.take().unwrap();
        assert_eq!(ops.sign_in("ops@example.ng", PASSWORD).await.status, 401);
        let wrong = [("email", "ops@example.ng"), ("password", PASSWORD), ("code", "000000")];
        assert_eq!(ops.post_exactly("/login", &wrong).await.status, 401);
        ops.totp = Some(totp.clone());
        assert_eq!(ops.sign_in("ops@example.ng", PASSWORD).await.status, 303);
        let made = ops
            .post("/operator/accounts", &[("name", "Beta"), ("admin_email", "bo@beta.ng")])
            .await;
        let link = between(&made.body, "data-link>", "<").unwrap().to_string();
        let mut admin = Console::invited(&ops.base, &made.body, "bo@beta.ng").await;
        let rolled = admin
            .post("/keys/roll", &[("mode", "test"), ("expire_old_in_hours", "0")])
            .await;
        let key = between(&rolled.body, "data-secret>", "<").unwrap().to_string();
        assert!(key.starts_with("sk_test_"), "{}", rolled.body);
        let webhook = admin
            .post("/webhook/roll", &[("mode", "live"), ("expire_old_in_hours", "1")])
            .await;
        let secret = between(&webhook.body, "data-secret>", "<").unwrap().to_string();
        // The key works, once: the page is not cached.
        let s = Sandbox {
            server,
            key: key.clone(),
        };
        s.fund_wallet(1_000).await;
        assert!(rolled.body.contains("not shown again"));

        // An unknown email and a wrong password are told the same.
        let unknown = admin.sign_in("nobody@beta.ng", PASSWORD).await;
        let wrong = admin.sign_in("bo@beta.ng", "not the password at all").await;
        assert_eq!((unknown.status, wrong.status), (401, 401));
        assert_eq!(
            between(&unknown.body, "role=\"alert\">", "<"),
            between(&wrong.body, "role=\"alert\">", "<")
        );
        // Twenty wrong passwords at once: four more are checked, then none.
        let wrong = [("email", "bo@beta.ng"), ("password", "not the password at all")];
        let burst = (0..20).map(|_| admin.post_exactly("/login", &wrong));
        let mut statuses: Vec<u16> = futures::future::join_all(burst)
            .await
            .iter()
            .map(|p| p.status)
            .collect();
        statuses.sort_unstable();
        assert_eq!(statuses, [[401; 4].as_slice(), &[429; 16]].concat(), "{}", db.backend());
        let locked = admin.sign_in("bo@beta.ng", PASSWORD).await;
        assert_eq!(locked.status, 429, "the right password is not checked while locked");
        assert!(locked.body.contains("locked until"), "{}", locked.body);
        // The used link sets nothing again.
        assert_eq!(
            Console::new(&ops.base)
                .set_password(&link, "another long password")
                .await
                .status,
            410
        );

        // What the operator's audit log holds, and what the server logged.
        let audit = ops.get("/audit").await.body;
        for action in [
            "made an account",
            "invited a user",
            "rolled an API key",
            "rolled the webhook secret",
            "signed in",
            "set their password",
        ] {
            assert!(audit.contains(action), "{action} in the audit log");
        }
        let cookie = ops.cookie.take().unwrap();
        let token = cookie.split('=').nth(1).unwrap().to_string();
        let logged = s.server.stop();
        let link_token = link.split("token=").nth(1).unwrap();
        for secret in [
            key.as_str(),
            secret.as_str(),
            PASSWORD,
            token.as_str(),
            link_token,
            "not the password",
            &totp,
        ] {
            assert!(!audit.contains(secret), "the audit log holds a secret");
            assert!(!logged.contains(secret), "the logs hold a secret");
        }
        let (ok, said) = ledger_check(&db);
        assert!(ok, "{said}");
    }
}

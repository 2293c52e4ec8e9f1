//! The scenarios, run in order on one fresh database per backend. Each
//! starts its own server (so its peak RSS is its own), seeds what it needs
//! through the API, measures, stops the server, and checks the books.

use crate::bouncer::Bouncer;
use crate::driver::{Load, Outcome, Until};
use crate::pgbench;
use crate::report::Row;
use crate::sandbox::{DEBIT_CENTS, Sandbox, debit_body, funding_body, sudo_authorization};
use crate::server::{Database, Issuing, Server, psql};
use adapters::connectors::sudo::fake::{FakeSudo, SETTLEMENT_ACCOUNT};
use anyhow::{Context, ensure};
use domain::cards::product::Product;
use reqwest::Method;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

/// How much each scenario does.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// How long each measured closed- or open-loop run lasts.
    pub run: Duration,
    pub cardholders: u64,
    pub debit_cards: u64,
    pub history: u64,
    pub fund_cards: u64,
    pub read_cards: u64,
}

impl Size {
    pub const FULL: Size = Size {
        run: Duration::from_secs(10),
        cardholders: 1_000,
        debit_cards: 1_000,
        history: 100_000,
        fund_cards: 10_000,
        read_cards: 20_000,
    };
    pub const QUICK: Size = Size {
        run: Duration::from_secs(2),
        cardholders: 100,
        debit_cards: 200,
        history: 5_000,
        fund_cards: 1_000,
        read_cards: 2_000,
    };
}

const CONCURRENCY: [usize; 4] = [1, 8, 32, 128];

/// The open loops' rates, in percent of the capacity a closed loop of 32
/// clients measured; and the overload's, where the service sheds load.
const OPEN_SHARES: [u64; 3] = [50, 70, 90];
const OVERLOAD_SHARE: u64 = 150;

/// `1 API process`, `2 API processes`.
fn api_processes(count: usize) -> String {
    match count {
        1 => "1 API process".to_string(),
        n => format!("{n} API processes"),
    }
}

/// What a card to be funded is made with, in cents.
const HOLD: i64 = 300;

/// A card's funding window on the sandbox clock, and a second more.
const FUNDING_WINDOW_SECS: i64 = 301;

/// One `fund_card_asynchronously` of `cents` to each card in turn, as
/// `load` sends them.
async fn fundings(sandbox: &Arc<Sandbox>, cards: &Arc<Vec<String>>, cents: i64, load: Load) -> Outcome {
    let (s, cards) = (sandbox.clone(), cards.clone());
    sandbox
        .drive(
            load,
            Arc::new(move |n| {
                let card = &cards[(n & 0xffff_ffff) as usize];
                s.request(Method::PATCH, "/cards/fund_card_asynchronously")
                    .json(&funding_body(card, cents, n))
            }),
        )
        .await
}

/// Waits (10 minutes at most) until the account stores `events`: each
/// funding's settlement stores one.
async fn settled_all(sandbox: &Sandbox, events: u64) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(600);
    while sandbox.events_stored().await? < events {
        ensure!(Instant::now() < deadline, "fundings did not settle within 10 minutes");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Whether a run may meet shed load (503): only past capacity.
#[derive(Clone, Copy)]
enum Shed {
    Allowed,
    Refused,
}

/// An open loop at `share` percent of `capacity` a second, for `for_`, and
/// its row's load: `open 927/s (70%)`.
fn open_share(capacity: f64, share: u64, for_: Duration) -> (Load, String) {
    let per_second = ((capacity * share as f64 / 100.0) as u64).max(1);
    (
        Load::Open { per_second, for_ },
        format!("open {per_second}/s ({share}%)"),
    )
}

/// Debits a card before the `debit` scenario's statistics are taken.
const WARM_UP: u64 = 10;

/// One backend's run: its database, the account's key, the money the
/// scenarios put in and spent, and the rows measured so far.
pub struct Run {
    pub db: Database,
    issuing: Issuing,
    key: String,
    sequence: Arc<AtomicU64>,
    size: Size,
    /// Cents put into the wallet, and spent by approved debits.
    put_in: i64,
    spent: i64,
    pub rows: Vec<Row>,
    holders: Vec<String>,
    cards: Vec<String>,
    hot: Option<String>,
    hot_debits: u64,
}

impl Run {
    pub fn new(binary: &std::path::Path, db: Database, size: Size) -> anyhow::Result<Run> {
        let issuing = Issuing::new(binary, &db);
        issuing.migrate()?;
        let key = issuing.create_account()?;
        Ok(Run {
            db,
            issuing,
            key,
            sequence: Arc::new(AtomicU64::new(0)),
            size,
            put_in: 0,
            spent: 0,
            rows: vec![],
            holders: vec![],
            cards: vec![],
            hot: None,
            hot_debits: 0,
        })
    }

    fn backend(&self) -> &'static str {
        self.db.backend.name()
    }

    fn start(&self) -> anyhow::Result<(Server, Arc<Sandbox>)> {
        self.start_with(&[])
    }

    /// [`Run::start`] with `env` added to the server's.
    fn start_with(&self, env: &[(&str, String)]) -> anyhow::Result<(Server, Arc<Sandbox>)> {
        let server = self.issuing.serve(&[], env)?;
        let sandbox = self.sandbox(std::slice::from_ref(&server))?;
        Ok((server, sandbox))
    }

    /// `count` API processes, the first with the workers, and a sandbox
    /// sending to each in turn.
    fn start_processes(&self, count: usize) -> anyhow::Result<(Vec<Server>, Arc<Sandbox>)> {
        let mut servers = vec![self.issuing.serve(&[], &[])?];
        for _ in 1..count {
            servers.push(self.issuing.serve(&["--no-workers"], &[])?);
        }
        let sandbox = self.sandbox(&servers)?;
        Ok((servers, sandbox))
    }

    fn sandbox(&self, servers: &[Server]) -> anyhow::Result<Arc<Sandbox>> {
        let database = self
            .db
            .server_and_name()
            .ok()
            .map(|(server, name)| (server.to_string(), name.to_string()));
        Ok(Arc::new(Sandbox::new(
            self.key.clone(),
            servers,
            self.sequence.clone(),
            database,
        )?))
    }

    /// Stops the server, puts its peak RSS on the scenario's rows (those
    /// from `first` on), and checks the books.
    fn finish(&mut self, server: Server, first: usize) -> anyhow::Result<()> {
        self.finish_all(vec![server], first)
    }

    /// [`Run::finish`] of several servers: the largest peak RSS.
    fn finish_all(&mut self, servers: Vec<Server>, first: usize) -> anyhow::Result<()> {
        let mut rss: f64 = 0.0;
        for server in servers {
            rss = rss.max(server.peak_rss_mib()?);
            server.stop()?;
        }
        for row in &mut self.rows[first..] {
            row.peak_rss_mib = Some(rss);
        }
        self.check_books()
    }

    async fn fund_wallet(&mut self, sandbox: &Sandbox, cents: i64) -> anyhow::Result<()> {
        sandbox.fund_wallet(cents).await?;
        self.put_in += cents;
        Ok(())
    }

    /// The ledger check passes, and the money is where the scenarios put
    /// it: the faucet gave what was put in, the cards spent what the
    /// approved debits took, nothing is in transit, and the wallet and the
    /// cards hold the rest.
    pub fn check_books(&self) -> anyhow::Result<()> {
        self.issuing.ledger_check().context("issuing ledger check failed")?;
        let t = self.issuing.usd_totals()?;
        let of = |kind: &str| t[kind].as_i64().unwrap_or(0);
        let held = of("issuing_wallet") + of("card") + of("card_transit") + of("card_held");
        ensure!(
            of("faucet") == -self.put_in
                && of("card_spend") == self.spent
                && of("card_transit") == 0
                && of("card_held") == 0
                && held == self.put_in - self.spent,
            "{}: the books do not add up: put in {}, spent {} by approved debits, ledger totals {t}",
            self.backend(),
            self.put_in,
            self.spent
        );
        Ok(())
    }

    fn row(&mut self, scenario: &str, load: String, outcome: &Outcome) -> usize {
        // When each row ended, in UTC as PostgreSQL's log writes it: a
        // stall in a row can be matched with a checkpoint there.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let day = now.as_secs() % 86_400;
        eprintln!(
            "  {scenario} at {load}: ended {:02}:{:02}:{:02}.{:03} UTC",
            day / 3600,
            day / 60 % 60,
            day % 60,
            now.subsec_millis()
        );
        self.rows.push(Row::measured(scenario, self.backend(), load, outcome));
        self.rows.len() - 1
    }

    /// Puts row `i`'s rate against the `debit` row's at `concurrency` in
    /// `spread` (the debit scenario's rates).
    fn against_debit(&mut self, i: usize, spread: &[(usize, f64)], concurrency: usize) {
        if let Some((_, rate)) = spread.iter().find(|(c, _)| *c == concurrency) {
            let row = &mut self.rows[i];
            row.ratio = Some(format!("{:.2} of debit", row.per_second / rate));
        }
    }

    /// `GET /health/live`: the HTTP floor, no database work.
    pub async fn floor(&mut self) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        for concurrency in [1, 32] {
            let s = sandbox.clone();
            let outcome = sandbox
                .drive(
                    Load::closed(concurrency, Until::Elapsed(self.size.run)),
                    Arc::new(move |_| s.plain("/health/live")),
                )
                .await;
            self.row("http-floor (/health/live)", concurrency.to_string(), &outcome);
        }
        self.finish(server, first)
    }

    /// Synchronous registrations; they are the cardholders of the cards.
    pub async fn register(&mut self) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let half = self.size.cardholders / 2;
        for (i, concurrency) in [8, 32].into_iter().enumerate() {
            let (outcome, holders) = sandbox.register(i as u64 * half, half, concurrency).await?;
            self.row("register", concurrency.to_string(), &outcome);
            self.holders = holders;
        }
        self.finish(server, first)
    }

    /// Debits spread over funded cards at each concurrency, then an open
    /// loop at 70% of the closed loop's rate at 32.
    pub async fn debit(&mut self) -> anyhow::Result<Vec<(usize, f64)>> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let per_card = 50_000;
        let count = self.size.debit_cards;
        self.fund_wallet(&sandbox, per_card * i64::try_from(count)?).await?;
        self.cards = sandbox.cards(&self.holders, count, per_card).await?;
        // Debits before the statistics are taken, as a service in use has
        // them (autovacuum is off here): analyzed empty, the transactions
        // table gave the server's plans, kept with its connections, a
        // sequential scan that read the whole table for each debit as it
        // grew. `ANALYZE` makes the plans anew.
        self.debits(
            &sandbox,
            Load::closed(8, Until::Sent(WARM_UP * count)),
            false,
            Shed::Refused,
        )
        .await?;
        self.db.vacuum()?;
        let mut rates = vec![];
        for concurrency in CONCURRENCY {
            let outcome = self
                .debits(
                    &sandbox,
                    Load::closed(concurrency, Until::Elapsed(self.size.run)),
                    false,
                    Shed::Refused,
                )
                .await?;
            self.row("debit", concurrency.to_string(), &outcome);
            rates.push((concurrency, outcome.per_second()));
        }
        let capacity = rates.iter().find(|(c, _)| *c == 32).map_or(100.0, |r| r.1);
        for share in OPEN_SHARES {
            let (load, label) = open_share(capacity, share, self.size.run);
            let outcome = self.debits(&sandbox, load, false, Shed::Refused).await?;
            self.row("debit", label, &outcome);
        }
        let (load, label) = open_share(capacity, OVERLOAD_SHARE, self.size.run);
        let outcome = self.debits(&sandbox, load, false, Shed::Allowed).await?;
        self.row("debit", label, &outcome);
        self.finish(server, first)?;
        Ok(rates)
    }

    /// Sudo's gateway: authorizations of cards a (fake) Sudo issued, sent
    /// as Sudo sends them, one card per cardholder, closed loops at 1 and
    /// 32 calls: what Sudo's 4-second deadline is measured against. On a
    /// database of its own: the sandbox's rails are recorded there as
    /// Sudo's, where the other scenarios run on the simulator
    /// (docs/production.md, "Rails"). Its rows join this run's.
    pub async fn gateway(&mut self) -> anyhow::Result<()> {
        let mut sudo = Run::new(&self.issuing.binary, self.db.fresh("_sudo")?, self.size)?;
        sudo.gateway_on_sudo().await?;
        self.rows.append(&mut sudo.rows);
        Ok(())
    }

    async fn gateway_on_sudo(&mut self) -> anyhow::Result<()> {
        const KEY: &str = "sk_bench_sudo";
        const FUNDING: &str = "63f0c0ffee0000000000beef";
        const SECRET: &str = "bench-gateway-secret-0123456789abcdef";
        let fake = FakeSudo::start(KEY, FUNDING).await;
        let env = [
            ("ISSUING_SANDBOX_CARD_PROCESSOR", "sudo".to_string()),
            ("ISSUING_SANDBOX_SUDO_API_KEY", KEY.to_string()),
            ("ISSUING_SANDBOX_SUDO_GATEWAY_SECRET", SECRET.to_string()),
            ("ISSUING_SANDBOX_SUDO_FUNDING_SOURCE_ID", FUNDING.to_string()),
            ("ISSUING_SANDBOX_SUDO_CREDIT_ACCOUNT_ID", SETTLEMENT_ACCOUNT.to_string()),
            ("ISSUING_SUDO_API_URL", fake.url()),
            ("ISSUING_SUDO_VAULT_URL", fake.url()),
        ];
        let (server, sandbox) = self.start_with(&env)?;
        let first = self.rows.len();
        let per_card = 50_000;
        let count = self.size.debit_cards.min(self.size.cardholders);
        // The cardholders of its cards, with no row of their own.
        self.holders = sandbox.register(0, count, 32).await?.1;
        self.fund_wallet(&sandbox, per_card * i64::try_from(count)?).await?;
        sandbox.cards(&self.holders, count, per_card).await?;
        let at_sudo: Arc<Vec<String>> = Arc::new(fake.cards().into_iter().map(|(id, _)| id).collect());
        ensure!(
            at_sudo.len() == usize::try_from(count)?,
            "Sudo issued {} cards",
            at_sudo.len()
        );
        for concurrency in [1, 32] {
            let (s, cards) = (sandbox.clone(), at_sudo.clone());
            let make = Arc::new(move |n: u64| {
                let card = &cards[(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % cards.len()];
                s.gateway(SECRET, sudo_authorization(card, DEBIT_CENTS, n))
            });
            let outcome = sandbox
                .drive(Load::closed(concurrency, Until::Elapsed(self.size.run)), make)
                .await;
            self.spent += i64::try_from(outcome.count(200))? * DEBIT_CENTS;
            ensure!(
                outcome.errors() == 0,
                "{}: gateway calls answered {}",
                self.backend(),
                outcome.error_summary()
            );
            self.row("gateway authorization (Sudo)", concurrency.to_string(), &outcome);
        }
        self.finish(server, first)
    }

    /// Sends debits of the spread cards, or of the hot card; counts what
    /// the approved ones spent. Every answer must be a 200, or a 503 (shed
    /// load, nothing done) where `shed` allows it.
    async fn debits(&mut self, sandbox: &Arc<Sandbox>, load: Load, hot: bool, shed: Shed) -> anyhow::Result<Outcome> {
        let cards: Arc<Vec<String>> = Arc::new(match (&self.hot, hot) {
            (Some(card), true) => vec![card.clone()],
            _ => self.cards.clone(),
        });
        let cents = if hot { 1 } else { DEBIT_CENTS };
        let s = sandbox.clone();
        let outcome = sandbox
            .drive(
                load,
                Arc::new(move |n| {
                    // Spread over the cards by a multiplicative hash of n.
                    let card = &cards[(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % cards.len()];
                    s.request(Method::PATCH, "/cards/mock_debit_transaction")
                        .json(&debit_body(card, cents, n))
                }),
            )
            .await;
        let approved = outcome.count(200);
        self.spent += i64::try_from(approved)? * cents;
        if hot {
            self.hot_debits += approved;
        }
        let allowed = match shed {
            Shed::Allowed => outcome.count(503),
            Shed::Refused => 0,
        };
        ensure!(
            outcome.errors() == allowed,
            "{}: debits answered {}",
            self.backend(),
            outcome.error_summary()
        );
        Ok(outcome)
    }

    /// The soak: mixed debits and history reads on spread cards, first at
    /// full speed (32 clients) to learn the capacity, then an open loop at
    /// 70% of it for `minutes`, a row a minute with its p99 and the
    /// server's memory: both should stay flat.
    pub async fn soak(&mut self, minutes: u32) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let per_card = Product::USD.max_balance.minor();
        let count = self.size.debit_cards;
        self.fund_wallet(&sandbox, per_card * i64::try_from(count)?).await?;
        self.cards = sandbox.cards(&self.holders, count, per_card).await?;
        let cards = Arc::new(self.cards.clone());
        let s = sandbox.clone();
        let mixed: crate::driver::MakeRequest = Arc::new(move |n| {
            let card = &cards[(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % cards.len()];
            match n % 2 {
                0 => s
                    .request(Method::PATCH, "/cards/mock_debit_transaction")
                    .json(&debit_body(card, DEBIT_CENTS, n)),
                // The history: balances are limited to a read per card every 3 s.
                _ => s.request(Method::GET, &format!("/cards/get_card_transactions?card_id={card}")),
            }
        });
        let capacity = sandbox
            .drive(Load::closed(32, Until::Elapsed(self.size.run)), mixed.clone())
            .await;
        ensure!(capacity.errors() == 0, "soak capacity: {}", capacity.error_summary());
        self.spent += i64::try_from(capacity.requests().div_ceil(2))? * DEBIT_CENTS;
        self.row("soak capacity (debit + history)", "32".into(), &capacity);
        let per_second = ((capacity.per_second() * 0.7) as u64).max(1);
        for minute in 1..=minutes {
            let open = Load::Open {
                per_second,
                for_: Duration::from_secs(60),
            };
            let outcome = sandbox.drive(open, mixed.clone()).await;
            // Half the answers are debits: only their approvals spend.
            ensure!(
                outcome.errors() == 0,
                "soak minute {minute}: {}",
                outcome.error_summary()
            );
            self.spent += i64::try_from(outcome.requests().div_ceil(2))? * DEBIT_CENTS;
            let i = self.row(
                &format!("soak minute {minute}"),
                format!("open {per_second}/s"),
                &outcome,
            );
            self.rows[i].peak_rss_mib = Some(server.rss_mib()?);
        }
        let rss = server.peak_rss_mib()?;
        server.stop()?;
        self.rows[first].peak_rss_mib = Some(rss);
        self.check_books()
    }

    /// Payments as a card network makes them, an authorization then its
    /// capture (two requests each), over the debit scenario's cards; the
    /// ratio is payments a second to debits a second at the same
    /// concurrency.
    pub async fn authorize_capture(&mut self, spread: &[(usize, f64)]) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let cards: Arc<Vec<String>> = Arc::new(self.cards.clone());
        for concurrency in [1, 32] {
            let (s, cards) = (sandbox.clone(), cards.clone());
            let make = Arc::new(move |n: u64| {
                let card = &cards[(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % cards.len()];
                s.pay(card, DEBIT_CENTS, n)
            });
            let outcome = sandbox
                .drive_calls(Load::closed(concurrency, Until::Elapsed(self.size.run)), make)
                .await;
            self.spent += i64::try_from(outcome.count(200))? * DEBIT_CENTS;
            ensure!(
                outcome.errors() == 0,
                "{}: payments answered {}",
                self.backend(),
                outcome.error_summary()
            );
            let i = self.row("authorize + capture (payments)", concurrency.to_string(), &outcome);
            self.against_debit(i, spread, concurrency);
        }
        self.finish(server, first)
    }

    /// Debits of one card (1 cent each, so it lasts); ratios to `debit`.
    pub async fn debit_hot(&mut self, spread: &[(usize, f64)]) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let full = Product::USD.max_balance.minor();
        self.fund_wallet(&sandbox, full).await?;
        let holder = self.holders.first().context("a cardholder")?.clone();
        self.hot = sandbox.cards(&[holder], 1, full).await?.pop();
        for concurrency in CONCURRENCY {
            let outcome = self
                .debits(
                    &sandbox,
                    Load::closed(concurrency, Until::Elapsed(self.size.run)),
                    true,
                    Shed::Refused,
                )
                .await?;
            let i = self.row("debit-hot", concurrency.to_string(), &outcome);
            self.against_debit(i, spread, concurrency);
        }
        self.finish(server, first)
    }

    /// The hot card's history, topped up to `history` transactions: its
    /// first page against its last.
    pub async fn history(&mut self) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let missing = self.size.history.saturating_sub(self.hot_debits);
        self.debits(&sandbox, Load::closed(32, Until::Sent(missing)), true, Shed::Refused)
            .await?;
        self.db.vacuum()?;
        let card = self.hot.clone().context("the hot card")?;
        let last = self.hot_debits.div_ceil(20);
        let mut rates = vec![];
        for page in [1, last] {
            let (s, card) = (sandbox.clone(), card.clone());
            let outcome = sandbox
                .drive(
                    Load::closed(8, Until::Elapsed(self.size.run)),
                    Arc::new(move |_| {
                        s.request(
                            Method::GET,
                            &format!("/cards/get_card_transactions?card_id={card}&page={page}"),
                        )
                    }),
                )
                .await;
            ensure!(outcome.errors() == 0, "history answered {}", outcome.error_summary());
            let i = self.row(&format!("history page {page} of {last}"), "8".into(), &outcome);
            rates.push(outcome.per_second());
            if page == last {
                self.rows[i].ratio = Some(format!("{:.2} of page 1", rates[1] / rates[0]));
            }
        }
        self.finish(server, first)
    }

    /// Fundings of fresh cards all drawn from one wallet at 32 clients:
    /// accepted per second, then settled per second until the last
    /// `card_credit_event` is stored.
    pub async fn fund(&mut self) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let (count, hold, cents) = (self.size.fund_cards, HOLD, 1_000);
        self.fund_wallet(&sandbox, (hold + cents) * i64::try_from(count)?)
            .await?;
        let cards = Arc::new(sandbox.cards(&self.holders, count, hold).await?);
        self.db.vacuum()?;
        let before = sandbox.events_stored().await?;
        let (started, usage) = (Instant::now(), sandbox.usage());
        let mut accepted = fundings(&sandbox, &cards, cents, Load::closed(32, Until::Sent(count))).await;
        ensure!(
            accepted.count(202) == count,
            "fundings answered {}",
            accepted.error_summary()
        );
        settled_all(&sandbox, before + count).await?;
        let settled = count as f64 / started.elapsed().as_secs_f64();
        let capacity = accepted.per_second();
        self.row("fund (accepted)", "32".into(), &accepted);
        // The settled row's CPU and statements take in the settlements
        // that ran after the last funding was answered.
        accepted.charge(sandbox.usage().since(&usage));
        let i = self.row("fund (settled)", "32".into(), &accepted);
        self.rows[i].per_second = settled;
        self.rows[i].latency = None;
        // Open loops funding the same cards again, each once its funding
        // window passed on the sandbox clock, until each is settled.
        for share in OPEN_SHARES {
            sandbox.advance(FUNDING_WINDOW_SECS).await?;
            self.fund_wallet(&sandbox, cents * i64::try_from(count)?).await?;
            let before = sandbox.events_stored().await?;
            let per_second = (capacity * share as f64 / 100.0).max(1.0);
            let (load, label) = open_share(capacity, share, Duration::from_secs_f64(count as f64 / per_second));
            let outcome = fundings(&sandbox, &cards, cents, load).await;
            ensure!(outcome.errors() == 0, "fundings answered {}", outcome.error_summary());
            settled_all(&sandbox, before + outcome.count(202)).await?;
            self.row("fund (accepted)", label, &outcome);
        }
        self.cards.extend(cards.iter().cloned());
        self.finish(server, first)
    }

    /// Balance, then details, of each of `read_cards` cards once; the
    /// second pass starts late enough for each card's 3-second limit.
    pub async fn read(&mut self) -> anyhow::Result<()> {
        let (server, sandbox) = self.start()?;
        let first = self.rows.len();
        let missing = self.size.read_cards.saturating_sub(self.cards.len() as u64);
        self.fund_wallet(&sandbox, 300 * i64::try_from(missing)?).await?;
        let more = sandbox.cards(&self.holders, missing, 300).await?;
        self.db.vacuum()?;
        self.cards.extend(more);
        let cards = Arc::new(self.cards.clone());
        let count = cards.len() as u64;
        let mut pass_started = Instant::now() - Duration::from_secs(60);
        for what in ["get_card_balance", "get_card_details"] {
            let wait = Duration::from_millis(3_200).saturating_sub(pass_started.elapsed());
            tokio::time::sleep(wait).await;
            pass_started = Instant::now();
            let (s, cards) = (sandbox.clone(), cards.clone());
            let outcome = sandbox
                .drive(
                    Load::closed(32, Until::Sent(count)),
                    Arc::new(move |n| {
                        let card = &cards[(n & 0xffff_ffff) as usize];
                        s.request(Method::GET, &format!("/cards/{what}?card_id={card}"))
                    }),
                )
                .await;
            ensure!(outcome.errors() == 0, "{what} answered {}", outcome.error_summary());
            self.row(&format!("read {what}"), "32".into(), &outcome);
        }
        self.finish(server, first)
    }

    /// PostgreSQL: debits of spread cards and fundings at 32 clients
    /// through 1, 2 and 3 API processes on the one database (the first
    /// runs the workers), each client's requests sent to each process in
    /// turn; the CPU per request is the processes' together.
    pub async fn processes(&mut self) -> anyhow::Result<()> {
        let (per_card, cents) = (100_000, 1_000);
        let (mut debit_cards, mut fund_cards) = (vec![], Arc::new(vec![]));
        for processes in 1..=3 {
            let (servers, sandbox) = self.start_processes(processes)?;
            let first = self.rows.len();
            if processes == 1 {
                let (debits, fundings) = (self.size.debit_cards, self.size.fund_cards);
                let seeded = per_card * i64::try_from(debits)? + HOLD * i64::try_from(fundings)?;
                self.fund_wallet(&sandbox, seeded).await?;
                debit_cards = sandbox.cards(&self.holders, debits, per_card).await?;
                fund_cards = Arc::new(sandbox.cards(&self.holders, fundings, HOLD).await?);
                self.db.vacuum()?;
            }
            self.cards = debit_cards.clone();
            let outcome = self
                .debits(
                    &sandbox,
                    Load::closed(32, Until::Elapsed(self.size.run)),
                    false,
                    Shed::Refused,
                )
                .await?;
            self.row(&format!("debit ({})", api_processes(processes)), "32".into(), &outcome);
            let count = fund_cards.len() as u64;
            sandbox.advance(FUNDING_WINDOW_SECS).await?;
            self.fund_wallet(&sandbox, cents * i64::try_from(count)?).await?;
            let before = sandbox.events_stored().await?;
            let outcome = fundings(&sandbox, &fund_cards, cents, Load::closed(32, Until::Sent(count))).await;
            ensure!(
                outcome.count(202) == count,
                "fundings answered {}",
                outcome.error_summary()
            );
            settled_all(&sandbox, before + count).await?;
            self.row(
                &format!("fund (accepted, {})", api_processes(processes)),
                "32".into(),
                &outcome,
            );
            self.finish_all(servers, first)?;
        }
        Ok(())
    }

    /// PostgreSQL: the 32-client debit row with the server connected
    /// through PgBouncer in transaction mode, with as many server
    /// connections as the server's pool (16): what the bouncer's hop, the
    /// transaction around each repository call and the unprepared
    /// statements cost, against the direct row of this run.
    pub async fn through_pgbouncer(&mut self, spread: &[(usize, f64)]) -> anyhow::Result<()> {
        let (server, name) = self.db.server_and_name()?;
        let bouncer = Bouncer::start(server, name, 16)?;
        let (server, sandbox) = self.start_with(&[("DATABASE_URL", bouncer.url())])?;
        let first = self.rows.len();
        let (per_card, count) = (50_000, self.size.debit_cards);
        self.fund_wallet(&sandbox, per_card * i64::try_from(count)?).await?;
        self.cards = sandbox.cards(&self.holders, count, per_card).await?;
        let outcome = self
            .debits(
                &sandbox,
                Load::closed(32, Until::Elapsed(self.size.run)),
                false,
                Shed::Refused,
            )
            .await?;
        let i = self.row("debit (through PgBouncer)", "32".into(), &outcome);
        self.against_debit(i, spread, 32);
        self.finish(server, first)
    }

    /// PostgreSQL: the debit path's SQL through pgbench on a copy of this
    /// database, at each concurrency; puts the ratios on the debit rows.
    pub fn debit_baseline(&mut self, work: &std::path::Path) -> anyhow::Result<()> {
        let (server, name) = self.db.server_and_name()?;
        let connections: usize = psql(server, "postgres", "SHOW max_connections")?.parse()?;
        let copy = self.db.copy(&format!("{name}_pgbench"))?;
        // pgbench needs a connection per client; the server's pool shares 16.
        for concurrency in CONCURRENCY.into_iter().filter(|c| c + 10 <= connections) {
            let outcome = pgbench::debit_equivalent(&copy, concurrency, self.size.run, work)?;
            self.row("pgbench-equivalent (debit SQL)", concurrency.to_string(), &outcome);
            for row in self.rows.iter_mut() {
                if row.scenario == "debit" && row.load == concurrency.to_string() {
                    row.ratio = Some(format!(
                        "{:.2} of pgbench-equivalent",
                        row.per_second / outcome.per_second()
                    ));
                }
            }
        }
        Ok(())
    }

    /// PostgreSQL: the hot-row limit at 1 and 32 clients on a scratch
    /// database; puts the ratio on the settled fundings' row.
    pub fn fund_baseline(&mut self, work: &std::path::Path) -> anyhow::Result<()> {
        let (server, name) = self.db.server_and_name()?;
        let scratch = Database::postgres(server, &format!("{name}_hot"))?;
        for clients in [1, 32] {
            let outcome = pgbench::hot_row(&scratch, clients, self.size.run, work)?;
            self.row("pgbench hot-row (one wallet row)", clients.to_string(), &outcome);
        }
        let limit = self.rows.last().map_or(f64::NAN, |r| r.per_second);
        if let Some(settled) = self.rows.iter_mut().find(|r| r.scenario == "fund (settled)") {
            settled.ratio = Some(format!("{:.2} of pgbench hot-row", settled.per_second / limit));
        }
        Ok(())
    }
}

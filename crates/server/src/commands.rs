//! What each subcommand does. Results go to stdout; logs to stderr.

use crate::cli::RailsArgs;
use crate::cli::{CreditArgs, DEFAULT_DATABASE_URL, DbArgs, Listener, RollArgs, ServeArgs, WorkerCommand, public_url};
use crate::wiring::Open;
use crate::{connectors, dashboard, metrics, wiring, workers};
use actix_web::HttpServer;
use adapters::system::SystemClock;
use anyhow::Context;
use app::accounts::{AccountDetails, AccountUpdate};
use app::cards::Reconciled;
use domain::ids::{AccountId, CardholderId, JobId};
use domain::{Mode, Timestamp};
use ports::accounts::AccountStore;
use ports::clock::Clock;
use ports::ledger::LedgerAudit;
use ports::merchants::MerchantCatalogue;
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// How long a new connection may take to send its request head. actix's
/// 5 s default answers 408 to clients that connected during a burst while
/// every worker was busy (100 concurrent fundings on 2 loaded cores did).
const REQUEST_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

pub async fn serve(db_args: &DbArgs, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let public_api = args
        .rails
        .public_url
        .as_deref()
        .map(|v| public_url("--public-url", v))
        .transpose()?;
    let public_relay = (args.relay_public_url.as_deref())
        .map(|v| public_url("--relay-public-url", v))
        .transpose()?;
    let db = wiring::open_db(
        db_args,
        Open::Create {
            migrate_pg: !args.no_migrate,
        },
    )
    .await?;
    let sqlite = db.is_sqlite();
    let metrics = metrics::start(args.worker.metrics_listen, &db)?;
    let ledger_db = db.clone();
    let app = wiring::app(db, db_args, args, &args.worker).await?;
    connectors::hold_rails(&ledger_db, &args.rails).await?;
    let demo = args.demo || db_args.database_url == DEFAULT_DATABASE_URL;
    let demo_key = match demo {
        true => app.demo_test_key().await.context("preparing the demo account")?,
        false => None,
    };
    give_sandbox_webhook_secrets(&app).await?;
    if let Some(warning) = simulated_live(&app) {
        tracing::warn!("{warning}");
    }
    let data = actix_web::web::Data::new(app);
    if !args.no_workers {
        workers::spawn(data.clone().into_inner(), &args.worker, sqlite);
    }
    let relay_data = data.clone();
    let pages = page_paths(args);
    let listener = std::net::TcpListener::bind(args.listen).with_context(|| format!("listening on {}", args.listen))?;
    let relay_listener = std::net::TcpListener::bind(args.relay_listen)
        .with_context(|| format!("listening on {} (the card-details relay)", args.relay_listen))?;
    let dashboard_url = (args.dashboard_url.as_deref())
        .map(|v| public_url("--dashboard-url", v))
        .transpose()?;
    let dashboard = dashboard::start(
        (args.dashboard_listen.0, dashboard_url),
        data.clone(),
        Arc::new(ledger_db),
        db_args.max_wallet_balance,
    )?;
    let (api_addr, relay_addr) = (listener.local_addr()?, relay_listener.local_addr()?);
    let urls = api::PublicUrls {
        api: public_api.unwrap_or(format!("http://{api_addr}")),
        relay: public_relay.unwrap_or(format!("http://{relay_addr}")),
    };
    let document = api::openapi::Served::new(&urls);
    let relay_document = document.clone();
    let server = HttpServer::new(move || {
        api::build(data.clone(), api::Surface::Base, document.clone()).configure(|cfg| web::configure(cfg, &pages))
    })
    .client_request_timeout(REQUEST_HEAD_TIMEOUT)
    .listen(listener)?;
    let relay = HttpServer::new(move || api::build(relay_data.clone(), api::Surface::Relay, relay_document.clone()))
        .client_request_timeout(REQUEST_HEAD_TIMEOUT)
        .listen(relay_listener)?;
    println!("issuing API listening on http://{api_addr}");
    println!("card-details relay listening on http://{relay_addr}");
    if let Some(key) = demo_key {
        // Printed, never logged: the sandbox key of the local demo account.
        println!("demo account test key: {}", key.expose());
    }
    tokio::try_join!(
        server.run(),
        relay.run(),
        run_optional(metrics),
        run_optional(dashboard)
    )
    .context("running the HTTP servers")?;
    Ok(ExitCode::SUCCESS)
}

/// Runs a server of an optional listener until a stop signal (actix's:
/// SIGINT, SIGTERM, SIGQUIT); without one, ends at once.
async fn run_optional(server: Option<actix_web::dev::Server>) -> std::io::Result<()> {
    match server {
        Some(server) => server.await,
        None => Ok(()),
    }
}

pub async fn worker(db_args: &DbArgs, args: &WorkerCommand, serve: &ServeArgs) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let sqlite = db.is_sqlite();
    let metrics = metrics::start(args.worker.metrics_listen, &db)?;
    let app = Arc::new(wiring::app(db.clone(), db_args, serve, &args.worker).await?);
    connectors::hold_rails(&db, &serve.rails).await?;
    give_sandbox_webhook_secrets(&app).await?;
    workers::spawn(app, &args.worker, sqlite);
    match metrics {
        // It stops on a stop signal, and the worker with it.
        Some(server) => server.await.context("serving the metrics")?,
        None => tokio::signal::ctrl_c().await.context("waiting for a stop signal")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// What `serve` says at start when live mode runs on a simulator: live
/// keys would move no real money and verify no real person.
fn simulated_live(app: &app::App) -> Option<&'static str> {
    match app.live_connectors() {
        app::health::LiveConnectors::Real => None,
        app::health::LiveConnectors::Mixed => Some(
            "live mode runs partly on simulators (see --card-processor and --kyc-provider): for trials only, never for real cardholders",
        ),
        app::health::LiveConnectors::Simulated => Some(
            "live mode runs on the card-network and KYC simulators: for trials only, never for real cardholders \
             (see --card-processor, --kyc-provider and docs/connectors.md)",
        ),
    }
}

/// Accounts made before each mode had its own webhook secret get their
/// sandbox one (a migration cannot seal under the master key).
/// Where the hosted pages are served: the paths of their public URLs.
fn page_paths(args: &ServeArgs) -> web::PagePaths {
    let defaults = web::PagePaths::default();
    let path = |url: &Option<url::Url>, default: String| url.as_ref().map_or(default, |u| u.path().to_string());
    web::PagePaths {
        rewards: path(&args.rewards_web_url, defaults.rewards),
        graphs: path(&args.graphs_web_url, defaults.graphs),
        secure: args.rewards_web_url.as_ref().is_some_and(|u| u.scheme() == "https"),
    }
}

async fn give_sandbox_webhook_secrets(app: &app::App) -> anyhow::Result<()> {
    let given = app
        .give_sandbox_webhook_secrets()
        .await
        .context("giving accounts their sandbox webhook secret")?;
    if given > 0 {
        tracing::info!(
            accounts = given,
            "gave accounts made before per-mode webhook secrets a sandbox webhook secret"
        );
    }
    Ok(())
}

pub async fn list_jobs(db_args: &DbArgs, serve: &ServeArgs, failed: bool) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    let jobs = app.list_jobs(failed).await?;
    if jobs.len() >= app::jobs::LIST_LIMIT as usize {
        eprintln!(
            "the oldest {} jobs are shown; more may be queued",
            app::jobs::LIST_LIMIT
        );
    }
    for job in jobs {
        let line = json!({
            "id": job.id,
            "account_id": job.account_id,
            "livemode": job.mode.is_live(),
            "kind": job.kind,
            "subject": job.subject,
            "state": job.state,
            "attempts": job.attempts,
            "max_attempts": job.max_attempts,
            "run_at": job.run_at.unix(),
            "last_error": job.last_error,
        });
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn retry_job(db_args: &DbArgs, serve: &ServeArgs, id: &str) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    if app.retry_job(&JobId::new(id)).await? {
        println!("job {id} is queued again");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("error: no parked (failed) job has the id {id}");
        Ok(ExitCode::FAILURE)
    }
}

pub async fn update_account(
    db_args: &DbArgs,
    serve: &ServeArgs,
    account_id: &str,
    update: &AccountUpdate,
    rewards: Option<bool>,
) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    let account = AccountId::new(account_id);
    let profile = [&update.webhook_url, &update.company_address, &update.utility_bill_url];
    if rewards.is_none() || profile.iter().any(|field| field.is_some()) {
        app.update_account(&account, update).await?;
    }
    if let Some(on) = rewards {
        for mode in [Mode::Test, Mode::Live] {
            let switch = app::rewards::RulesChange {
                enabled: Some(on),
                ..Default::default()
            };
            app.change_reward_rules(&account, mode, switch).await?;
        }
        // Logged as an operator's act: the feature is switched by support.
        tracing::info!(account = %account, on, "rewards switched");
    }
    println!("account {account_id} updated");
    Ok(ExitCode::SUCCESS)
}

pub async fn import_rewards(db_args: &DbArgs, serve: &ServeArgs, file: &Path) -> anyhow::Result<ExitCode> {
    let merchants = adapters::merchant_catalogue::ShippedCatalogue::load();
    let catalogue = match adapters::rewards_catalogue::read(file, |name| merchants.knows(name)) {
        Ok(catalogue) => catalogue,
        Err(e) => {
            eprintln!("error: {}: {e}", file.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    app.import_rewards_catalogue(&catalogue).await?;
    let counted = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    println!(
        "rewards catalogue imported: {}, {}",
        counted(catalogue.promo_codes.len(), "promo code", "promo codes"),
        counted(catalogue.deals.len(), "deal", "deals")
    );
    Ok(ExitCode::SUCCESS)
}

pub async fn reward_rules(
    db_args: &DbArgs,
    serve: &ServeArgs,
    account_id: &str,
    mode: Mode,
    change: app::rewards::RulesChange,
) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    let rules = app
        .change_reward_rules(&AccountId::new(account_id), mode, change)
        .await?;
    let line = json!({
        "enabled": rules.enabled,
        "spend_threshold": rules.spend_threshold.to_string(),
        "monthly_debits": rules.monthly_debits,
        "inactivity_days": rules.inactivity_days,
    });
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

pub async fn review_list(db_args: &DbArgs, serve: &ServeArgs) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    for case in app.cases_in_review().await? {
        let (r, identity) = (&case.registration, &case.registration.identity);
        // What a reviewer decides on; the identity number masked but for
        // its last 4 characters.
        let line = json!({
            "cardholder_id": case.id.as_str(),
            "account_id": case.account_id.as_str(),
            "livemode": case.mode.is_live(),
            "first_name": r.first_name,
            "last_name": r.last_name,
            "date_of_birth": identity.date_of_birth.map(|d| d.to_string()),
            "country": r.address.country.name(),
            "id_type": identity.id_type.as_str(),
            "id_number": identity.masked_number(),
            "id_image": identity.id_image,
            "selfie_image": identity.selfie_image,
            "reason": case.error_description,
            "created_at": case.created_at.unix(),
        });
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn review(
    db_args: &DbArgs,
    serve: &ServeArgs,
    cardholder_id: &str,
    approve: bool,
    reason: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    app.review_cardholder(&CardholderId::new(cardholder_id), approve, reason)
        .await?;
    println!(
        "cardholder {cardholder_id} {}",
        if approve { "approved" } else { "rejected" }
    );
    Ok(ExitCode::SUCCESS)
}

/// `issuing operators create`: prints the new operator's one-time link.
pub async fn create_operator(
    db_args: &DbArgs,
    serve: &ServeArgs,
    email: &str,
    (listen, url): (Listener, Option<String>),
) -> anyhow::Result<ExitCode> {
    let base = match (url, listen.0) {
        (Some(url), _) => public_url("--dashboard-url", &url)?,
        (None, Some(addr)) if addr.port() != 0 => format!("http://{addr}"),
        (None, _) => anyhow::bail!(
            "--dashboard-url: required when --dashboard-listen is off or port 0 (the link must name where the dashboard is reached)"
        ),
    };
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    let invited = app.create_operator(email).await?;
    // Printed, never logged: whoever holds the link sets the password.
    println!(
        "operator {} made; set the password within 72 hours at {}/set-password?token={}",
        invited.user_id,
        base,
        invited.link_token.expose()
    );
    Ok(ExitCode::SUCCESS)
}

pub async fn migrate(db: &DbArgs) -> anyhow::Result<ExitCode> {
    let (_, applied) = wiring::open_and_migrate(db, Open::Create { migrate_pg: true }).await?;
    match applied {
        0 => println!("no migration to apply: the schema is up to date"),
        n => println!("applied {n} migrations: the schema is up to date"),
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn create_account(db_args: &DbArgs, serve: &ServeArgs, details: &AccountDetails) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    let created = app.create_account(details, false).await?;
    let out = json!({
        "account_id": created.account_id.as_str(),
        "test_secret_key": created.test_secret_key.expose(),
        "live_secret_key": created.live_secret_key.expose(),
        "test_webhook_secret": created.test_webhook_secret.expose(),
        "live_webhook_secret": created.live_webhook_secret.expose(),
    });
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// What `accounts roll-key` and `roll-webhook-secret` roll.
pub enum Roll {
    Key,
    WebhookSecret,
}

/// Prints the new key or secret once; logs the roll (never the value) as
/// an operator's act.
pub async fn roll(db_args: &DbArgs, args: &RollArgs, serve: &ServeArgs, what: Roll) -> anyhow::Result<ExitCode> {
    let (account_id, mode, overlap_secs) = (args.account_id.as_str(), Mode::from(args.mode), args.expire_old_in);
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    let account = AccountId::new(account_id);
    let live = mode.is_live();
    let (rolled, out) = match what {
        Roll::Key => {
            let rolled = app.roll_key(&account, mode, overlap_secs).await?;
            let out = json!({
                "account_id": account_id,
                "livemode": live,
                "secret_key": rolled.secret_key.expose(),
                "old_keys_expire_at": rolled.old_keys_expire_at.unix(),
            });
            ("secret key", out)
        }
        Roll::WebhookSecret => {
            let rolled = app.roll_webhook_secret(&account, mode, overlap_secs).await?;
            let out = json!({
                "account_id": account_id,
                "livemode": live,
                "webhook_secret": rolled.webhook_secret.expose(),
                "old_secret_expires_at": rolled.old_secret_expires_at.unix(),
            });
            ("webhook secret", out)
        }
    };
    tracing::info!(account = %account, mode = mode.as_str(), overlap_secs, "{rolled} rolled");
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Seals every secret again under the master key; the previous key must
/// be given (it opens them).
pub async fn rotate_master_key(db_args: &DbArgs) -> anyhow::Result<ExitCode> {
    if db_args.previous_master_key.is_none() && db_args.previous_master_key_file.is_none() {
        anyhow::bail!(
            "give the key being rotated away from as ISSUING_PREVIOUS_MASTER_KEY (or --previous-master-key-file), \
             and the new one as ISSUING_MASTER_KEY"
        );
    }
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let vault = crate::master_key::load(&db, db_args).await?;
    let resealed = db.reseal_under_current_key(&vault).await?;
    tracing::info!(resealed, "master key rotated");
    println!(
        "{}",
        json!({
            "resealed": resealed,
            "next": "restart every process with the new master key alone (without the previous one)",
        })
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads key metadata only: needs no master key.
pub async fn list_keys(db_args: &DbArgs, account_id: &str) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let keys = db.list_keys(&AccountId::new(account_id)).await?;
    // Every account has keys: none means no such account.
    if keys.is_empty() {
        anyhow::bail!("no account {account_id}");
    }
    for key in keys {
        let line = json!({
            "id": key.id,
            "livemode": key.mode.is_live(),
            "created_at": key.created_at.unix(),
            "expires_at": key.expires_at.map(domain::Timestamp::unix),
        });
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Needs no master key.
pub async fn revoke_key(db_args: &DbArgs, account_id: &str, key_id: &str) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let account = AccountId::new(account_id);
    let now = ports::clock::Clock::now(&adapters::system::SystemClock);
    if !db.revoke_key(&account, key_id, now).await? {
        anyhow::bail!("account {account_id} has no unexpired key {key_id:?} (see `issuing accounts keys`)");
    }
    tracing::info!(account = %account, key_id, "secret key revoked");
    println!("key {key_id} of {account_id} is revoked");
    Ok(ExitCode::SUCCESS)
}

/// Logs the credit (an operator's act, never a balance edit) and prints it.
pub async fn credit_wallet(db_args: &DbArgs, serve: &ServeArgs, args: &CreditArgs) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db, db_args, serve, &serve.worker).await?;
    let request = app::wallets::CreditRequest {
        account: AccountId::new(&args.account_id),
        mode: args.mode.into(),
        currency: &args.currency,
        amount: &args.amount,
        reference: &args.reference,
        note: &args.note,
    };
    let mode = request.mode;
    let credited = app.credit_wallet(request).await?;
    // The account's id (an account that exists) as it is; the free text
    // Debug-formatted: quoted, so a note cannot pose as more fields.
    let what = match credited.moved_now {
        true => "issuing wallet credited from deposits",
        false => "issuing wallet credit already made under this reference: nothing moved",
    };
    tracing::info!(
        account = %args.account_id,
        mode = mode.as_str(),
        currency = credited.currency.code(),
        amount = credited.amount.minor(),
        reference = ?credited.reference,
        note = ?args.note,
        "{what}"
    );
    let out = json!({
        "account_id": args.account_id,
        "livemode": mode.is_live(),
        "currency": credited.currency.code(),
        "amount": credited.amount.to_string(),
        "reference": credited.reference,
        "credited_now": credited.moved_now,
        "created_at": credited.created_at.unix(),
        "issuing_balance": credited.issuing_balance.to_string(),
    });
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Each processor-kept card of `mode` whose status differs at the
/// processor, as a JSON line; exit status 1 when any does.
pub async fn reconcile_cards(db_args: &DbArgs, serve: &ServeArgs, mode: Mode) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db.clone(), db_args, serve, &serve.worker).await?;
    connectors::hold_rails(&db, &serve.rails).await?;
    let report = app.reconcile_cards(mode).await?;
    for difference in &report.differences {
        let mut line = json!({
            "card_id": difference.card_id.as_str(),
            "processor_card_id": difference.processor_card,
            "here": difference.here.as_str(),
        });
        match &difference.there {
            Ok(there) => line["processor"] = json!(there.map_or("unknown", |s| s.as_str())),
            Err(why) => {
                line["processor"] = json!("unreadable");
                line["error"] = json!(why);
            }
        }
        println!("{line}");
    }
    eprintln!(
        "{} processor card(s) compared in {} mode, {} difference(s)",
        report.compared,
        mode.as_str(),
        report.differences.len()
    );
    Ok(if report.differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One difference a reconciliation found and what its repair did, as a
/// JSON line.
pub fn repair_line(repair: &ports::reconciliation::RepairRecord) -> serde_json::Value {
    json!({
        "authorization": repair.authorization,
        "class": repair.class,
        "repair": repair.repair,
        "amount": repair.amount.minor().to_string(),
        "applied_as": repair.applied_as,
        "account_id": repair.account_id.as_ref().map(|a| a.as_str()),
        "card_id": repair.card_id.as_ref().map(|c| c.as_str()),
        "outcome": repair.outcome,
    })
}

/// A reconciliation run's summary, as a JSON object.
pub fn run_summary(run: &ports::reconciliation::Run) -> serde_json::Value {
    json!({
        "run": run.id,
        "mode": run.mode.as_str(),
        "since": run.since.gmt(),
        "compared": run.compared,
        "differences": run.differences,
        "repaired": run.repaired,
        "unresolved": run.unresolved,
    })
}

/// Reconciles `mode`'s money with its processor's books: each difference
/// as a JSON line, then the summary; exit status 1 when any is left to an
/// operator (or the processor could not be read), 2 when the mode runs on
/// the simulator, which keeps no books of its own.
pub async fn reconcile_transactions(
    db_args: &DbArgs,
    serve: &ServeArgs,
    mode: Mode,
    since: Option<&str>,
    grace_secs: u32,
) -> anyhow::Result<ExitCode> {
    let since = match since {
        Some(since) => Timestamp::parse_gmt("--since", since).map_err(|e| anyhow::anyhow!("--since: {}", e.rule))?,
        None => SystemClock.now().minus(86_400),
    };
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let app = wiring::app(db.clone(), db_args, serve, &serve.worker).await?;
    connectors::hold_rails(&db, &serve.rails).await?;
    let (run, repairs) = match app.reconcile_transactions(mode, since, grace_secs.into(), None).await? {
        Reconciled::Ran { run, repairs } => (run, repairs),
        Reconciled::NoBooks => {
            eprintln!(
                "{} mode runs on the simulator, which keeps no books but this service's ledger: nothing to reconcile",
                mode.as_str()
            );
            return Ok(ExitCode::from(2));
        }
        Reconciled::Taken => unreachable!("a run of its own id is never taken"),
    };
    for repair in &repairs {
        println!("{}", repair_line(repair));
    }
    println!("{}", json!({ "summary": run_summary(&run) }));
    // What was repaired now is done; what is left needs an operator.
    Ok(if run.unresolved == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Each mode's recorded rails and every change of them, as JSON.
pub async fn rails_show(db_args: &DbArgs) -> anyhow::Result<ExitCode> {
    use ports::rails::RailsStore;
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let rails = db.recorded().await?;
    let changes = db.changes().await?;
    let out = json!({
        "rails": rails.iter().map(|(mode, r)| (mode.as_str(), r)).collect::<std::collections::BTreeMap<_, _>>(),
        "changes": changes.iter().map(|c| json!({
            "mode": c.mode.as_str(),
            "before": c.before,
            "after": c.after,
            "note": c.note,
            "changed_at": c.at.unix(),
        })).collect::<Vec<_>>(),
    });
    println!("{out:#}");
    Ok(ExitCode::SUCCESS)
}

/// Records the rails `rails` choose for `mode` in place of the recorded
/// ones, with `note` kept beside the change.
pub async fn rails_set(db_args: &DbArgs, mode: Mode, rails: &RailsArgs, note: &str) -> anyhow::Result<ExitCode> {
    use ports::rails::RailsStore;
    domain::text::plain("--note", note.trim(), 500).map_err(|e| anyhow::anyhow!("{e} (say why the rails change)"))?;
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let chosen = connectors::rails_of(mode, rails)?;
    let recorded = db.recorded().await?.into_iter().find(|(m, _)| *m == mode);
    if let Some((_, recorded)) = &recorded {
        if *recorded == chosen {
            eprintln!("{} mode runs on these rails already: nothing changed", mode.as_str());
            return Ok(ExitCode::SUCCESS);
        }
        if let Some(why) = recorded.change_refused(&chosen, db.in_use(mode).await?) {
            anyhow::bail!("{} mode stays on its rails: {why}", mode.as_str());
        }
    }
    let now = ports::clock::Clock::now(&adapters::system::SystemClock);
    let before = db.set(mode, &chosen, note.trim(), now).await?;
    let line = json!({"mode": mode.as_str(), "before": before, "after": chosen});
    println!("{line}");
    eprintln!("{} mode now runs on {}", mode.as_str(), chosen.describe());
    Ok(ExitCode::SUCCESS)
}

/// Reads the ledger only: needs no master key.
pub async fn ledger_check(db_args: &DbArgs, json: bool) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let breaches = db.breaches(db_args.max_wallet_balance).await?;
    for breach in &breaches {
        match json {
            true => println!("{}", serde_json::to_string(breach)?),
            false => println!("breach: {breach}"),
        }
    }
    match (json, breaches.is_empty()) {
        (true, _) => println!("{}", json!({"passed": breaches.is_empty(), "breaches": breaches.len()})),
        (false, true) => println!(
            "ledger check passed: every entry balances within one account and mode and is the move its kind \
             records, every cached balance matches its postings and is within its range, and each card's \
             entries of every kind equal its records (creation, fundings, unloadings, debits, fees, holds, \
             captures, refunds and reversals, deletion), none given back beyond its transaction"
        ),
        (false, false) => println!("ledger check failed: {} breach(es)", breaches.len()),
    }
    Ok(if breaches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Reads the ledger only: needs no master key.
pub async fn ledger_totals(db_args: &DbArgs) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, Open::Existing).await?;
    let mut out = json!({"live": {}, "test": {}});
    for total in db.totals().await? {
        let currency = &mut out[total.mode.as_str()][total.currency.as_str()];
        // Amounts are digit strings, as everywhere in the API.
        currency[total.kind] = json!(total.balance.to_string());
    }
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

pub fn openapi() -> anyhow::Result<ExitCode> {
    let doc = api::openapi::document(&api::PublicUrls::default());
    println!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(ExitCode::SUCCESS)
}

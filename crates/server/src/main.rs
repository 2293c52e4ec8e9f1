//! `issuing`: the card issuing service's binary.

mod cli;
mod commands;
mod connectors;
mod credentials;
mod dashboard;
mod master_key;
mod metrics;
mod traces;
mod wiring;
mod workers;

use cli::{
    AccountsCommand, Cli, Command, JobsCommand, LedgerCommand, LogFormat, MasterKeyCommand, OperatorsCommand,
    RailsCommand, ReconcileCommand, ReviewCommand, RewardsCommand, ServeArgs, WalletsCommand,
};
use std::io::IsTerminal;
use std::process::ExitCode;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

/// Dependencies that print what they carry below info: tokio-postgres logs
/// every SQL bind parameter (BVNs, phones, addresses) at debug; hyper, h2
/// and actix log request and response heads and bodies (API keys, card
/// data) at debug and trace. They stay at info whatever `ISSUING_LOG`
/// asks for, so no log level can print personal data or secrets.
const HELD_AT_INFO: [&str; 8] = [
    "tokio_postgres",
    "postgres_protocol",
    "hyper",
    "hyper_util",
    "h2",
    "reqwest",
    "actix_http",
    "actix_web",
];

/// Logs on stderr at `ISSUING_LOG`'s level, and the spans `traces`
/// exports (each layer filtered on its own, so the debug spans traces take
/// cost nothing without them).
fn init_logs(format: LogFormat, traces: Option<&traces::Traces>) {
    let filter = EnvFilter::try_from_env("ISSUING_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let held = Targets::new()
        .with_default(LevelFilter::TRACE)
        .with_targets(HELD_AT_INFO.map(|target| (target, LevelFilter::INFO)));
    // Colours only for a person at a terminal, never in files or collectors.
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let mut layers = vec![match format {
        LogFormat::Text => logs.with_filter(filter).boxed(),
        LogFormat::Json => logs.json().with_filter(filter).boxed(),
    }];
    layers.extend(traces.map(|t| t.layer().boxed()));
    tracing_subscriber::registry().with(held).with(layers).init();
}

/// `--otlp-endpoint` of the command that serves, if it is one.
fn otlp_endpoint(cli: &Cli) -> Option<&str> {
    let worker = match &cli.command {
        None => &cli.serve.worker,
        Some(Command::Serve(args)) => &args.worker,
        Some(Command::Worker(args)) => &args.worker,
        Some(_) => return None,
    };
    worker.otlp_endpoint.as_deref()
}

/// A command whose reader went away (`issuing openapi | head`) ends
/// quietly, as Unix tools do, where Rust's default (SIGPIPE ignored) makes
/// `println!` panic. Only the commands: the server keeps ignoring it (and
/// Rust writes to sockets with `MSG_NOSIGNAL` anyway, so a database
/// connection never raises it).
fn end_quietly_when_stdout_closes() {
    // SAFETY: sets the process's disposition of one signal to its default;
    // no handler runs, and nothing else in the process changes it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// How long work left running after a stop is waited for.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The runtime is made here rather than by `#[tokio::main]`: the traces'
/// exporter (a blocking HTTP client) is made before it and flushed after.
fn main() -> ExitCode {
    let cli = Cli::read();
    let traces = match otlp_endpoint(&cli).map(traces::Traces::new).transpose() {
        Ok(traces) => traces,
        Err(e) => {
            eprintln!("error: {}", said_once(&e));
            return ExitCode::FAILURE;
        }
    };
    init_logs(cli.log_format, traces.as_ref());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("the async runtime starts");
    let code = runtime.block_on(run(cli));
    // The servers have stopped, their requests answered. What still runs
    // (a job runner's query, an SQLite statement waiting out another
    // process's lock for its 10-second busy timeout) is given a few
    // seconds, then left as a crash would leave it: every money step is
    // one transaction, and a job's lease lets another process take it.
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    if let Some(traces) = traces {
        traces.shutdown();
    }
    code
}

async fn run(cli: Cli) -> ExitCode {
    if !matches!(cli.command, None | Some(Command::Serve(_) | Command::Worker(_))) {
        end_quietly_when_stdout_closes();
    }
    let (db, serve) = (cli.db, cli.serve);
    let outcome = match cli.command {
        None => commands::serve(&db, &serve).await,
        Some(Command::Serve(args)) => commands::serve(&db, &args).await,
        Some(Command::Worker(args)) => {
            let serve = ServeArgs {
                rails: args.rails.clone(),
                ..serve
            };
            commands::worker(&db, &args, &serve).await
        }
        Some(Command::Migrate) => commands::migrate(&db).await,
        Some(Command::Jobs(JobsCommand::List { failed })) => commands::list_jobs(&db, &serve, failed).await,
        Some(Command::Jobs(JobsCommand::Retry { id })) => commands::retry_job(&db, &serve, &id).await,
        Some(Command::Accounts(AccountsCommand::Create { name, profile })) => {
            let details = app::accounts::AccountDetails {
                name,
                webhook_url: profile.webhook_url,
                company_address: profile.company_address,
                utility_bill_url: profile.utility_bill_url,
            };
            commands::create_account(&db, &serve, &details).await
        }
        Some(Command::Accounts(AccountsCommand::Update {
            account_id,
            rewards,
            profile,
        })) => {
            let update = app::accounts::AccountUpdate {
                webhook_url: profile.webhook_url,
                company_address: profile.company_address,
                utility_bill_url: profile.utility_bill_url,
            };
            let rewards = rewards.map(|r| r == "on");
            commands::update_account(&db, &serve, &account_id, &update, rewards).await
        }
        Some(Command::Accounts(AccountsCommand::RollKey(args))) => {
            commands::roll(&db, &args, &serve, commands::Roll::Key).await
        }
        Some(Command::Accounts(AccountsCommand::RollWebhookSecret(args))) => {
            commands::roll(&db, &args, &serve, commands::Roll::WebhookSecret).await
        }
        Some(Command::MasterKey(MasterKeyCommand::Rotate)) => commands::rotate_master_key(&db).await,
        Some(Command::MasterKey(MasterKeyCommand::Generate { out })) => {
            let key = adapters::crypto::vault::MasterKeyVault::generate_hex();
            match out {
                Some(path) => credentials::write_new("master key", &path, &key).map(|()| ExitCode::SUCCESS),
                None => {
                    println!("{}", key.expose());
                    Ok(ExitCode::SUCCESS)
                }
            }
        }
        Some(Command::Accounts(AccountsCommand::Keys { account_id })) => commands::list_keys(&db, &account_id).await,
        Some(Command::Accounts(AccountsCommand::RevokeKey { account_id, key_id })) => {
            commands::revoke_key(&db, &account_id, &key_id).await
        }
        Some(Command::Rewards(RewardsCommand::Import { file })) => commands::import_rewards(&db, &serve, &file).await,
        Some(Command::Rewards(RewardsCommand::Rules {
            account_id,
            mode,
            spend_threshold,
            monthly_debits,
            inactivity_days,
        })) => {
            let change = app::rewards::RulesChange {
                enabled: None,
                spend_threshold,
                monthly_debits,
                inactivity_days,
            };
            commands::reward_rules(&db, &serve, &account_id, mode.into(), change).await
        }
        Some(Command::Review(ReviewCommand::List)) => commands::review_list(&db, &serve).await,
        Some(Command::Review(ReviewCommand::Approve { cardholder_id })) => {
            commands::review(&db, &serve, &cardholder_id, true, None).await
        }
        Some(Command::Review(ReviewCommand::Reject { cardholder_id, reason })) => {
            commands::review(&db, &serve, &cardholder_id, false, reason.as_deref()).await
        }
        Some(Command::Operators(OperatorsCommand::Create {
            email,
            dashboard_url,
            dashboard_listen,
        })) => commands::create_operator(&db, &serve, &email, (dashboard_listen, dashboard_url)).await,
        Some(Command::Wallets(WalletsCommand::Credit(args))) => commands::credit_wallet(&db, &serve, &args).await,
        Some(Command::Ledger(LedgerCommand::Check { json })) => commands::ledger_check(&db, json).await,
        Some(Command::Ledger(LedgerCommand::Totals)) => commands::ledger_totals(&db).await,
        Some(Command::Reconcile(ReconcileCommand::Cards { mode, rails })) => {
            let serve = ServeArgs { rails, ..serve };
            commands::reconcile_cards(&db, &serve, mode.into()).await
        }
        Some(Command::Reconcile(ReconcileCommand::Transactions {
            mode,
            since,
            grace_secs,
            rails,
        })) => {
            let serve = ServeArgs { rails, ..serve };
            commands::reconcile_transactions(&db, &serve, mode.into(), since.as_deref(), grace_secs).await
        }
        Some(Command::Rails(RailsCommand::Show)) => commands::rails_show(&db).await,
        Some(Command::Rails(RailsCommand::Set { mode, note, rails })) => {
            commands::rails_set(&db, mode.into(), &rails, &note).await
        }
        Some(Command::Openapi) => commands::openapi(),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", said_once(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes, each said once: a cause whose words its
/// error already says (a pool error quoting the connection's, which
/// quotes the TLS handshake's) is not said again.
fn said_once(e: &anyhow::Error) -> String {
    let mut said = String::new();
    for cause in e.chain().map(|c| c.to_string()) {
        if said.contains(&cause) {
            continue;
        }
        if !said.is_empty() {
            said.push_str(": ");
        }
        said.push_str(&cause);
    }
    said
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_errors_causes_are_said_once() {
        let e = anyhow::anyhow!("handshake: certificate not valid for 127.0.0.1")
            .context("pool: handshake: certificate not valid for 127.0.0.1")
            .context("connecting to the database");
        assert_eq!(
            super::said_once(&e),
            "connecting to the database: pool: handshake: certificate not valid for 127.0.0.1"
        );
        let plain = anyhow::anyhow!("no such file").context("reading the key");
        assert_eq!(super::said_once(&plain), "reading the key: no such file");
    }
}

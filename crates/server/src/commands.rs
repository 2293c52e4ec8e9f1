//! What each subcommand does. Results go to stdout; logs to stderr.

use crate::cli::{DbArgs, ServeArgs};
use crate::wiring;
use actix_web::{HttpServer, web};
use anyhow::Context;
use ports::ledger::LedgerAudit;
use serde_json::json;
use std::process::ExitCode;

pub async fn serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(&args.db, !args.no_migrate).await?;
    let app = wiring::app(db, &args.db, args)?;
    let demo_key = app
        .demo_test_key()
        .await
        .context("preparing the demo account")?;
    let data = web::Data::new(app);
    let server = HttpServer::new(move || api::build(data.clone()))
        .bind(args.listen)
        .with_context(|| format!("listening on {}", args.listen))?;
    for addr in server.addrs() {
        println!("issuing API listening on http://{addr}");
    }
    if let Some(key) = demo_key {
        // Printed, never logged: the sandbox key of the local demo account.
        println!("demo account test key: {}", key.expose());
    }
    server.run().await.context("running the HTTP server")?;
    Ok(ExitCode::SUCCESS)
}

pub async fn migrate(db: &DbArgs) -> anyhow::Result<ExitCode> {
    wiring::open_db(db, true).await?;
    println!("migrations are up to date");
    Ok(ExitCode::SUCCESS)
}

pub async fn create_account(
    db_args: &DbArgs,
    serve: &ServeArgs,
    name: &str,
    webhook_url: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, false).await?;
    let app = wiring::app(db, db_args, serve)?;
    let created = app.create_account(name, webhook_url, false).await?;
    let out = json!({
        "account_id": created.account_id.as_str(),
        "test_secret_key": created.test_secret_key.expose(),
        "live_secret_key": created.live_secret_key.expose(),
        "webhook_secret": created.webhook_secret.expose(),
    });
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Reads the ledger only: needs no master key.
pub async fn ledger_check(db_args: &DbArgs) -> anyhow::Result<ExitCode> {
    let db = wiring::open_db(db_args, false).await?;
    let breaches = db.breaches().await?;
    if breaches.is_empty() {
        println!(
            "ledger check passed: every entry balances, every cached balance matches its postings"
        );
        return Ok(ExitCode::SUCCESS);
    }
    for breach in &breaches {
        println!("breach: {breach}");
    }
    println!("ledger check failed: {} breach(es)", breaches.len());
    Ok(ExitCode::FAILURE)
}

pub fn openapi() -> anyhow::Result<ExitCode> {
    let doc = api::openapi::document();
    println!("{}", serde_json::to_string_pretty(&doc)?);
    Ok(ExitCode::SUCCESS)
}

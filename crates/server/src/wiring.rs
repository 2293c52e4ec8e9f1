//! The composition root: adapters plugged into the use cases.

use crate::cli::{DbArgs, ServeArgs};
use crate::master_key;
use adapters::db::{Db, migrate};
use adapters::system::{RandomIds, SystemClock};
use anyhow::Context;
use app::{App, Ports, Settings};
use domain::fx::FxRates;
use std::sync::Arc;

/// Connects to the database, applying migrations when `migrate` is set
/// (always on SQLite, which has no separate deploy step).
pub async fn open_db(args: &DbArgs, migrate_pg: bool) -> anyhow::Result<Db> {
    let db = Db::connect(&args.database_url, args.db_pool_size)
        .await
        .context("connecting to the database")?;
    if db.is_sqlite() || migrate_pg {
        let applied = migrate(&db).await.context("applying migrations")?;
        if applied > 0 {
            tracing::info!(applied, "applied database migrations");
        }
    }
    Ok(db)
}

pub fn app(db: Db, args: &DbArgs, serve: &ServeArgs) -> anyhow::Result<App> {
    let vault = master_key::load(&args.database_url, args.master_key.as_deref())?;
    let db = Arc::new(db);
    let ports = Ports {
        accounts: db.clone(),
        wallets: db.clone(),
        rate_limits: db.clone(),
        health: db,
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
        vault: Arc::new(vault),
    };
    let fx_rates = FxRates {
        ngn_usd: serve.fx_ngn_usd,
        usd_ngn: serve.fx_usd_ngn,
    };
    Ok(App::new(ports, Settings { fx_rates }))
}

//! The composition root: adapters plugged into the use cases.

use crate::cli::{DbArgs, ServeArgs, WorkerArgs};
use crate::{connectors, master_key};
use adapters::card_network::NetworkSimulator;
use adapters::crypto::aes_everywhere::AesEverywhere;
use adapters::crypto::signature::ProcessorSecrets;
use adapters::db::{Db, MIGRATE_DIRECTLY, migrate, pending_migrations, sqlite_path};
use adapters::kyc_images::HttpKycImages;
use adapters::merchant_catalogue::ShippedCatalogue;
use adapters::reference;
use adapters::system::{RandomIds, SystemClock};
use adapters::webhook_sender::HttpWebhookSender;
use anyhow::Context;
use app::{App, Ports, Settings};
use domain::Secret;
use domain::fx::FxRates;
use std::sync::Arc;
use std::time::Duration;

/// Which database a command may open.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// `serve` and `migrate`: an SQLite file is created when missing;
    /// PostgreSQL is migrated when `migrate_pg`.
    Create { migrate_pg: bool },
    /// Every other command: only a database that exists, so a mistyped
    /// path is an error, never a new empty database that passes checks.
    Existing,
}

/// Connects to the database, applying migrations on SQLite (which has no
/// separate deploy step) and where `open` says.
pub async fn open_db(args: &DbArgs, open: Open) -> anyhow::Result<Db> {
    Ok(open_and_migrate(args, open).await?.0)
}

/// `open_db`, with how many migrations it applied.
pub async fn open_and_migrate(args: &DbArgs, open: Open) -> anyhow::Result<(Db, usize)> {
    if let (Open::Existing, Some(path)) = (open, sqlite_path(&args.database_url))
        && !std::path::Path::new(path).exists()
    {
        anyhow::bail!(
            "no database at {path}: check --database-url (DATABASE_URL); `issuing serve` or `issuing migrate` creates one"
        );
    }
    let migrate_pg = matches!(open, Open::Create { migrate_pg: true });
    let db = Db::connect(&args.database_url, args.db_pool_size)
        .await
        .context("connecting to the database")?;
    let mut applied = 0;
    if db.is_sqlite() || migrate_pg {
        applied = migrate(&db).await.context("applying migrations")?;
        if applied > 0 {
            tracing::info!(applied, "applied database migrations");
        }
    } else {
        let pending = pending_migrations(&db)
            .await
            .context("reading the schema's migrations")?;
        if pending > 0 {
            let how = match db.through_transaction_pooler() {
                true => MIGRATE_DIRECTLY,
                false => "run `issuing migrate` (with this binary) first",
            };
            anyhow::bail!("the database lacks {pending} of this binary's migrations: {how}");
        }
    }
    Ok((db, applied))
}

/// The use cases over `db`; `serve` gives the settings (defaults for
/// commands other than serve).
pub async fn app(db: Db, args: &DbArgs, serve: &ServeArgs, worker: &WorkerArgs) -> anyhow::Result<App> {
    if serve.processor_secret.is_some() && serve.processor_secret == serve.sandbox_processor_secret {
        anyhow::bail!(
            "--processor-secret and --sandbox-processor-secret must differ: with one secret for both, a sandbox signature would debit live cards"
        );
    }
    let vault = master_key::load(&db, args).await?;
    let webhooks = HttpWebhookSender::new(
        Duration::from_millis(worker.webhook_connect_timeout_ms),
        Duration::from_millis(worker.webhook_timeout_ms),
        worker.webhook_allow_private,
    )
    .map_err(anyhow::Error::msg)?;
    let db = Arc::new(db);
    let ports = Ports {
        accounts: db.clone(),
        cardholders: db.clone(),
        kyc: connectors::kyc(&serve.rails)?,
        cards: db.clone(),
        card_transactions: db.clone(),
        merchants: Arc::new(ShippedCatalogue::load()),
        processor_auth: Arc::new(ProcessorSecrets {
            live: processor_secret("--processor-secret", &serve.processor_secret)?,
            test: processor_secret("--sandbox-processor-secret", &serve.sandbox_processor_secret)?,
        }),
        network: connectors::network(
            &serve.rails,
            NetworkSimulator::new(&serve.card_bin, serve.allow_long_bin)
                .map_err(|e| anyhow::anyhow!("--card-bin: {}", e.rule))?,
        )?,
        gateway: connectors::gateway(&serve.rails)?,
        field_cipher: Arc::new(AesEverywhere),
        wallets: db.clone(),
        rate_limits: db.clone(),
        idempotency: db.clone(),
        events: db.clone(),
        jobs: db.clone(),
        test_clocks: db.clone(),
        webhooks: Arc::new(webhooks),
        health: db.clone(),
        clock: Arc::new(SystemClock),
        ids: Arc::new(RandomIds),
        vault: Arc::new(vault),
        rewards: db.clone(),
        spending_controls: db.clone(),
        console: db.clone(),
        reconciliation: db,
        passwords: Arc::new(adapters::crypto::passwords::Argon2id),
        totp: Arc::new(adapters::crypto::totp::Rfc6238),
        kyc_images: Arc::new(HttpKycImages::new(worker.webhook_allow_private).map_err(|e| anyhow::anyhow!(e))?),
    };
    let fx_rates = FxRates {
        ngn_usd: serve.fx_ngn_usd,
        usd_ngn: serve.fx_usd_ngn,
    };
    Ok(App::new(
        ports,
        Settings {
            fx_rates,
            regions: Arc::new(reference::regions()),
            max_wallet: args.max_wallet_balance,
            webhook_allow_private: worker.webhook_allow_private,
            key_cache_secs: serve.key_cache_secs,
            live_connectors: connectors::live_connectors(&serve.rails),
            hold_secs: serve.authorization_hold_secs,
            gateway_budget: Duration::from_millis(serve.sudo_gateway_budget_ms),
        },
    ))
}

/// A processor secret long enough not to be guessed. Checked here, not by
/// clap, whose error would echo the value.
fn processor_secret(flag: &str, value: &Option<String>) -> anyhow::Result<Option<Secret<String>>> {
    const MIN_CHARS: usize = 32;
    match value {
        Some(secret) if secret.chars().count() < MIN_CHARS => {
            anyhow::bail!("{flag}: must be at least {MIN_CHARS} characters")
        }
        _ => Ok(value.clone().map(Secret::new)),
    }
}

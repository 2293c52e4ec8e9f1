//! Where the master key comes from, and the checks that keep one database
//! under one key: `ISSUING_MASTER_KEY`, a file named by
//! `--master-key-file`, or with SQLite a 0600 file beside the database,
//! generated on the first start only (never once sealed data exists).
//! Every start proves its key opens the database's check value.

use crate::cli::DbArgs;
use adapters::crypto::vault::MasterKeyVault;
use adapters::db::{CHECK_ROW, Db, HASH_KEY_ROW, sqlite_path};
use anyhow::{Context, bail};
use domain::Mode;
use domain::Secret;
use ports::vault::{Place, SealedField, Vault};
use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// What the check value seals.
const CHECK_TEXT: &[u8] = b"issuing master key check v1";

const WRONG_KEY: &str = "this master key does not open the data in this database: give the key it was created with \
     (ISSUING_MASTER_KEY, --master-key-file, or the key file beside an SQLite database)";

/// Where the master key comes from.
enum Source {
    /// ISSUING_MASTER_KEY, or the file --master-key-file names.
    Given(Secret<String>),
    /// The file beside an SQLite database, generated on its first start.
    BesideDatabase(PathBuf),
}

pub async fn load(db: &Db, args: &DbArgs) -> anyhow::Result<MasterKeyVault> {
    // Where the key comes from (given, or the file beside an SQLite
    // database) is settled before the database is read, so a missing key
    // is named even on a database not migrated yet.
    let given = match (&args.master_key, &args.master_key_file) {
        (Some(_), Some(_)) => bail!("give the master key once: ISSUING_MASTER_KEY or --master-key-file, not both"),
        (Some(hex), None) => Source::Given(Secret::new(hex.clone())),
        (None, Some(path)) => Source::Given(read(path)?),
        (None, None) => match sqlite_path(&args.database_url) {
            Some(db_path) => Source::BesideDatabase(PathBuf::from(format!("{db_path}.master.key"))),
            None => bail!(
                "ISSUING_MASTER_KEY or --master-key-file is required with PostgreSQL (64 hex characters; `openssl rand -hex 32` makes one)"
            ),
        },
    };
    let check = db.master_key_check().await;
    let check = check.context("reading the master key check value (has `issuing migrate` run?)")?;
    let sample = db.any_sealed_value().await?;
    let hex = match given {
        Source::Given(hex) => hex,
        Source::BesideDatabase(key_file) => beside_database(key_file, check.is_some() || sample.is_some())?,
    };
    let mut vault = MasterKeyVault::from_hex(&hex).context("ISSUING_MASTER_KEY")?;
    if let Some(previous) = previous_key(args)? {
        vault = vault.with_previous(&previous).context("ISSUING_PREVIOUS_MASTER_KEY")?;
    }
    let check_row = CHECK_ROW.to_string();
    let place = vault_place(&check_row);
    let mut data_under_previous = false;
    match check {
        Some(check) => {
            let opened = vault.open(&check, &place);
            if !opened.is_ok_and(|plain| plain.expose() == CHECK_TEXT) {
                bail!(WRONG_KEY);
            }
            data_under_previous = vault.sealed_under_previous(&check);
        }
        // A database from before the check value: its sealed values prove
        // the key as they are sealed again, bound to their places.
        None if sample.is_some() => {
            let resealed = db.reseal_unbound(&vault).await;
            let resealed = resealed.map_err(|e| anyhow::anyhow!("{WRONG_KEY} ({e})"))?;
            tracing::info!(
                values = resealed,
                "sealed stored secrets again, each bound to its place"
            );
            db.set_master_key_check(&vault.seal(CHECK_TEXT, &place)).await?;
        }
        None => db.set_master_key_check(&vault.seal(CHECK_TEXT, &place)).await?,
    }
    keep_hash_key(db, &mut vault, data_under_previous).await?;
    Ok(vault)
}

/// Where the vault's own values are sealed: row 1 the check value, row 2
/// the key of keyed hashes.
fn vault_place(row: &str) -> Place<'_> {
    Place {
        field: SealedField::MasterKeyCheck,
        row,
        account: "",
        mode: Mode::Live,
    }
}

/// The key of keyed hashes (3-D Secure OTPs, reward links, page
/// sessions) is kept in the database, sealed: a new master key leaves it
/// as it was, so links already handed out keep working. The first start
/// keeps the one derived from the key the data is sealed under.
async fn keep_hash_key(db: &Db, vault: &mut MasterKeyVault, data_under_previous: bool) -> anyhow::Result<()> {
    let row = HASH_KEY_ROW.to_string();
    let place = vault_place(&row);
    let kept = match db.kept_hash_key().await? {
        Some(kept) => kept,
        None => {
            let (key, under_previous) = vault.hash_key_to_keep(data_under_previous);
            let sealed = match under_previous {
                true => vault.seal_under_previous(&key, &place),
                false => None,
            };
            db.keep_hash_key(&sealed.unwrap_or_else(|| vault.seal(&key, &place)))
                .await?;
            // What is stored, whoever stored it first.
            db.kept_hash_key().await?.context("the kept hash key")?
        }
    };
    let opened = vault.open(&kept, &place).map_err(|_| anyhow::anyhow!(WRONG_KEY))?;
    vault.use_hash_key(opened.expose()).context("the kept hash key")?;
    Ok(())
}

/// The key being rotated away from, if given.
fn previous_key(args: &DbArgs) -> anyhow::Result<Option<Secret<String>>> {
    match (&args.previous_master_key, &args.previous_master_key_file) {
        (Some(_), Some(_)) => bail!(
            "give the previous master key once: ISSUING_PREVIOUS_MASTER_KEY or --previous-master-key-file, not both"
        ),
        (Some(hex), None) => Ok(Some(Secret::new(hex.clone()))),
        (None, Some(path)) => Ok(Some(read(path)?)),
        (None, None) => Ok(None),
    }
}

/// A key file that exists and only its owner can read.
fn read(path: &Path) -> anyhow::Result<Secret<String>> {
    crate::credentials::from_file("master key", path)
}

/// The key file beside an SQLite database, generated when missing on a
/// database that holds nothing sealed yet.
fn beside_database(path: PathBuf, holds_sealed: bool) -> anyhow::Result<Secret<String>> {
    match std::fs::metadata(&path) {
        Ok(_) => return read(&path),
        Err(e) if e.kind() != ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("reading the master key file {}", path.display()));
        }
        Err(_) if holds_sealed => bail!(
            "the master key file {} is missing, but the database holds data sealed under it: restore the file \
             (a new key would not open that data)",
            path.display()
        ),
        Err(_) => {}
    }
    let hex = MasterKeyVault::generate_hex();
    let created = OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path);
    match created {
        Ok(mut file) => {
            file.write_all(hex.expose().as_bytes())
                .with_context(|| format!("writing the master key file {}", path.display()))?;
            tracing::info!(path = %path.display(), "generated a master key; keep it safe, and away from database backups");
            Ok(hex)
        }
        // Another process created it first: use theirs.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => read(&path),
        Err(e) => Err(e).with_context(|| format!("creating the master key file {}", path.display())),
    }
}

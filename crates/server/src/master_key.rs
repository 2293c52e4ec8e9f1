//! Where the master key comes from: `ISSUING_MASTER_KEY`, or with SQLite a
//! 0600 file beside the database, generated on first start.

use adapters::crypto::vault::MasterKeyVault;
use adapters::db::sqlite_path;
use anyhow::{Context, bail};
use domain::Secret;
use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

pub fn load(database_url: &str, configured: Option<&str>) -> anyhow::Result<MasterKeyVault> {
    let hex = match configured {
        Some(hex) => Secret::new(hex.to_string()),
        None => match sqlite_path(database_url) {
            Some(db_path) => from_file(PathBuf::from(format!("{db_path}.master.key")))?,
            None => bail!(
                "ISSUING_MASTER_KEY is required with PostgreSQL (64 hex characters; `openssl rand -hex 32` makes one)"
            ),
        },
    };
    MasterKeyVault::from_hex(&hex).context("ISSUING_MASTER_KEY")
}

fn from_file(path: PathBuf) -> anyhow::Result<Secret<String>> {
    match std::fs::read_to_string(&path) {
        Ok(hex) => return Ok(Secret::new(hex.trim().to_string())),
        Err(e) if e.kind() != ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("reading the master key file {}", path.display()));
        }
        Err(_) => {}
    }
    let hex = MasterKeyVault::generate_hex();
    let created = OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path);
    match created {
        Ok(mut file) => {
            file.write_all(hex.expose().as_bytes())
                .with_context(|| format!("writing the master key file {}", path.display()))?;
            tracing::info!(path = %path.display(), "generated a master key; keep this file with the database");
            Ok(hex)
        }
        // Another process created it first: use theirs.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => from_file(path),
        Err(e) => Err(e).with_context(|| format!("creating the master key file {}", path.display())),
    }
}

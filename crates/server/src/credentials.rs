//! Secrets the service is given: from the environment (`NAME`) or from a
//! file only its owner can read (`NAME_FILE`), never from the command
//! line, where the process list shows them.

use anyhow::{Context, bail};
use domain::Secret;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The secret in the file at `path`, trimmed; `what` names it in errors.
pub fn from_file(what: &str, path: &Path) -> anyhow::Result<Secret<String>> {
    let shown = path.display();
    let mode = std::fs::metadata(path)
        .with_context(|| format!("reading the {what} file {shown}"))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        bail!(
            "the {what} file {shown} can be read by others (mode {:o}): `chmod 600 {shown}`",
            mode & 0o777
        );
    }
    let value = std::fs::read_to_string(path).with_context(|| format!("reading the {what} file {shown}"))?;
    if value.trim().is_empty() {
        bail!("the {what} file {shown} is empty");
    }
    Ok(Secret::new(value.trim().to_string()))
}

/// `name` from the environment, or the file `name_FILE` names; an empty
/// value counts as unset.
pub fn from_env(name: &str) -> anyhow::Result<Option<Secret<String>>> {
    let file = format!("{name}_FILE");
    let value = std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let path = std::env::var_os(&file).filter(|v| !v.is_empty());
    match (value, path) {
        (Some(_), Some(_)) => bail!("give {name} once: {name} or {file}, not both"),
        (Some(value), None) => Ok(Some(Secret::new(value.trim().to_string()))),
        (None, Some(path)) => from_file(name, Path::new(&path)).map(Some),
        (None, None) => Ok(None),
    }
}

/// `name` (or `name_FILE`), which `needed_by` cannot start without.
pub fn required(name: &str, needed_by: &str) -> anyhow::Result<Secret<String>> {
    from_env(name)?.with_context(|| format!("{needed_by} needs {name} (or {name}_FILE), which is not set"))
}

/// Writes `secret` to a new file at `path` that only its owner can read
/// or write (mode 0600, whatever the umask), as [`from_file`] requires;
/// an existing file is never replaced.
pub fn write_new(what: &str, path: &Path, secret: &Secret<String>) -> anyhow::Result<()> {
    let shown = path.display();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating the {what} file {shown} (it must not exist yet)"))?;
    writeln!(file, "{}", secret.expose()).with_context(|| format!("writing the {what} file {shown}"))?;
    file.sync_all()
        .with_context(|| format!("writing the {what} file {shown}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_secret_is_read_back_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("master.key");
        let secret = Secret::new("ab".repeat(32));
        write_new("master key", &path, &secret).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(from_file("master key", &path).unwrap().expose(), secret.expose());
        let again = write_new("master key", &path, &Secret::new("cd".repeat(32))).unwrap_err();
        assert!(format!("{again:#}").contains("must not exist yet"), "{again:#}");
        assert_eq!(from_file("master key", &path).unwrap().expose(), secret.expose());
    }
}

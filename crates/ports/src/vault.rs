use domain::Secret;

#[derive(Debug, thiserror::Error)]
#[error("sealed data could not be opened")]
pub struct VaultError;

/// Secrets at rest: sealed under the server's master key.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Vault: Send + Sync {
    fn seal(&self, plain: &[u8]) -> Vec<u8>;
    fn open(&self, sealed: &[u8]) -> Result<Secret<Vec<u8>>, VaultError>;
    /// A one-way hash to find a secret by (SHA-256, hex).
    fn lookup_hash(&self, secret: &str) -> String;
}

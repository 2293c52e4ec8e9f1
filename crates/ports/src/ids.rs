use domain::Secret;

/// Fresh identifiers and random secrets.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Ids: Send + Sync {
    /// A unique id suffix (no prefix).
    fn unique(&self) -> String;

    /// `len` random alphanumeric characters from a cryptographic source.
    fn secret(&self, len: usize) -> Secret<String>;
}

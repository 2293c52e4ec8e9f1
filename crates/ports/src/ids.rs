use domain::Secret;

/// Fresh identifiers and random secrets.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Ids: Send + Sync {
    /// A unique id suffix (no prefix), time-ordered: ids made later sort
    /// after ids made earlier.
    fn unique(&self) -> String;

    /// A uniform random number in `[0, 1)`, for jitter.
    fn fraction(&self) -> f64;

    /// `len` random alphanumeric characters from a cryptographic source.
    fn secret(&self, len: usize) -> Secret<String>;

    /// A webhook secret as Standard Webhooks defines one: `whsec_` and
    /// the base64 of 32 random bytes from a cryptographic source.
    fn webhook_secret(&self) -> Secret<String>;
}

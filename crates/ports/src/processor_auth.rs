use domain::Timestamp;
use domain::{DomainError, ErrorKind, Mode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProcessorAuthError {
    #[error("the processor endpoint is disabled: no processor secret is configured")]
    Disabled,
    #[error("x-processor-signature: missing, malformed, stale or not made with the processor secret")]
    BadSignature,
}

impl DomainError for ProcessorAuthError {
    fn kind(&self) -> ErrorKind {
        match self {
            ProcessorAuthError::Disabled => ErrorKind::Forbidden,
            ProcessorAuthError::BadSignature => ErrorKind::Unauthorized,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            ProcessorAuthError::Disabled => "processor_disabled",
            ProcessorAuthError::BadSignature => "bad_processor_signature",
        }
    }
}

/// Authenticates the card processor's calls: an HMAC of the raw body
/// under the processor secret of a mode, in `x-processor-signature`.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait ProcessorAuth: Send + Sync {
    /// The mode whose secret signed the call: it may debit only cards of
    /// that mode.
    fn verify(&self, signature: Option<String>, body: &[u8], now: Timestamp) -> Result<Mode, ProcessorAuthError>;
}

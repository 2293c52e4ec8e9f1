//! The error of use cases that can fail only on their input, on the mode
//! of the key, or in storage.

use domain::{DomainError, ErrorKind, InvalidInput};
use ports::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error("this is a sandbox helper: use a test key on /v1/issuing/sandbox/...")]
    SandboxOnly,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for RequestError {
    fn kind(&self) -> ErrorKind {
        match self {
            RequestError::Invalid(e) => e.kind(),
            RequestError::SandboxOnly => ErrorKind::Forbidden,
            RequestError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            RequestError::Invalid(e) => e.code(),
            RequestError::SandboxOnly => "sandbox_only",
            RequestError::Store(e) => e.code(),
        }
    }
}

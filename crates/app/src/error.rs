//! The error of use cases that can fail only on their input, on the mode
//! of the key, or in storage.

use domain::{DomainError, ErrorKind, InvalidInput};
use ports::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    /// A sandbox helper asked in live mode: answered as its production
    /// path is, which does not exist (the routes never get here; the use
    /// cases refuse on their own too).
    #[error("no endpoint has this path: sandbox helpers are under /v1/issuing/sandbox/, with a test key")]
    SandboxOnly,
    /// The sandbox clock would pass the most it may run ahead.
    #[error(
        "seconds: the sandbox clock may run at most {0} seconds (a century) ahead, and this advance would take it past that"
    )]
    ClockLimit(i64),
    /// A credit would take the issuing wallet past the most it may hold.
    #[error("amount: the wallet would hold more than {0}, the most an issuing wallet may hold")]
    WalletFull(domain::Amount),
    /// The sandbox faucet would have given the account more than the most
    /// a wallet may hold: all it ever gave counts, wherever it went.
    #[error(
        "amount: the sandbox would have given this account more than {0} in this currency, the most an issuing \
         wallet may hold (what its wallet and cards hold and what they spent count together)"
    )]
    SandboxFull(domain::Amount),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for RequestError {
    fn kind(&self) -> ErrorKind {
        match self {
            RequestError::Invalid(e) => e.kind(),
            RequestError::SandboxOnly => ErrorKind::NotFound,
            RequestError::ClockLimit(_) => ErrorKind::Conflict,
            RequestError::WalletFull(_) | RequestError::SandboxFull(_) => ErrorKind::InvalidRequest,
            RequestError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            RequestError::Invalid(e) => e.code(),
            RequestError::SandboxOnly => "not_found",
            RequestError::ClockLimit(_) => "sandbox_clock_limit",
            RequestError::WalletFull(_) | RequestError::SandboxFull(_) => "wallet_balance_limit",
            RequestError::Store(e) => e.code(),
        }
    }
}

//! The error taxonomy: every failure the service reports falls in one
//! `ErrorKind`, and the HTTP layer maps each kind to one status.

/// What kind of failure an error is, independent of transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request is malformed or breaks a rule (400).
    InvalidRequest,
    /// The caller is not authenticated for this path, or a business rule
    /// the contract reports as 401 (an unverified cardholder).
    Unauthorized,
    /// A balance (the wallet's, the card's) is too low for the amount; the
    /// contract answers 401.
    InsufficientFunds,
    /// The account may not do this (403).
    Forbidden,
    /// No such endpoint for this key's mode (404).
    NotFound,
    /// The request is well formed but the state it would change refuses
    /// it (409).
    Conflict,
    /// The request is well formed but cannot be taken as it stands: it
    /// reuses an idempotency key of another request (422).
    Unprocessable,
    /// Too many calls; retry after the given number of seconds (420).
    RateLimited { retry_after_secs: u64 },
    /// The individual is blacklisted (451).
    Blacklisted,
    /// A dependency failed; the client should retry (504).
    RetryLater,
    /// The service itself is not able to answer (503).
    Unavailable,
    /// The service is over capacity and refused the request before
    /// doing anything; retry after a second (503 with `Retry-After`).
    Overloaded,
    /// A bug or an unexpected failure; nothing internal is shown (500).
    Internal,
}

/// An error the service can report to a client: a kind, a stable
/// machine-readable code and a human message (its `Display`).
pub trait DomainError: std::error::Error {
    fn kind(&self) -> ErrorKind;
    fn code(&self) -> &'static str;
}

/// A field of a request that breaks a rule. The message names both.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {rule}")]
pub struct InvalidInput {
    pub field: String,
    pub rule: String,
}

impl InvalidInput {
    pub fn new(field: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            rule: rule.into(),
        }
    }
}

impl DomainError for InvalidInput {
    fn kind(&self) -> ErrorKind {
        ErrorKind::InvalidRequest
    }
    fn code(&self) -> &'static str {
        "invalid_request"
    }
}

/// A present amount, as sent: not trimmed, so that surrounding spaces are
/// refused by the amount's digit rule like any other character.
pub fn amount_text<'a>(value: &'a Option<String>, field: &str) -> Result<&'a str, InvalidInput> {
    value.as_deref().ok_or_else(|| InvalidInput::new(field, "is required"))
}

/// A present, non-blank value, trimmed; "is required" otherwise.
pub fn required<'a>(value: &'a Option<String>, field: &str) -> Result<&'a str, InvalidInput> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| InvalidInput::new(field, "is required"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_input_message_names_field_and_rule() {
        let e = InvalidInput::new("amount", "must contain digits only");
        assert_eq!(e.to_string(), "amount: must contain digits only");
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
}

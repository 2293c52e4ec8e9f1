//! Secret API keys: `sk_test_...` for the sandbox, `sk_live_...` for
//! production, each with at least 32 random alphanumeric characters, sent
//! as the header `token: Bearer <key>` (or `Authorization: Bearer <key>`).

use crate::{DomainError, ErrorKind, Mode, Secret};

pub const MIN_RANDOM_CHARS: usize = 32;

/// Why a request could not be authenticated. Every arm is a 401.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("missing API key: send the header `token: Bearer <secret key>` (or `Authorization: Bearer <secret key>`)")]
    Missing,
    #[error(
        "malformed API key: send one header, `token: Bearer sk_test_...` or `token: Bearer sk_live_...` \
         (or the same as `Authorization`)"
    )]
    Malformed,
    #[error("unknown API key")]
    Unknown,
    #[error("a live key works only on production paths (/v1/issuing/...)")]
    LiveKeyOnSandbox,
    #[error("a test key works only on sandbox paths (/v1/issuing/sandbox/...)")]
    TestKeyOnLive,
}

impl DomainError for AuthError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Unauthorized
    }
    fn code(&self) -> &'static str {
        match self {
            AuthError::Missing => "missing_api_key",
            AuthError::Malformed => "malformed_api_key",
            AuthError::Unknown => "unknown_api_key",
            AuthError::LiveKeyOnSandbox | AuthError::TestKeyOnLive => "wrong_mode_api_key",
        }
    }
}

fn prefix(mode: Mode) -> &'static str {
    match mode {
        Mode::Test => "sk_test_",
        Mode::Live => "sk_live_",
    }
}

/// Builds a key of `mode` around random alphanumeric characters.
pub fn format_key(mode: Mode, random: &str) -> Secret<String> {
    Secret::new(format!("{}{random}", prefix(mode)))
}

/// Reads the key header's value (`token` or `Authorization`) and checks
/// the key's shape and that its mode is the one the path requires.
/// Whether the key exists is the store's question.
pub fn parse_header(header: Option<&str>, required: Mode) -> Result<Secret<String>, AuthError> {
    let header = header.ok_or(AuthError::Missing)?;
    let key = header.strip_prefix("Bearer ").ok_or(AuthError::Malformed)?.trim();
    let mode = Mode::BOTH
        .into_iter()
        .find(|m| key.starts_with(prefix(*m)))
        .ok_or(AuthError::Malformed)?;
    let random = &key[prefix(mode).len()..];
    if random.len() < MIN_RANDOM_CHARS || !random.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(AuthError::Malformed);
    }
    match (mode, required) {
        (Mode::Live, Mode::Test) => Err(AuthError::LiveKeyOnSandbox),
        (Mode::Test, Mode::Live) => Err(AuthError::TestKeyOnLive),
        _ => Ok(Secret::new(key.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RANDOM: &str = "0123456789abcdefghijABCDEFGHIJxyz9";

    fn header(mode: Mode) -> String {
        format!("Bearer {}", format_key(mode, RANDOM).expose())
    }

    #[test]
    fn accepts_a_key_of_the_required_mode() {
        let key = parse_header(Some(&header(Mode::Test)), Mode::Test).unwrap();
        assert_eq!(key.expose(), &format!("sk_test_{RANDOM}"));
        assert!(parse_header(Some(&header(Mode::Live)), Mode::Live).is_ok());
    }

    #[test]
    fn rejects_the_other_mode() {
        assert_eq!(
            parse_header(Some(&header(Mode::Live)), Mode::Test),
            Err(AuthError::LiveKeyOnSandbox)
        );
        assert_eq!(
            parse_header(Some(&header(Mode::Test)), Mode::Live),
            Err(AuthError::TestKeyOnLive)
        );
    }

    #[test]
    fn rejects_missing_and_malformed() {
        assert_eq!(parse_header(None, Mode::Test), Err(AuthError::Missing));
        let short = format!("Bearer sk_test_{}", &RANDOM[..31]);
        let bad = [
            "sk_test_0123456789abcdefghijABCDEFGHIJ",
            "Bearer",
            "Bearer pk_test_0123456789abcdefghijABCDEFGHIJ",
            "Bearer sk_test_0123456789abcdefghijABCDEFGHI!",
            short.as_str(),
        ];
        for h in bad {
            assert_eq!(parse_header(Some(h), Mode::Test), Err(AuthError::Malformed), "{h}");
        }
    }

    #[test]
    fn errors_never_echo_the_key() {
        let h = format!("Bearer sk_live_{RANDOM}");
        let e = parse_header(Some(&h), Mode::Test).unwrap_err();
        assert!(!e.to_string().contains(RANDOM));
    }
}

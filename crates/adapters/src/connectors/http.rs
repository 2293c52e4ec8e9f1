//! The HTTP client every connector calls its provider with: TLS by rustls,
//! bounded timeouts, no redirects, JSON in and out. A failure is either
//! the provider being unavailable (timeout, connection, 429, 5xx: worth
//! retrying later) or a refusal (any other 4xx, with the provider's own
//! message), never the raw transport error.

use serde::de::DeserializeOwned;
use std::time::Duration;

/// Longest a provider's message is kept, in characters.
const MESSAGE_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// Timed out, unreachable, rate limited (429) or failing (5xx).
    #[error("{0}")]
    Unavailable(String),
    /// A 4xx other than 429: the provider refused what was sent.
    #[error("{provider} answered {status}: {message}")]
    Refused {
        provider: &'static str,
        status: u16,
        message: String,
    },
}

pub struct ProviderHttp {
    client: reqwest::Client,
    base: String,
    provider: &'static str,
}

impl ProviderHttp {
    /// A client for `provider` at `base` (no trailing slash needed).
    pub fn new(provider: &'static str, base: &str, timeout: Duration) -> Result<Self, String> {
        // rustls with the ring provider: pure Rust and assembly, no cmake.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(timeout)
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("issuing/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("{provider} HTTP client: {e}"))?;
        Ok(Self {
            client,
            base: base.trim_end_matches('/').to_string(),
            provider,
        })
    }

    /// Sends `body` (if any) to `path` with `headers`, and reads the
    /// answer as `T`. `message` finds the provider's words in an error
    /// body.
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&serde_json::Value>,
        message: fn(&serde_json::Value) -> Option<String>,
    ) -> Result<T, CallError> {
        let url = format!("{}{path}", self.base);
        let mut request = self.client.request(method, &url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let unavailable = |what: &str| CallError::Unavailable(format!("{} {what}", self.provider));
        let response = request.send().await.map_err(|e| {
            unavailable(match e.is_timeout() {
                true => "did not answer in time",
                false => "could not be reached",
            })
        })?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|_| unavailable("closed the connection mid-answer"))?;
        let json: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
        if status.is_success() {
            // Not the parser's words: they quote the body, which may hold
            // a card token or number.
            return serde_json::from_slice(&bytes)
                .map_err(|_| unavailable("answered a body this connector cannot read"));
        }
        let words = json.as_ref().and_then(message).map(|m| clean(&m)).unwrap_or_default();
        if status.as_u16() == 429 || status.is_server_error() {
            return Err(unavailable(format!("answered {} {words}", status.as_u16()).trim_end()));
        }
        Err(CallError::Refused {
            provider: self.provider,
            status: status.as_u16(),
            message: words,
        })
    }
}

/// A provider's message as it is repeated (in logs, a job's last error):
/// printable characters only, not too long, and nothing that could be a
/// card number, an identity number or a token it echoed back: 6 or more
/// digits in a word or in a run of words of digits (`5399 8300 ...`), and
/// words of 24 or more characters, are replaced.
fn clean(message: &str) -> String {
    let printable: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MESSAGE_CHARS)
        .collect();
    let digits = |word: &str| word.chars().filter(char::is_ascii_digit).count();
    let all_digits = |word: &str| {
        word.trim_matches(|c: char| !c.is_alphanumeric())
            .bytes()
            .all(|b| b.is_ascii_digit())
    };
    let words: Vec<&str> = printable.split_whitespace().collect();
    let mut kept: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        // A run of words of digits only, counted together.
        let run = words[i..].iter().take_while(|w| all_digits(w)).count();
        if run > 1 && words[i..i + run].iter().map(|w| digits(w)).sum::<usize>() >= 6 {
            kept.push("[digits]".into());
            i += run;
            continue;
        }
        let word = words[i];
        kept.push(match (word.chars().count() >= 24, digits(word) >= 6) {
            (true, _) => "[redacted]".into(),
            (_, true) => "[digits]".into(),
            _ => word.to_string(),
        });
        i += 1;
    }
    kept.join(" ")
}

/// For a provider whose error words are never repeated (a vault).
pub fn no_message(_body: &serde_json::Value) -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn numbers_and_tokens_a_provider_echoes_are_never_repeated() {
        let said = "bad token eyJhbGciOiJIUzI1NiJ9.eyJfaWQiOiI2MmExIn0.sig for card 5399830000000024, BVN 22212345678";
        let cleaned = clean(said);
        for secret in ["eyJhbGci", "5399830000000024", "22212345678"] {
            assert!(!cleaned.contains(secret), "{cleaned}");
        }
        let grouped = clean("card 5399 8300 0000 0024 declined");
        assert_eq!(grouped, "card [digits] declined");
        assert_eq!(clean("2215 Job already exists"), "2215 Job already exists");
        assert_eq!(clean("name should not be empty"), "name should not be empty");
        assert_eq!(clean("Card\u{0}not\nfound"), "Card not found");
        assert!(clean(&"x ".repeat(1_000)).chars().count() <= super::MESSAGE_CHARS);
    }
}

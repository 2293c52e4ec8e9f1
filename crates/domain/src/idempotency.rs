//! Idempotency keys (`Idempotency-Key`, as Stripe's API has them): a write
//! sent with a key runs once; its answer is kept for a day and given again
//! to every retry of the same request with the same key.

use crate::{InvalidInput, Timestamp};

/// The header a client names its key in.
pub const HEADER: &str = "Idempotency-Key";

/// The longest key taken, as Stripe's.
pub const MAX_KEY_LEN: usize = 255;

/// How long a key's answer is kept, on the mode's clock, from the answer.
pub const KEEP_SECS: i64 = 24 * 3600;

/// How long a request holds its key while it runs, in real seconds: past
/// this, its process is taken for dead and a retry runs the request again.
/// Every request ends well within it (the synchronous fundings, the
/// longest, wait 10 s).
pub const LEASE_SECS: i64 = 120;

/// A key as the client sent it: 1 to 255 visible ASCII characters or
/// spaces, not blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn parse(raw: &[u8]) -> Result<Self, InvalidInput> {
        let rule = || {
            InvalidInput::new(
                HEADER,
                format!("must be 1 to {MAX_KEY_LEN} visible ASCII characters (a UUID, say)"),
            )
        };
        let text = std::str::from_utf8(raw).map_err(|_| rule())?;
        let fits = (1..=MAX_KEY_LEN).contains(&text.len()) && !text.trim().is_empty();
        match fits && text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            true => Ok(Self(text.to_string())),
            false => Err(rule()),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a key was first used for: the request (method, path, and the
/// listener, as the relay answers in clear what the base address seals)
/// and a hash of its query and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// `POST /v1/issuing/cards/create_card`, with ` (relay)` on the relay.
    pub request: String,
    pub params_hash: String,
}

/// A kept key: what it was used for, when, and where its request is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    pub fingerprint: Fingerprint,
    /// On the mode's clock.
    pub created_at: Timestamp,
    pub state: KeyState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// Its request runs, in a process that holds it until this real time.
    Running { lease_until: i64 },
    /// Its request was answered, and the answer kept.
    Answered,
}

/// How a request with a key already kept is met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The same request, answered: its answer again.
    Replay,
    /// The same request, still running: 409.
    InFlight,
    /// Another request: 422.
    Mismatch(Mismatch),
    /// The key expired, or its request's process died: it is claimed
    /// again and the request runs.
    TakeOver,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// Another method, path or listener: the first one.
    Request(String),
    /// The same request line with other parameters.
    Params,
}

impl Mismatch {
    /// The 422's message.
    pub fn describe(&self) -> String {
        match self {
            Mismatch::Request(first) => {
                format!("{HEADER}: this key was used for another request ({first}); use a new key for this one")
            }
            Mismatch::Params => {
                format!("{HEADER}: this key was used with other parameters; use a new key for this request")
            }
        }
    }
}

/// How `asked` is met against the kept `record`, at `now` on the mode's
/// clock and `real_now` on the real one (leases).
/// A running key never expires (the sandbox clock may jump a day while
/// its request runs): only its process's death, a lease run out, frees it.
pub fn judge(record: &KeyRecord, asked: &Fingerprint, now: Timestamp, real_now: i64) -> Verdict {
    if record.state == KeyState::Answered && now.secs_since(record.created_at) >= KEEP_SECS {
        return Verdict::TakeOver;
    }
    if record.fingerprint.request != asked.request {
        return Verdict::Mismatch(Mismatch::Request(record.fingerprint.request.clone()));
    }
    if record.fingerprint.params_hash != asked.params_hash {
        return Verdict::Mismatch(Mismatch::Params);
    }
    match record.state {
        KeyState::Answered => Verdict::Replay,
        KeyState::Running { lease_until } if real_now < lease_until => Verdict::InFlight,
        KeyState::Running { .. } => Verdict::TakeOver,
    }
}

/// Whether an answer of `status` is kept for the key's retries. Answers
/// that ask for a retry are not, and free the key: a server error (the
/// request may not have run, or still completes, as a synchronous
/// funding's 504 does) and a rate limit (it did not run).
pub fn kept(status: u16) -> bool {
    !(status >= 500 || status == 420 || status == 429)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn record(request: &str, params: &str, created_at: i64, state: KeyState) -> KeyRecord {
        KeyRecord {
            fingerprint: Fingerprint {
                request: request.into(),
                params_hash: params.into(),
            },
            created_at: Timestamp::from_unix(created_at),
            state,
        }
    }

    fn asked(request: &str, params: &str) -> Fingerprint {
        Fingerprint {
            request: request.into(),
            params_hash: params.into(),
        }
    }

    #[test]
    fn keys_are_visible_ascii_up_to_255() {
        assert!(IdempotencyKey::parse(b"0f8fad5b-d9cb-469f-a165-70867728950e").is_ok());
        assert!(IdempotencyKey::parse(&[b'k'; 255]).is_ok());
        for bad in [
            &b""[..],
            b"   ",
            &[b'k'; 256],
            b"a\0b",
            b"caf\xc3\xa9",
            b"a\nb",
            b"\xff",
        ] {
            let e = IdempotencyKey::parse(bad).unwrap_err();
            assert_eq!(e.field, HEADER, "{bad:?}");
        }
    }

    #[test]
    fn mismatches_name_what_differs() {
        let kept = record("POST /a", "h", 0, KeyState::Answered);
        assert_eq!(
            judge(&kept, &asked("POST /b", "h"), Timestamp::from_unix(1), 0),
            Verdict::Mismatch(Mismatch::Request("POST /a".into()))
        );
        assert_eq!(
            judge(&kept, &asked("POST /a", "other"), Timestamp::from_unix(1), 0),
            Verdict::Mismatch(Mismatch::Params)
        );
        assert!(Mismatch::Request("POST /a".into()).describe().contains("POST /a"));
    }

    #[test]
    fn final_answers_are_kept_and_retry_answers_free_the_key() {
        for status in [200, 201, 400, 401, 403, 404, 405, 409, 451] {
            assert!(kept(status), "{status}");
        }
        for status in [420, 429, 500, 503, 504] {
            assert!(!kept(status), "{status}");
        }
    }

    proptest! {
        /// Within the day, the same request is replayed once answered,
        /// and waits for a live lease; a day's end frees an answered key
        /// whatever was asked, and only a dead lease a running one.
        #[test]
        fn the_day_and_the_lease_decide(
            created in -1_000_000i64..1_000_000,
            age in 0i64..(3 * KEEP_SECS),
            lease_until in -1_000i64..1_000,
            real_now in -1_000i64..1_000,
            answered: bool,
            same: bool,
        ) {
            let state = match answered {
                true => KeyState::Answered,
                false => KeyState::Running { lease_until },
            };
            let kept = record("POST /a", "h", created, state);
            let asked = asked("POST /a", if same { "h" } else { "x" });
            let verdict = judge(&kept, &asked, Timestamp::from_unix(created + age), real_now);
            let expected = if answered && age >= KEEP_SECS {
                Verdict::TakeOver
            } else if !same {
                Verdict::Mismatch(Mismatch::Params)
            } else if answered {
                Verdict::Replay
            } else if real_now < lease_until {
                Verdict::InFlight
            } else {
                Verdict::TakeOver
            };
            prop_assert_eq!(verdict, expected);
        }
    }
}

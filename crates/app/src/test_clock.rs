//! `POST /v1/issuing/sandbox/test_clock/advance` and
//! `GET /v1/issuing/sandbox/test_clock`: an account's sandbox jumps
//! forward in time, so every time rule can be tried without waiting.
//! Live mode always runs on real time.

use crate::{App, Caller, ModeClock, RequestError};
use domain::{InvalidInput, Mode};

/// One jump at most ten years, so offsets stay far from overflow.
pub const MAX_ADVANCE_SECS: i64 = 10 * 366 * 86_400;

/// The sandbox clock runs at most a century ahead: dates stay dates.
const MAX_OFFSET_SECS: i64 = 100 * 366 * 86_400;

impl App {
    pub async fn advance_test_clock(&self, caller: &Caller, seconds: i64) -> Result<ModeClock, RequestError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly);
        }
        if !(1..=MAX_ADVANCE_SECS).contains(&seconds) {
            let rule = format!("must be a whole number from 1 to {MAX_ADVANCE_SECS}");
            return Err(InvalidInput::new("seconds", rule).into());
        }
        // One conditional statement: advances raced together cannot pass
        // the limit between a read and a write.
        let ahead_secs = self
            .ports
            .test_clocks
            .advance(&caller.account_id, seconds, MAX_OFFSET_SECS)
            .await?
            .ok_or(RequestError::ClockLimit(MAX_OFFSET_SECS))?;
        // This process's money requests see the jump at once; other
        // processes' batches send theirs back to be stamped again.
        self.clock_offsets.forget(&caller.account_id);
        Ok(ModeClock::at(self.ports.clock.now(), ahead_secs))
    }

    pub async fn get_test_clock(&self, caller: &Caller) -> Result<ModeClock, RequestError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly);
        }
        Ok(self.clock_for(&caller.account_id, caller.mode).await?)
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{Mocks, caller};
    use domain::{DomainError, Mode};

    #[tokio::test]
    async fn advancing_moves_the_sandbox_clock() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.test_clocks
            .expect_advance()
            .withf(|_, s, max| *s == 301 && *max == super::MAX_OFFSET_SECS)
            .returning(|_, _, _| Ok(Some(401)));
        let clock = m.app().advance_test_clock(&caller(Mode::Test), 301).await.unwrap();
        assert_eq!((clock.now.unix(), clock.ahead_secs), (1_401, 401));
    }

    #[tokio::test]
    async fn bad_seconds_name_the_field_and_live_mode_is_refused() {
        let app = Mocks::default().app();
        for bad in [0, -5, 999_999_999_999] {
            let e = app.advance_test_clock(&caller(Mode::Test), bad).await.unwrap_err();
            assert!(e.to_string().starts_with("seconds:"), "{bad}: {e}");
        }
        assert!(app.advance_test_clock(&caller(Mode::Live), 5).await.is_err());
    }

    #[tokio::test]
    async fn the_sandbox_clock_runs_at_most_a_century_ahead() {
        let mut m = Mocks::default();
        m.test_clocks.expect_advance().returning(|_, _, _| Ok(None));
        let e = m.app().advance_test_clock(&caller(Mode::Test), 11).await.unwrap_err();
        assert!(e.to_string().contains("a century"), "{e}");
        // The state refuses it, not the request's shape.
        assert_eq!(
            (e.kind(), e.code()),
            (domain::ErrorKind::Conflict, "sandbox_clock_limit")
        );
    }
}

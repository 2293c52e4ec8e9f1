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
        let current = self.ports.test_clocks.offset(&caller.account_id).await?;
        if current.saturating_add(seconds) > MAX_OFFSET_SECS {
            let rule = format!("the sandbox clock may run at most {MAX_OFFSET_SECS} seconds (a century) ahead");
            return Err(InvalidInput::new("seconds", rule).into());
        }
        let ahead_secs = self.ports.test_clocks.advance(&caller.account_id, seconds).await?;
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
    use domain::Mode;

    #[tokio::test]
    async fn advancing_moves_the_sandbox_clock() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.test_clocks.expect_offset().returning(|_| Ok(100));
        m.test_clocks
            .expect_advance()
            .withf(|_, s| *s == 301)
            .returning(|_, _| Ok(401));
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
        m.test_clocks
            .expect_offset()
            .returning(|_| Ok(super::MAX_OFFSET_SECS - 10));
        let e = m.app().advance_test_clock(&caller(Mode::Test), 11).await.unwrap_err();
        assert!(e.to_string().contains("a century"), "{e}");
    }
}

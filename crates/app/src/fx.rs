//! `GET /v1/issuing[/sandbox]/cards/fx-rate`: configured rates, at most
//! once a minute per account and mode.

use crate::{App, Caller};
use domain::fx::FxRates;
use domain::{DomainError, ErrorKind};
use ports::StoreError;
use ports::rate_limits::Permit;

const FX_RATE_WINDOW_SECS: i64 = 60;

#[derive(Debug, thiserror::Error)]
pub enum FxRateError {
    #[error("the FX rate can be fetched once a minute; retry in {retry_after_secs} seconds")]
    RateLimited { retry_after_secs: u64 },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for FxRateError {
    fn kind(&self) -> ErrorKind {
        match self {
            FxRateError::RateLimited { retry_after_secs } => ErrorKind::RateLimited {
                retry_after_secs: *retry_after_secs,
            },
            FxRateError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            FxRateError::RateLimited { .. } => "rate_limited",
            FxRateError::Store(e) => e.code(),
        }
    }
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_fx_rate(&self, caller: &Caller) -> Result<FxRates, FxRateError> {
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let permit = self
            .ports
            .rate_limits
            .acquire(&caller.account_id, caller.mode, "fx_rate", "", FX_RATE_WINDOW_SECS, now)
            .await?;
        match permit {
            Permit::Granted => Ok(self.settings.fx_rates),
            Permit::Denied { retry_after_secs } => Err(FxRateError::RateLimited { retry_after_secs }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, caller};
    use domain::Mode;

    #[tokio::test]
    async fn granted_returns_the_configured_rates() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(900));
        m.test_clocks.expect_offset().return_once(|_| Ok(100));
        m.rate_limits
            .expect_acquire()
            .withf(|_, mode, action, _, window, now| {
                *mode == Mode::Test && action == "fx_rate" && *window == 60 && now.unix() == 1_000
            })
            .return_once(|_, _, _, _, _, _| Ok(Permit::Granted));
        let rates = m.app().get_fx_rate(&caller(Mode::Test)).await.unwrap();
        assert_eq!(rates.ngn_usd.minor(), 160_000);
    }

    #[tokio::test]
    async fn denied_is_rate_limited_with_retry_after() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.rate_limits
            .expect_acquire()
            .withf(|account, mode, action, subject, _, _| {
                account.as_str() == "acct_1" && *mode == Mode::Live && action == "fx_rate" && subject.is_empty()
            })
            .return_once(|_, _, _, _, _, _| Ok(Permit::Denied { retry_after_secs: 42 }));
        let err = m.app().get_fx_rate(&caller(Mode::Live)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::RateLimited { retry_after_secs: 42 });
        assert_eq!(err.code(), "rate_limited");
    }
}

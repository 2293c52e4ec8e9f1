//! When to try failed work again: a schedule of base delays, each jittered
//! by up to ±10% so that retries of many jobs do not arrive together.

/// Base delays in seconds between attempts; the work is tried once, then
/// once after each delay, then given up (parked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySchedule(&'static [i64]);

impl RetrySchedule {
    /// Webhook deliveries: retried for about three days
    /// (1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h).
    pub const WEBHOOKS: RetrySchedule = RetrySchedule(&[60, 300, 1_800, 7_200, 18_000, 36_000, 36_000, 86_400, 86_400]);

    /// Work that moves money (settlements, fees): money in transit must
    /// not wait days silently, so retried quickly for about three hours
    /// (5 s, 15 s, 30 s, 1 min, 2 min, 5 min, 10 min, 30 min, 1 h, 1 h),
    /// then parked, which `issuing ledger check` reports.
    pub const MONEY: RetrySchedule = RetrySchedule(&[5, 15, 30, 60, 120, 300, 600, 1_800, 3_600, 3_600]);

    /// Identity checks and card rules: the provider or the rule may be
    /// down for a while; retried for about a day
    /// (30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h).
    pub const CHECKS: RetrySchedule = RetrySchedule(&[30, 120, 600, 1_800, 3_600, 10_800, 21_600, 43_200]);

    pub fn max_attempts(self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX).saturating_add(1)
    }

    /// Seconds to wait after `failed_attempts` failures (1 = the first
    /// attempt failed), or `None` when the work should be parked. `jitter`
    /// in `[0, 1)` picks a point in ±10% of the base delay.
    pub fn delay(self, failed_attempts: u32, jitter: f64) -> Option<i64> {
        let index = usize::try_from(failed_attempts.checked_sub(1)?).ok()?;
        let base = *self.0.get(index)?;
        let spread = base as f64 * 0.2 * (jitter.clamp(0.0, 1.0) - 0.5);
        Some((base + spread.round() as i64).max(1))
    }

    /// The sum of the base delays: how long the work is retried.
    pub fn span_secs(self) -> i64 {
        self.0.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DAY: i64 = 86_400;

    #[test]
    fn webhooks_are_retried_for_about_three_days_then_parked() {
        let s = RetrySchedule::WEBHOOKS;
        assert!(
            (3 * DAY - DAY / 4..=3 * DAY + DAY / 4).contains(&s.span_secs()),
            "{}",
            s.span_secs()
        );
        assert_eq!(s.max_attempts(), 10);
        assert_eq!(s.delay(1, 0.5), Some(60));
        assert_eq!(s.delay(9, 0.5), Some(86_400));
        assert_eq!(s.delay(10, 0.5), None);
        assert_eq!(s.delay(0, 0.5), None);
    }

    #[test]
    fn money_is_retried_within_hours_and_checks_within_a_day() {
        let money = RetrySchedule::MONEY;
        assert_eq!(money.delay(1, 0.5), Some(5));
        assert!(
            (2 * 3_600..=4 * 3_600).contains(&money.span_secs()),
            "{}",
            money.span_secs()
        );
        let checks = RetrySchedule::CHECKS;
        assert!(
            (DAY * 3 / 4..=DAY * 5 / 4).contains(&checks.span_secs()),
            "{}",
            checks.span_secs()
        );
    }

    proptest! {
        #[test]
        fn jitter_stays_within_ten_percent(failed in 1u32..10, jitter in 0.0f64..1.0) {
            let s = RetrySchedule::WEBHOOKS;
            let base = s.delay(failed, 0.5).unwrap();
            let d = s.delay(failed, jitter).unwrap();
            prop_assert!((d - base).abs() <= base / 10 + 1, "{} vs {}", d, base);
        }

        #[test]
        fn delays_never_shrink_as_failures_grow(failed in 1u32..12) {
            for s in [RetrySchedule::WEBHOOKS, RetrySchedule::MONEY, RetrySchedule::CHECKS] {
                if let (Some(next), Some(this)) = (s.delay(failed + 1, 0.5), s.delay(failed, 0.5)) {
                    prop_assert!(next >= this);
                }
            }
        }
    }
}

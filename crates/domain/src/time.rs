//! Moments in time. Every time the service keeps or compares is a
//! [`Timestamp`]: whole Unix seconds, read from one clock. Live mode runs
//! on the real clock; an account's sandbox runs on its own test clock,
//! ahead of the real one. A timestamp does not say which clock it came
//! from, so the app reads each mode's time once per use case (`App::
//! clock_for`) and converts explicitly where a job, which runs on the real
//! clock, is due at a time of the sandbox's.
//!
//! On the wire times are `YYYY-MM-DD HH:MM:SS`, always GMT, and calendar
//! months are GMT months (monthly limits, fees, recurring charges).

use crate::InvalidInput;
use chrono::{DateTime, Datelike, Months, NaiveDate, NaiveDateTime};

const FORMAT: &str = "%Y-%m-%d %H:%M:%S";

/// A moment, in whole Unix seconds. Arithmetic saturates: the far future
/// is [`Timestamp::NEVER`], never an overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(i64);

impl Timestamp {
    /// Later than any date: a deadline that never comes.
    pub const NEVER: Timestamp = Timestamp(i64::MAX);

    pub const fn from_unix(secs: i64) -> Self {
        Timestamp(secs)
    }

    pub const fn unix(self) -> i64 {
        self.0
    }

    /// `secs` seconds later (earlier when negative).
    pub const fn plus(self, secs: i64) -> Self {
        Timestamp(self.0.saturating_add(secs))
    }

    /// `secs` seconds earlier.
    pub const fn minus(self, secs: i64) -> Self {
        Timestamp(self.0.saturating_sub(secs))
    }

    /// Seconds from `earlier` to `self` (negative when `earlier` is later).
    pub const fn secs_since(self, earlier: Timestamp) -> i64 {
        self.0.saturating_sub(earlier.0)
    }

    /// `YYYY-MM-DD HH:MM:SS` GMT.
    pub fn gmt(self) -> String {
        DateTime::from_timestamp(self.0, 0)
            .map(|t| t.format(FORMAT).to_string())
            .unwrap_or_default()
    }

    /// Parses `YYYY-MM-DD HH:MM:SS` (GMT); an error names `field`.
    pub fn parse_gmt(field: &str, value: &str) -> Result<Self, InvalidInput> {
        NaiveDateTime::parse_from_str(value, FORMAT)
            .map(|t| Timestamp(t.and_utc().timestamp()))
            .map_err(|_| InvalidInput::new(field, "must be a GMT time as YYYY-MM-DD HH:MM:SS"))
    }

    /// The calendar month as `YYYYMM`.
    pub fn month_key(self) -> i32 {
        let t = DateTime::from_timestamp(self.0, 0).unwrap_or_default();
        t.year() * 100 + t.month() as i32
    }

    /// The start and end (exclusive) of the month `back` months before
    /// this one.
    pub fn month_bounds(self, back: u32) -> (Timestamp, Timestamp) {
        let t = DateTime::from_timestamp(self.0, 0).unwrap_or_default();
        let first = NaiveDate::from_ymd_opt(t.year(), t.month(), 1).unwrap_or_default();
        let start = first - Months::new(back);
        let end = start + Months::new(1);
        let at = |d: NaiveDate| Timestamp(d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp());
        (at(start), at(end))
    }

    /// `months` calendar months later (the day clamped to the month's
    /// last); [`Timestamp::NEVER`] past the last date there is.
    pub fn add_months(self, months: u32) -> Timestamp {
        DateTime::from_timestamp(self.0, 0)
            .and_then(|t| t.checked_add_months(Months::new(months)))
            .map_or(Timestamp::NEVER, |t| Timestamp(t.timestamp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOV_22_2026: Timestamp = Timestamp::from_unix(1_795_305_600);

    #[test]
    fn months_past_the_last_date_are_never() {
        assert_eq!(Timestamp::NEVER.add_months(1), Timestamp::NEVER);
        assert_eq!(
            Timestamp::from_unix(8_233_106_184_932).add_months(1_000_000),
            Timestamp::NEVER
        );
        assert_eq!(NOV_22_2026.add_months(1).gmt(), "2026-12-22 00:00:00");
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(Timestamp::NEVER.plus(1), Timestamp::NEVER);
        assert_eq!(Timestamp::from_unix(i64::MIN).minus(1).unix(), i64::MIN);
        assert_eq!(Timestamp::NEVER.secs_since(Timestamp::from_unix(i64::MIN)), i64::MAX);
        assert_eq!(NOV_22_2026.plus(60).secs_since(NOV_22_2026), 60);
        assert_eq!(NOV_22_2026.minus(60).secs_since(NOV_22_2026), -60);
    }

    #[test]
    fn formats_and_parses_in_gmt() {
        assert_eq!(Timestamp::from_unix(0).gmt(), "1970-01-01 00:00:00");
        assert_eq!(NOV_22_2026.gmt(), "2026-11-22 00:00:00");
        assert_eq!(
            Timestamp::parse_gmt("start_date", "2026-11-22 00:00:00"),
            Ok(NOV_22_2026)
        );
        let e = Timestamp::parse_gmt("start_date", "2026-11-22").unwrap_err();
        assert!(e.to_string().starts_with("start_date:"));
    }

    #[test]
    fn months_are_calendar_months() {
        assert_eq!(NOV_22_2026.month_key(), 202_611);
        let (start, end) = NOV_22_2026.month_bounds(0);
        assert_eq!(
            (start.gmt().as_str(), end.gmt().as_str()),
            ("2026-11-01 00:00:00", "2026-12-01 00:00:00")
        );
        assert_eq!(NOV_22_2026.add_months(3).gmt(), "2027-02-22 00:00:00");
        let (start, end) = NOV_22_2026.month_bounds(11);
        assert_eq!(
            (start.gmt().as_str(), end.gmt().as_str()),
            ("2025-12-01 00:00:00", "2026-01-01 00:00:00")
        );
    }
}

//! Times on the wire: `YYYY-MM-DD HH:MM:SS`, always GMT; and calendar
//! months in GMT (monthly limits, recurring charges).

use crate::InvalidInput;
use chrono::{DateTime, Datelike, Months, NaiveDate, NaiveDateTime};

const FORMAT: &str = "%Y-%m-%d %H:%M:%S";

/// Unix seconds as `YYYY-MM-DD HH:MM:SS` GMT.
pub fn format(unix_secs: i64) -> String {
    DateTime::from_timestamp(unix_secs, 0)
        .map(|t| t.format(FORMAT).to_string())
        .unwrap_or_default()
}

/// Parses `YYYY-MM-DD HH:MM:SS` (GMT) into Unix seconds.
pub fn parse(field: &str, value: &str) -> Result<i64, InvalidInput> {
    NaiveDateTime::parse_from_str(value, FORMAT)
        .map(|t| t.and_utc().timestamp())
        .map_err(|_| InvalidInput::new(field, "must be a GMT time as YYYY-MM-DD HH:MM:SS"))
}

/// The calendar month of `unix_secs` as `YYYYMM`.
pub fn month_key(unix_secs: i64) -> i32 {
    let t = DateTime::from_timestamp(unix_secs, 0).unwrap_or_default();
    t.year() * 100 + t.month() as i32
}

/// The start and end (exclusive) of the month `back` months before the
/// month of `unix_secs`, in Unix seconds.
pub fn month_bounds(unix_secs: i64, back: u32) -> (i64, i64) {
    let t = DateTime::from_timestamp(unix_secs, 0).unwrap_or_default();
    let first = NaiveDate::from_ymd_opt(t.year(), t.month(), 1).unwrap_or_default();
    let start = first - Months::new(back);
    let end = start + Months::new(1);
    let secs = |d: NaiveDate| d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp();
    (secs(start), secs(end))
}

/// `unix_secs` plus `months` calendar months (the day clamped to the
/// month's last); `i64::MAX` (never) past the last date there is.
pub fn add_months(unix_secs: i64, months: u32) -> i64 {
    DateTime::from_timestamp(unix_secs, 0)
        .and_then(|t| t.checked_add_months(Months::new(months)))
        .map_or(i64::MAX, |t| t.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOV_22_2026: i64 = 1_795_305_600;

    #[test]
    fn months_past_the_last_date_are_never() {
        assert_eq!(add_months(i64::MAX, 1), i64::MAX);
        assert_eq!(add_months(8_233_106_184_932, 1_000_000), i64::MAX);
        assert_eq!(format(add_months(NOV_22_2026, 1)), "2026-12-22 00:00:00");
    }

    #[test]
    fn formats_and_parses_in_gmt() {
        assert_eq!(format(0), "1970-01-01 00:00:00");
        assert_eq!(format(NOV_22_2026), "2026-11-22 00:00:00");
        assert_eq!(parse("start_date", "2026-11-22 00:00:00"), Ok(NOV_22_2026));
        let e = parse("start_date", "2026-11-22").unwrap_err();
        assert!(e.to_string().starts_with("start_date:"));
    }

    #[test]
    fn months_are_calendar_months() {
        assert_eq!(month_key(NOV_22_2026), 202_611);
        let (start, end) = month_bounds(NOV_22_2026, 0);
        assert_eq!(
            (format(start).as_str(), format(end).as_str()),
            ("2026-11-01 00:00:00", "2026-12-01 00:00:00")
        );
        assert_eq!(format(add_months(NOV_22_2026, 3)), "2027-02-22 00:00:00");
        let (start, end) = month_bounds(NOV_22_2026, 11);
        assert_eq!(
            (format(start).as_str(), format(end).as_str()),
            ("2025-12-01 00:00:00", "2026-01-01 00:00:00")
        );
    }
}

//! Times on the wire: `YYYY-MM-DD HH:MM:SS`, always GMT.

use chrono::DateTime;

const FORMAT: &str = "%Y-%m-%d %H:%M:%S";

/// Unix seconds as `YYYY-MM-DD HH:MM:SS` GMT.
pub fn format(unix_secs: i64) -> String {
    DateTime::from_timestamp(unix_secs, 0)
        .map(|t| t.format(FORMAT).to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_in_gmt() {
        assert_eq!(super::format(0), "1970-01-01 00:00:00");
        assert_eq!(super::format(1_795_305_600), "2026-11-22 00:00:00");
    }
}

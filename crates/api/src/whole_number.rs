//! Integer fields as JSON Schema counts them: `5.0` is the integer 5
//! there, and integrations that build bodies from floating-point numbers
//! send it so (Python writes `5.0`), while serde's integer types refuse
//! it. The number's text is read, not a float made of it: a float would
//! round `4.99999999999999999` to 5.

use serde::de::Error;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// `text`, a JSON value as written, as the integer it writes: digits,
/// optionally a point and zeros only (`5`, `-5`, `5.000`). Any other
/// fraction, and exponents, are not integers here.
pub fn exact(text: &str) -> Option<i64> {
    let whole = match text.split_once('.') {
        None => text,
        Some((whole, zeros)) if !zeros.is_empty() && zeros.bytes().all(|b| b == b'0') => whole,
        Some(_) => return None,
    };
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    whole.parse().ok()
}

/// The field's value as written, for [`exact`].
pub fn raw<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Box<RawValue>, D::Error> {
    Box::<RawValue>::deserialize(deserializer)
}

/// An optional integer field (`null` and absent are `None`) that also
/// takes a whole number written with a point; `#[serde(default,
/// deserialize_with = ...)]`.
pub fn optional<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    let text = raw(deserializer)?;
    if text.get() == "null" {
        return Ok(None);
    }
    let n = exact(text.get())
        .ok_or_else(|| D::Error::custom(format!("invalid type: {}, expected a whole number", text.get())))?;
    T::try_from(n)
        .map(Some)
        .map_err(|_| D::Error::custom(format!("invalid value: {n}, expected a whole number in range")))
}

/// A required integer field that also takes a whole number written with a
/// point.
pub fn required<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    optional(deserializer)?.ok_or_else(|| D::Error::custom("invalid type: null, expected a whole number"))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct Body {
        #[serde(default, deserialize_with = "super::optional")]
        days: Option<u32>,
        #[serde(deserialize_with = "super::required")]
        seconds: i64,
    }

    fn parsed(json: &str) -> Result<(Option<u32>, i64), String> {
        let body: Body = serde_json::from_str(json).map_err(|e| e.to_string())?;
        Ok((body.days, body.seconds))
    }

    #[test]
    fn whole_numbers_written_with_a_point_are_the_integers_they_write() {
        assert_eq!(parsed(r#"{"days": 5, "seconds": 60}"#), Ok((Some(5), 60)));
        assert_eq!(parsed(r#"{"days": 5.0, "seconds": 60.000}"#), Ok((Some(5), 60)));
        assert_eq!(parsed(r#"{"days": null, "seconds": -1.0}"#), Ok((None, -1)));
        assert_eq!(parsed(r#"{"seconds": 9223372036854775807.0}"#), Ok((None, i64::MAX)));
    }

    #[test]
    fn fractions_exponents_and_out_of_range_values_are_refused_never_rounded() {
        for bad in [
            r#"{"seconds": 1.5}"#,
            r#"{"seconds": 59.999999999999999}"#,
            r#"{"seconds": 6e1}"#,
            r#"{"seconds": 1e300}"#,
            r#"{"seconds": 9223372036854775808}"#,
            r#"{"seconds": "60"}"#,
            r#"{"seconds": null}"#,
            r#"{"seconds": true}"#,
            r#"{"days": -1, "seconds": 1}"#,
            r#"{"days": 4294967296, "seconds": 1}"#,
        ] {
            assert!(parsed(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn exact_reads_only_integers() {
        for (text, n) in [
            ("5", Some(5)),
            ("5.0", Some(5)),
            ("-0.00", Some(0)),
            ("5.", None),
            (".0", None),
        ] {
            assert_eq!(super::exact(text), n, "{text}");
        }
        for text in ["4.99999999999999999", "1e3", "\"5\"", "true", "--5", "5.0.0", ""] {
            assert_eq!(super::exact(text), None, "{text}");
        }
    }
}

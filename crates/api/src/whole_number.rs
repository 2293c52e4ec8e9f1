//! Integer fields as JSON Schema counts them: `5.0` and `5e0` are the
//! integer 5 there, and integrations that build bodies from floating-point
//! numbers send them so, while serde's integer types refuse them.

use serde::Deserializer;
use serde::de::{Error, Unexpected, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// The largest whole number a JSON float carries exactly (2^53); past it a
/// float may stand for a neighbouring integer, so it is refused.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// `v` as an integer, when it is one and is carried exactly.
pub fn exact(v: f64) -> Option<i64> {
    (v.fract() == 0.0 && v.abs() <= EXACT).then_some(v as i64)
}

/// An optional integer field (`null` and absent are `None`) that also
/// takes a whole float; `#[serde(default, deserialize_with = ...)]`.
pub fn optional<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    deserializer.deserialize_any(Whole::<T>(PhantomData))
}

/// A required integer field that also takes a whole float.
pub fn required<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64>,
{
    optional(deserializer)?.ok_or_else(|| D::Error::invalid_type(Unexpected::Unit, &"a whole number"))
}

struct Whole<T>(PhantomData<T>);

impl<T: TryFrom<i64>> Whole<T> {
    fn fit<E: Error>(n: i64) -> Result<Option<T>, E> {
        T::try_from(n)
            .map(Some)
            .map_err(|_| E::invalid_value(Unexpected::Signed(n), &"a whole number in range"))
    }
}

impl<T: TryFrom<i64>> Visitor<'_> for Whole<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a whole number")
    }
    fn visit_unit<E: Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_none<E: Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Option<T>, E> {
        Self::fit(v)
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Option<T>, E> {
        let n = i64::try_from(v).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &"a whole number in range"))?;
        Self::fit(n)
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Option<T>, E> {
        let n = exact(v).ok_or_else(|| E::invalid_type(Unexpected::Float(v), &self))?;
        Self::fit(n)
    }
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
    fn whole_floats_are_the_integers_they_write() {
        assert_eq!(parsed(r#"{"days": 5, "seconds": 60}"#), Ok((Some(5), 60)));
        assert_eq!(parsed(r#"{"days": 5.0, "seconds": 6e1}"#), Ok((Some(5), 60)));
        assert_eq!(parsed(r#"{"days": null, "seconds": -1.0}"#), Ok((None, -1)));
        assert_eq!(parsed(r#"{"seconds": 9007199254740992.0}"#), Ok((None, 1 << 53)));
    }

    #[test]
    fn fractions_inexact_floats_and_out_of_range_values_are_refused() {
        for bad in [
            r#"{"seconds": 1.5}"#,
            r#"{"seconds": 9007199254740994.0}"#,
            r#"{"seconds": 1e300}"#,
            r#"{"seconds": 9223372036854775808}"#,
            r#"{"seconds": "60"}"#,
            r#"{"seconds": null}"#,
            r#"{"days": -1, "seconds": 1}"#,
            r#"{"days": 4294967296, "seconds": 1}"#,
        ] {
            assert!(parsed(bad).is_err(), "{bad}");
        }
    }
}

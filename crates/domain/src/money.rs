//! Money: amounts are `i64` minor units (cents, kobo) inside and strings of
//! digits on the wire. One parser, strict: digits only, no sign, no decimal
//! point, no spaces, within `i64`.

use crate::InvalidInput;
use std::fmt;

/// A non-negative amount in minor units of some currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(i64);

impl Amount {
    pub const ZERO: Amount = Amount(0);

    /// Parses a minor-unit string such as `"300"` (3 USD). The error names
    /// `field` and the rule that was broken.
    pub fn parse(field: &str, value: &str) -> Result<Self, InvalidInput> {
        let rule = |r: &str| InvalidInput::new(field, r);
        if value.is_empty() {
            return Err(rule("must not be empty"));
        }
        if !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(rule(
                "must be a whole number of minor units (digits only: no sign, decimal point or spaces)",
            ));
        }
        value.parse::<i64>().map(Amount).map_err(|_| rule("is too large"))
    }

    /// Parses like [`Amount::parse`] and also rejects zero.
    pub fn parse_positive(field: &str, value: &str) -> Result<Self, InvalidInput> {
        let amount = Self::parse(field, value)?;
        if amount == Amount::ZERO {
            return Err(InvalidInput::new(field, "must be greater than zero"));
        }
        Ok(amount)
    }

    /// An amount written in code; a negative one fails to compile.
    pub const fn from_const(minor: i64) -> Self {
        assert!(minor >= 0, "amounts are never negative");
        Amount(minor)
    }

    /// An amount from a stored value; `None` when negative.
    pub fn from_minor(minor: i64) -> Option<Self> {
        (minor >= 0).then_some(Amount(minor))
    }

    pub fn minor(self) -> i64 {
        self.0
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_digits() {
        assert_eq!(Amount::parse("amount", "300").unwrap().minor(), 300);
        assert_eq!(Amount::parse("amount", "0").unwrap(), Amount::ZERO);
        assert_eq!(Amount::parse("amount", "007").unwrap().minor(), 7);
        assert_eq!(
            Amount::parse("amount", "9223372036854775807").unwrap().minor(),
            i64::MAX
        );
    }

    #[test]
    fn rejects_everything_else_naming_the_field() {
        for bad in ["", "-1", "+1", "1.5", "1e3", " 1", "1 ", "abc", "１２"] {
            let e = Amount::parse("amount", bad).unwrap_err();
            assert_eq!(e.field, "amount", "{bad:?}");
        }
        let e = Amount::parse("amount", "9223372036854775808").unwrap_err();
        assert_eq!(e.to_string(), "amount: is too large");
    }

    #[test]
    fn positive_rejects_zero() {
        let e = Amount::parse_positive("amount", "0").unwrap_err();
        assert_eq!(e.to_string(), "amount: must be greater than zero");
    }

    proptest! {
        #[test]
        fn every_non_negative_i64_round_trips(n in 0i64..=i64::MAX) {
            prop_assert_eq!(Amount::parse("a", &n.to_string()).unwrap().minor(), n);
        }

        #[test]
        fn negative_numbers_are_rejected(n in i64::MIN..0i64) {
            prop_assert!(Amount::parse("a", &n.to_string()).is_err());
        }

        #[test]
        fn anything_with_a_non_digit_is_rejected(s in ".*[^0-9].*") {
            prop_assert!(Amount::parse("a", &s).is_err());
        }

        #[test]
        fn from_minor_keeps_only_non_negative(n in any::<i64>()) {
            prop_assert_eq!(Amount::from_minor(n).is_some(), n >= 0);
        }
    }
}

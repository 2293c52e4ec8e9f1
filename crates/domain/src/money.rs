//! Money: amounts are `i64` minor units (cents, kobo) inside and strings of
//! digits on the wire. One parser, strict: digits only, no sign, no decimal
//! point, no spaces, and never above [`Amount::MAX`], so no sum or
//! difference of amounts the service holds can leave `i64`.

use crate::InvalidInput;
use std::fmt;

/// A non-negative amount in minor units of some currency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(i64);

impl Amount {
    pub const ZERO: Amount = Amount(0);

    /// The largest amount the service handles anywhere: 10^15 minor units
    /// (10 trillion USD or NGN). `i64` holds more than 9,000 times as much,
    /// so sums of balances and amounts cannot overflow; every field has a
    /// lower bound of its own on top (see [`Amount::at_most`]).
    pub const MAX: Amount = Amount(1_000_000_000_000_000);

    /// Parses a minor-unit string such as `"300"` (3 USD), at most
    /// [`Amount::MAX`]. The error names `field` and the rule that was broken.
    pub fn parse(field: &str, value: &str) -> Result<Self, InvalidInput> {
        Self::parse_up_to(field, value, Amount::MAX, "the largest amount there is")
    }

    /// Parses like [`Amount::parse`] and also rejects zero.
    pub fn parse_positive(field: &str, value: &str) -> Result<Self, InvalidInput> {
        Self::parse_positive_up_to(field, value, Amount::MAX, "the largest amount there is")
    }

    /// Parses a minor-unit string of at most `max`, the largest `field` may
    /// carry (`what` says what that limit is); any longer string of digits,
    /// past `i64` too, is refused with that same limit.
    pub fn parse_up_to(field: &str, value: &str, max: Amount, what: &str) -> Result<Self, InvalidInput> {
        let rule = |r: &str| InvalidInput::new(field, r);
        if value.is_empty() {
            return Err(rule("must not be empty"));
        }
        if !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err(rule(
                "must be a whole number of minor units (digits only: no sign, decimal point or spaces)",
            ));
        }
        let too_large = || InvalidInput::new(field, format!("must be at most {max} ({what})"));
        let minor = value.parse::<i64>().map_err(|_| too_large())?;
        Self::from_minor(minor).ok_or_else(too_large)?.at_most(field, max, what)
    }

    /// Parses like [`Amount::parse_up_to`] and also rejects zero.
    pub fn parse_positive_up_to(field: &str, value: &str, max: Amount, what: &str) -> Result<Self, InvalidInput> {
        let amount = Self::parse_up_to(field, value, max, what)?;
        if amount == Amount::ZERO {
            return Err(InvalidInput::new(field, "must be greater than zero"));
        }
        Ok(amount)
    }

    /// Refuses an amount above `max`, the largest `field` may carry;
    /// `what` says what that limit is.
    pub fn at_most(self, field: &str, max: Amount, what: &str) -> Result<Self, InvalidInput> {
        if self > max {
            return Err(InvalidInput::new(field, format!("must be at most {max} ({what})")));
        }
        Ok(self)
    }

    /// An amount written in code; a negative one, or one above
    /// [`Amount::MAX`], fails to compile.
    pub const fn from_const(minor: i64) -> Self {
        assert!(
            minor >= 0 && minor <= Amount::MAX.0,
            "amounts are within 0..=Amount::MAX"
        );
        Amount(minor)
    }

    /// An amount from a stored value; `None` when negative or above
    /// [`Amount::MAX`].
    pub fn from_minor(minor: i64) -> Option<Self> {
        (0..=Amount::MAX.0).contains(&minor).then_some(Amount(minor))
    }

    /// The sum, or `None` above [`Amount::MAX`].
    pub fn checked_add(self, other: Amount) -> Option<Amount> {
        self.0.checked_add(other.0).and_then(Amount::from_minor)
    }

    /// The difference, or `None` below zero.
    pub fn checked_sub(self, other: Amount) -> Option<Amount> {
        self.0.checked_sub(other.0).and_then(Amount::from_minor)
    }

    pub const fn minor(self) -> i64 {
        self.0
    }

    /// An amount a card processor writes in major units (`25.375`, `12`,
    /// `0.5`): in minor units of two decimals, a fraction of a minor unit
    /// rounded up, so an authorization never holds less than the network
    /// settles. `None`: not digits with an optional decimal point (no
    /// sign, no exponent), or past [`Amount::MAX`].
    pub fn from_major_rounded_up(text: &str) -> Option<Amount> {
        /// More is no amount, just a long string.
        const MAX_DIGITS: usize = 40;
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) || text.len() > MAX_DIGITS {
            return None;
        }
        if text.contains('.') && fraction.is_empty() {
            return None;
        }
        let whole = whole.trim_start_matches('0');
        let whole: i64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
        let cents = fraction.bytes().chain(std::iter::repeat(b'0')).take(2);
        let cents = cents.fold(0i64, |n, b| n * 10 + i64::from(b - b'0'));
        let past = fraction.get(2..).unwrap_or_default();
        let round_up = i64::from(past.bytes().any(|b| b != b'0'));
        let minor = whole.checked_mul(100)?.checked_add(cents)?.checked_add(round_up)?;
        Amount::from_minor(minor)
    }

    /// In major units with two decimals (`12.34`), as a processor reads it.
    pub fn major_text(self) -> String {
        format!("{}.{:02}", self.0 / 100, self.0 % 100)
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
    fn major_units_become_minor_rounding_fractions_up() {
        let minor = |t: &str| Amount::from_major_rounded_up(t).map(Amount::minor);
        assert_eq!(minor("25.375"), Some(2538));
        assert_eq!(minor("25.37"), Some(2537));
        assert_eq!(minor("25.3700"), Some(2537));
        assert_eq!(minor("12"), Some(1200));
        assert_eq!(minor("0.5"), Some(50));
        assert_eq!(minor("0.001"), Some(1));
        assert_eq!(minor("0"), Some(0));
        assert_eq!(minor("10000000000000"), Some(1_000_000_000_000_000));
        for bad in [
            "",
            ".5",
            "5.",
            "-1",
            "+1",
            "1e3",
            "1,5",
            " 1",
            "10000000000000.01",
            "92233720368547758.07",
        ] {
            assert_eq!(minor(bad), None, "{bad:?}");
        }
        assert_eq!(minor(&"9".repeat(41)), None);
        assert_eq!(Amount::from_const(1234).major_text(), "12.34");
        assert_eq!(Amount::from_const(5).major_text(), "0.05");
        assert_eq!(Amount::MAX.major_text(), "10000000000000.00");
    }

    proptest! {
        #[test]
        fn major_text_reads_back(minor in 0..=Amount::MAX.minor()) {
            let amount = Amount::from_minor(minor).unwrap();
            prop_assert_eq!(Amount::from_major_rounded_up(&amount.major_text()), Some(amount));
        }

        #[test]
        fn a_fraction_of_a_minor_unit_costs_one_more(minor in 0..Amount::MAX.minor(), tail in 1u32..=9) {
            let amount = Amount::from_minor(minor).unwrap();
            let text = format!("{}{tail}", amount.major_text());
            prop_assert_eq!(Amount::from_major_rounded_up(&text).map(Amount::minor), Some(minor + 1));
        }
    }

    #[test]
    fn accepts_digits() {
        assert_eq!(Amount::parse("amount", "300").unwrap().minor(), 300);
        assert_eq!(Amount::parse("amount", "0").unwrap(), Amount::ZERO);
        assert_eq!(Amount::parse("amount", "007").unwrap().minor(), 7);
        assert_eq!(Amount::parse("amount", "1000000000000000").unwrap(), Amount::MAX);
    }

    #[test]
    fn rejects_everything_else_naming_the_field() {
        for bad in ["", "-1", "+1", "1.5", "1e3", " 1", "1 ", "abc", "１２"] {
            let e = Amount::parse("amount", bad).unwrap_err();
            assert_eq!(e.field, "amount", "{bad:?}");
        }
        for huge in [
            "1000000000000001",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "99999999999999999999",
            "0000000000000000000000000001000000000000001",
        ] {
            let e = Amount::parse("amount", huge).unwrap_err();
            assert_eq!(
                e.to_string(),
                "amount: must be at most 1000000000000000 (the largest amount there is)",
                "{huge}"
            );
            let e = Amount::parse_up_to("amount", huge, Amount::from_const(5), "five").unwrap_err();
            assert_eq!(e.to_string(), "amount: must be at most 5 (five)", "{huge}");
        }
    }

    #[test]
    fn at_most_names_the_field_the_limit_and_what_it_is() {
        let cap = Amount::from_const(500_000);
        assert_eq!(Amount::from_const(500_000).at_most("amount", cap, "x"), Ok(cap));
        let e = Amount::from_const(500_001)
            .at_most("amount", cap, "the most a card may hold")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "amount: must be at most 500000 (the most a card may hold)"
        );
    }

    #[test]
    fn positive_rejects_zero() {
        let e = Amount::parse_positive("amount", "0").unwrap_err();
        assert_eq!(e.to_string(), "amount: must be greater than zero");
    }

    proptest! {
        #[test]
        fn every_amount_up_to_the_maximum_round_trips(n in 0i64..=Amount::MAX.0) {
            prop_assert_eq!(Amount::parse("a", &n.to_string()).unwrap().minor(), n);
        }

        #[test]
        fn every_number_above_the_maximum_is_refused(n in (Amount::MAX.0 + 1)..=i64::MAX, extra in "[0-9]{0,30}") {
            let digits = format!("{n}{extra}");
            prop_assert!(Amount::parse("a", &digits).is_err());
        }

        #[test]
        fn sums_and_differences_stay_within_range_or_are_none(a in any::<i64>(), b in any::<i64>()) {
            if let (Some(x), Some(y)) = (Amount::from_minor(a), Amount::from_minor(b)) {
                let sum = i128::from(a) + i128::from(b);
                prop_assert_eq!(x.checked_add(y).map(|s| i128::from(s.minor())), (sum <= i128::from(Amount::MAX.0)).then_some(sum));
                prop_assert_eq!(x.checked_sub(y).map(|d| d.minor()), (a >= b).then_some(a - b));
            }
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
        fn from_minor_keeps_only_the_range(n in any::<i64>()) {
            prop_assert_eq!(Amount::from_minor(n).is_some(), (0..=Amount::MAX.0).contains(&n));
        }
    }
}

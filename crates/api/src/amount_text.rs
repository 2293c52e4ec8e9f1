//! Amounts as integrations send them: a digit string (`"2500"`) or a JSON
//! integer (`2500`, or `2500.0` as JSON Schema counts integers), the same
//! minor units. Either is turned into text here and parsed by the domain,
//! which names the field in every refusal: a negative number or a
//! fraction never reads as digits only.

use serde::de::Error;
use serde::{Deserialize, Deserializer};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};

/// An amount field's text, for the domain's parse.
#[derive(Debug, Clone)]
pub struct AmountText(pub String);

impl AmountText {
    pub fn into_text(amount: Option<AmountText>) -> Option<String> {
        amount.map(|a| a.0)
    }
}

impl<'de> Deserialize<'de> for AmountText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // The value as written: a float made of `4.99999999999999999`
        // would be 5.
        let raw = crate::whole_number::raw(deserializer)?;
        let text = raw.get();
        if text.starts_with('"') {
            return serde_json::from_str(text).map(AmountText).map_err(D::Error::custom);
        }
        if !text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            let rule = format!("invalid type: {text}, expected minor units, as a digit string or a whole number");
            return Err(D::Error::custom(rule));
        }
        // A whole number is its digits; any other number keeps its point,
        // sign or exponent, which the domain's parse refuses naming the field.
        Ok(AmountText(match crate::whole_number::exact(text) {
            Some(n) => n.to_string(),
            None => text.to_string(),
        }))
    }
}

impl utoipa::PartialSchema for AmountText {
    fn schema() -> RefOr<Schema> {
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[0-9]+$")))
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)))
            .description(Some(
                "Minor units (cents or kobo): a digit string or a whole number, meaning the same",
            ))
            .into()
    }
}

impl utoipa::ToSchema for AmountText {}

#[cfg(test)]
mod tests {
    use super::AmountText;
    use domain::Amount;

    fn parsed(json: &str) -> Result<Amount, String> {
        let text: AmountText = serde_json::from_str(json).map_err(|e| e.to_string())?;
        Amount::parse_up_to("amount", &text.0, Amount::MAX, "the most").map_err(|e| e.to_string())
    }

    #[test]
    fn a_digit_string_and_an_integer_are_the_same_amount() {
        assert_eq!(parsed("\"2500\""), parsed("2500"));
        assert_eq!(parsed("2500.0"), parsed("2500"));
        assert_eq!(parsed("2500.000"), parsed("2500"));
        assert_eq!(parsed("2500").unwrap().minor(), 2500);
    }

    #[test]
    fn negatives_fractions_and_huge_numbers_are_refused_naming_the_field() {
        for bad in [
            "-5",
            "-5.0",
            "2.5",
            "4.99999999999999999",
            "2.5e3",
            "1e300",
            "1000000000000001.0",
            "100000000000000000000000000000",
            "\"2 500\"",
            "\"-1\"",
        ] {
            let e = parsed(bad).unwrap_err();
            assert!(e.starts_with("amount:"), "{bad}: {e}");
        }
        assert!(parsed("true").is_err());
        assert!(parsed("null").is_err());
    }
}

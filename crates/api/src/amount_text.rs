//! Amounts as integrations send them: a digit string (`"2500"`) or a JSON
//! integer (`2500`, or `2500.0` as JSON Schema counts integers), the same
//! minor units. Either is turned into text here and parsed by the domain,
//! which names the field in every refusal: a negative number or a
//! fraction never reads as digits only.

use serde::{Deserialize, Deserializer};
use std::fmt;
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
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = AmountText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("minor units, as a digit string or a whole number")
            }
            fn visit_str<E>(self, v: &str) -> Result<AmountText, E> {
                Ok(AmountText(v.to_owned()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<AmountText, E> {
                Ok(AmountText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<AmountText, E> {
                Ok(AmountText(v.to_string()))
            }
            // A whole float is its integer; `{:?}` keeps any other's point
            // or exponent (`2.5`, `1e300`), which the domain refuses.
            fn visit_f64<E>(self, v: f64) -> Result<AmountText, E> {
                Ok(AmountText(match crate::whole_number::exact(v) {
                    Some(n) => n.to_string(),
                    None => format!("{v:?}"),
                }))
            }
        }
        deserializer.deserialize_any(Text)
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
        assert_eq!(parsed("2.5e3"), parsed("2500"));
        assert_eq!(parsed("2500").unwrap().minor(), 2500);
    }

    #[test]
    fn negatives_fractions_and_huge_numbers_are_refused_naming_the_field() {
        for bad in [
            "-5",
            "-5.0",
            "2.5",
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

//! The currencies the service holds money in.

use crate::InvalidInput;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Currency {
    #[serde(rename = "USD")]
    Usd,
    #[serde(rename = "NGN")]
    Ngn,
}

impl Currency {
    pub const ALL: [Currency; 2] = [Currency::Usd, Currency::Ngn];

    pub fn code(self) -> &'static str {
        match self {
            Currency::Usd => "USD",
            Currency::Ngn => "NGN",
        }
    }

    /// Parses an ISO code as sent on the wire (`USD`, `NGN`), case-sensitive.
    pub fn parse(field: &str, value: &str) -> Result<Self, InvalidInput> {
        Currency::ALL
            .into_iter()
            .find(|c| c.code() == value)
            .ok_or_else(|| InvalidInput::new(field, "must be one of USD, NGN"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_codes_and_rejects_others_naming_the_field() {
        assert_eq!(Currency::parse("currency", "USD"), Ok(Currency::Usd));
        assert_eq!(Currency::parse("currency", "NGN"), Ok(Currency::Ngn));
        let e = Currency::parse("currency", "usd").unwrap_err();
        assert_eq!(e.to_string(), "currency: must be one of USD, NGN");
        assert!(Currency::parse("currency", "EUR").is_err());
    }
}

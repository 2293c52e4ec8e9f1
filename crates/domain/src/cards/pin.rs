//! Card PINs: four digits once decrypted; when the client sends none, the
//! digits at positions 7 to 10 of the card number.

use crate::{InvalidInput, Secret};

/// A checked 4-digit PIN; never printed.
#[derive(Debug, Clone)]
pub struct Pin(Secret<String>);

impl Pin {
    /// Checks a decrypted PIN; the error never echoes it.
    pub fn parse(field: &str, plain: &Secret<String>) -> Result<Self, InvalidInput> {
        let p = plain.expose();
        if p.len() == 4 && p.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Pin(plain.clone()))
        } else {
            Err(InvalidInput::new(field, "must decrypt to a 4-digit PIN"))
        }
    }

    /// The default PIN of a card: digits 7 to 10 (1-based) of its number.
    pub fn default_for(pan: &Secret<String>) -> Self {
        Pin(Secret::new(pan.expose()[6..10].to_string()))
    }

    pub fn expose(&self) -> &str {
        self.0.expose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_digits_only() {
        assert!(Pin::parse("pin", &Secret::new("0123".into())).is_ok());
        for bad in ["123", "12345", "12a4", ""] {
            let e = Pin::parse("pin", &Secret::new(bad.into())).unwrap_err();
            assert!(!e.to_string().contains(bad) || bad.is_empty());
        }
    }

    #[test]
    fn default_pin_is_digits_7_to_10() {
        let pan = Secret::new("5399830123456789".to_string());
        assert_eq!(Pin::default_for(&pan).expose(), "0123");
        assert_eq!(format!("{:?}", Pin::default_for(&pan)), "Pin(***)");
    }
}

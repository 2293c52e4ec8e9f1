//! Card numbers: Luhn (ISO/IEC 7812) check digits and the BIN rule. Small
//! enough to keep here rather than pull a crate for one checksum.

use crate::InvalidInput;

/// The Luhn check digit that completes `body` (digits only).
pub fn luhn_check_digit(body: &str) -> u8 {
    let sum: u32 = body
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 0 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

/// Whether `pan` is all digits and ends in its Luhn check digit.
pub fn is_luhn_valid(pan: &str) -> bool {
    if pan.len() < 2 || !pan.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let (body, check) = pan.split_at(pan.len() - 1);
    luhn_check_digit(body) == check.as_bytes()[0] - b'0'
}

/// Checks a configured BIN: 6 digits in a Mastercard range (51-55 or
/// 2221-2720), or 7 to 8 with `allow_long`. The contract's default PIN is
/// digits 7 to 10 of the card number, so each digit past the sixth is a
/// PIN digit everyone knows: an 8-digit BIN leaves 100 default PINs.
pub fn check_bin(field: &str, bin: &str, allow_long: bool) -> Result<(), InvalidInput> {
    let mastercard = (6..=8).contains(&bin.len()) && bin.bytes().all(|b| b.is_ascii_digit()) && {
        let two: u32 = bin[..2].parse().unwrap_or(0);
        let four: u32 = bin[..4].parse().unwrap_or(0);
        (51..=55).contains(&two) || (2221..=2720).contains(&four)
    };
    match (mastercard, bin.len(), allow_long) {
        (true, 6, _) | (true, _, true) => Ok(()),
        (true, _, false) => Err(InvalidInput::new(
            field,
            "must be 6 digits: a 7- or 8-digit BIN puts its last digits in every default PIN (digits 7 to 10 \
             of the card number); allow it with --allow-long-bin",
        )),
        (false, _, _) => Err(InvalidInput::new(
            field,
            "must be 6 digits in a Mastercard range (51-55 or 2221-2720), or 7 or 8 with --allow-long-bin",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_numbers_check() {
        // Published test numbers of the networks.
        assert!(is_luhn_valid("5555555555554444"));
        assert!(is_luhn_valid("4111111111111111"));
        assert!(!is_luhn_valid("5555555555554445"));
        assert!(!is_luhn_valid("555555555555444a"));
        assert_eq!(luhn_check_digit("555555555555444"), 4);
    }

    #[test]
    fn bins_must_be_mastercard_and_longer_ones_are_allowed_only_when_asked() {
        assert!(check_bin("card_bin", "539983", false).is_ok());
        assert!(check_bin("card_bin", "22230012", true).is_ok());
        let long = check_bin("card_bin", "22230012", false).unwrap_err();
        assert!(long.rule.contains("default PIN"), "{long}");
        let visa = check_bin("card_bin", "411111", false).unwrap_err();
        assert!(
            !visa.rule.contains("default PIN"),
            "only a long Mastercard BIN is told of PINs: {visa}"
        );
        assert!(check_bin("card_bin", "5399831", false).is_err());
        for allow_long in [false, true] {
            assert!(check_bin("card_bin", "411111", allow_long).is_err());
            assert!(check_bin("card_bin", "5399", allow_long).is_err());
            assert!(check_bin("card_bin", "539983123", allow_long).is_err());
        }
    }

    proptest! {
        #[test]
        fn completing_a_body_makes_it_valid_and_one_changed_digit_breaks_it(
            body in "[0-9]{15}", pos in 0usize..15, delta in 1u8..10
        ) {
            let pan = format!("{body}{}", luhn_check_digit(&body));
            prop_assert!(is_luhn_valid(&pan));
            let mut bytes = pan.into_bytes();
            bytes[pos] = b'0' + (bytes[pos] - b'0' + delta) % 10;
            prop_assert!(!is_luhn_valid(&String::from_utf8(bytes).unwrap()));
        }
    }
}

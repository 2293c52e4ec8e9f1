//! Free text a person or a network writes (names of merchants, address
//! lines, catalogue descriptions): bounded, and free of the characters
//! that make no sense in it and mislead where it is shown.

use crate::InvalidInput;

/// Checks that `value` has 1 to `max` characters, not all of them
/// spaces, and none of them a control character (NUL, escape, line
/// breaks...), a bidirectional control (which would show the text reversed
/// in a dashboard or a statement) or an invisible one (zero-width space,
/// byte-order mark, line and paragraph separators), with which two
/// references that look alike differ, or one looks empty.
pub fn plain(field: &str, value: &str, max: usize) -> Result<(), InvalidInput> {
    let length = value.chars().count();
    if value.trim().is_empty() || length > max || value.chars().any(misleading) {
        let rule = format!("must be 1 to {max} characters, none of them control characters");
        return Err(InvalidInput::new(field, rule));
    }
    Ok(())
}

fn misleading(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{200B}'
                | '\u{FEFF}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bounds_and_characters() {
        assert!(plain("f", "12 Marina Road, Lagos", 200).is_ok());
        assert!(plain("f", "Ọ̀sun ẹ́kọ́ 日本 🕴", 200).is_ok(), "any script");
        for bad in [
            "",
            "   ",
            "a\0b",
            "a\u{1b}[31m",
            "line\nbreak",
            "evil\u{202E}txt",
            "x\u{2066}",
            "a\u{200F}b",
            "a\u{061C}b",
            "\u{200B}",
            "\u{FEFF}",
            "a\u{2028}b",
        ] {
            assert_eq!(plain("f", bad, 200).unwrap_err().field, "f", "{bad:?}");
        }
        assert!(plain("f", &"é".repeat(200), 200).is_ok(), "characters, not bytes");
        assert!(plain("f", &"a".repeat(201), 200).is_err());
    }

    proptest! {
        #[test]
        fn what_passes_is_bounded_and_has_no_control_character(value in ".{0,300}", max in 1usize..250) {
            if plain("f", &value, max).is_ok() {
                prop_assert!(value.chars().count() <= max);
                prop_assert!(!value.chars().any(char::is_control));
            }
        }
    }
}

//! Free text a person or a network writes (names of merchants, address
//! lines, catalogue descriptions): bounded, and free of the characters
//! that make no sense in it and mislead where it is shown.

use crate::InvalidInput;

/// Checks that `value` has 1 to `max` characters, not all of them
/// spaces, and none of them a control character (NUL, escape, line
/// breaks...) or one of [`INVISIBLE`]: bidirectional controls (which would
/// show the text reversed in a dashboard or a statement) and characters
/// that show nothing, with which two references that look alike differ,
/// or one looks empty.
pub fn plain(field: &str, value: &str, max: usize) -> Result<(), InvalidInput> {
    let length = value.chars().count();
    if value.trim().is_empty() || length > max || value.chars().any(misleading) {
        let rule =
            format!("must be 1 to {max} characters, none of them control, invisible or bidirectional characters");
        return Err(InvalidInput::new(field, rule));
    }
    Ok(())
}

/// The characters free text may not hold besides control characters, as
/// inclusive ranges: Unicode's default-ignorable code points of the Basic
/// Multilingual Plane (soft hyphen, zero-width characters and joiners,
/// bidirectional controls, line and paragraph separators, word joiner and
/// invisible operators, fillers, variation selectors, the byte-order
/// mark), and the Braille pattern blank, which shows as a space but is
/// none. (The OpenAPI document states the same set as a pattern, which
/// ECMA-262 can only write for this plane.)
pub const INVISIBLE: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{17B4}', '\u{17B5}'),
    ('\u{180B}', '\u{180F}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{2028}', '\u{202E}'),
    ('\u{2060}', '\u{206F}'),
    ('\u{2800}', '\u{2800}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF0}', '\u{FFF8}'),
];

/// Free text a network sent, made fit to keep (a merchant's name): each
/// control, invisible or bidirectional character a space, runs of spaces
/// one, trimmed, at most `max` characters; `None` when nothing is left.
/// A network's data is taken as it comes, never refused for its form.
pub fn printable(value: &str, max: usize) -> Option<String> {
    let spaced: String = value.chars().map(|c| if misleading(c) { ' ' } else { c }).collect();
    let text: String = spaced
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(max)
        .collect();
    let text = text.trim_end().to_string();
    (!text.is_empty()).then_some(text)
}

fn misleading(c: char) -> bool {
    c.is_control() || INVISIBLE.iter().any(|(low, high)| (*low..=*high).contains(&c))
}

/// The longest client reference (`transaction_reference`) kept.
pub const MAX_REFERENCE_LEN: usize = 100;

/// Checks a client's `transaction_reference`: plain text of at most
/// [`MAX_REFERENCE_LEN`] characters, on every endpoint that takes one.
pub fn reference(value: &str) -> Result<(), InvalidInput> {
    plain("transaction_reference", value, MAX_REFERENCE_LEN)
}

/// The form of an operator's reference that decides whether two are the
/// same: without outer spaces, composed (NFC: `é` typed as one character
/// or as `e` and an accent), and in lower case, so that `WIRE-9 ` and
/// `wire-9` name one bank transfer.
pub fn reference_key(value: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    value.trim().nfc().collect::<String>().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_text_is_made_plain_never_refused() {
        assert_eq!(
            printable("SHOP\tLAGOS\u{200B} NG ", 200).as_deref(),
            Some("SHOP LAGOS NG")
        );
        assert_eq!(printable("\u{0}\u{202E} ", 200), None);
        assert_eq!(printable(&"A".repeat(300), 200).map(|t| t.chars().count()), Some(200));
        let kept = printable("ÉPICERIE  ☕ ABUJA", 200).unwrap();
        assert!(plain("merchant", &kept, 200).is_ok(), "{kept}");
    }
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
            "a\u{200C}b",
            "a\u{200D}b",
            "a\u{2060}b",
            "a\u{00AD}b",
            "\u{2800}",
            "\u{115F}",
            "a\u{FE0F}",
        ] {
            assert_eq!(plain("f", bad, 200).unwrap_err().field, "f", "{bad:?}");
        }
        assert!(plain("f", &"é".repeat(200), 200).is_ok(), "characters, not bytes");
        assert!(plain("f", &"a".repeat(201), 200).is_err());
    }

    #[test]
    fn references_that_look_alike_have_one_key() {
        let key = reference_key("wire-9");
        for alike in ["wire-9 ", " WIRE-9", "Wire-9\t"] {
            assert_eq!(reference_key(alike), key, "{alike:?}");
        }
        assert_eq!(reference_key("caf\u{e9}"), reference_key("cafe\u{301}"));
        assert_ne!(reference_key("wire-9"), reference_key("wire-90"));
    }

    proptest! {
        #[test]
        fn a_key_is_its_own_key(value in "\\PC{0,40}") {
            let key = reference_key(&value);
            prop_assert_eq!(reference_key(&key), key);
        }

        #[test]
        fn what_passes_is_bounded_and_has_no_control_character(value in ".{0,300}", max in 1usize..250) {
            if plain("f", &value, max).is_ok() {
                prop_assert!(value.chars().count() <= max);
                prop_assert!(!value.chars().any(char::is_control));
            }
        }
    }
}

//! Identity verification outcomes, as a KYC provider reports them.

/// Why verification refused an identity; each is a 400 of the contract
/// except `Blacklisted` (451).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KycFailure {
    /// The BVN or ID could not be verified.
    NotVerifiable,
    /// The BVN's profile is blacklisted.
    BlacklistedProfile,
    /// The ID number does not match the uploaded ID.
    IdMismatch,
    /// The cardholder's name does not match the name on the BVN.
    NameMismatch,
    /// The name on the ID does not match the name on the BVN.
    IdNameMismatch,
    /// The OTP to the BVN's phone could not be sent.
    OtpNotSent,
    /// The phone is tied to several BVNs (fraud suspected).
    PhoneOnSeveralBvns,
    /// The individual is blacklisted for fraud.
    Blacklisted,
}

impl KycFailure {
    pub fn code(self) -> &'static str {
        match self {
            KycFailure::NotVerifiable => "identity_not_verifiable",
            KycFailure::BlacklistedProfile => "bvn_profile_blacklisted",
            KycFailure::IdMismatch => "id_number_mismatch",
            KycFailure::NameMismatch => "name_mismatch",
            KycFailure::IdNameMismatch => "id_name_mismatch",
            KycFailure::OtpNotSent => "otp_not_sent",
            KycFailure::PhoneOnSeveralBvns => "phone_on_several_bvns",
            KycFailure::Blacklisted => "blacklisted",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            KycFailure::NotVerifiable => "identity: the BVN or ID could not be verified",
            KycFailure::BlacklistedProfile => "identity.bvn: the BVN profile is blacklisted",
            KycFailure::IdMismatch => "identity.id_no: the ID number does not match the uploaded ID",
            KycFailure::NameMismatch => "first_name: the cardholder's name does not match the name on the BVN",
            KycFailure::IdNameMismatch => "identity: the name on the ID does not match the name on the BVN",
            KycFailure::OtpNotSent => "phone: the OTP could not be sent to the phone on the BVN",
            KycFailure::PhoneOnSeveralBvns => "phone: the phone number is tied to several BVNs (fraud suspected)",
            KycFailure::Blacklisted => "identity: the individual is blacklisted for fraud",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KycOutcome {
    Verified,
    /// The automated check could not decide, for the verifier's reason; a
    /// person reviews the case.
    ManualReview(&'static str),
    Failed(KycFailure),
}

/// How the name a cardholder registered with compares with the name an ID
/// authority holds for the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    /// First and last name both appear, in any order (authorities often
    /// put the surname first).
    Both,
    /// Only one of them appears.
    One,
    Neither,
}

/// Compares `first` and `last` with the authority's `full_name`: case,
/// punctuation and order do not matter; each registered name must appear
/// whole (all of its words).
pub fn match_name(first: &str, last: &str, full_name: &str) -> NameMatch {
    fn words(name: &str) -> Vec<String> {
        name.split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }
    let held = words(full_name);
    let appears = |name: &str| {
        let name = words(name);
        !name.is_empty() && name.iter().all(|w| held.contains(w))
    };
    match (appears(first), appears(last)) {
        (true, true) => NameMatch::Both,
        (false, false) => NameMatch::Neither,
        _ => NameMatch::One,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_match_whole_in_any_order() {
        assert_eq!(match_name("Ada", "Obi", "OBI, ADA CHIOMA"), NameMatch::Both);
        assert_eq!(match_name("Mary-Jane", "Obi", "Obi Mary Jane"), NameMatch::Both);
        assert_eq!(match_name("Ada", "Eze", "OBI ADA"), NameMatch::One);
        assert_eq!(match_name("Ada", "Obi", "Adaeze Obinna"), NameMatch::Neither);
        assert_eq!(match_name("Ada", "Obi", ""), NameMatch::Neither);
    }

    proptest! {
        #[test]
        fn a_name_matches_itself_in_either_order(first in "[A-Za-z]{3,12}", last in "[A-Za-z]{3,12}") {
            prop_assert_eq!(match_name(&first, &last, &format!("{last} {first}")), NameMatch::Both);
            prop_assert_eq!(match_name(&first, &last, &format!("{} {}", first.to_uppercase(), last)), NameMatch::Both);
        }

        #[test]
        fn a_name_missing_from_the_record_never_matches_both(first in "[a-z]{3,12}", last in "[a-z]{3,12}", other in "[0-9 ]{0,8}") {
            prop_assume!(first != last);
            prop_assert_ne!(match_name(&first, &last, &format!("{first} {other}")), NameMatch::Both);
        }
    }
}

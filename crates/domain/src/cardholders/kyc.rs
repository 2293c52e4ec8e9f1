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

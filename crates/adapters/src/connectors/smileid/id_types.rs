//! The contract's identity documents as Smile ID's ID types. Smile ID
//! verifies a document by its number against the issuing authority; the
//! documents it has no such check for go to manual review instead.

use domain::cardholders::identity::IdType;

/// Smile ID's `id_type` for the document, or why it has none.
pub fn smile_id_type(id_type: IdType) -> Result<&'static str, &'static str> {
    match id_type {
        IdType::NigerianBvnVerification => Ok("BVN"),
        IdType::NigerianNin => Ok("NIN_V2"),
        IdType::NigerianPvc => Ok("VOTER_ID"),
        IdType::NigerianDriversLicense => Ok("DRIVERS_LICENSE"),
        IdType::GhanianSsnit => Ok("SSNIT"),
        // Every voter's card issued since 30 June 2020 (the register
        // Ghana made anew that year); `VOTER_ID` is the card before it.
        IdType::GhanianVotersId => Ok("NEW_VOTER_ID"),
        IdType::GhanianDriversLicense => Ok("DRIVERS_LICENSE"),
        IdType::GhanianInternationalPassport => Ok("PASSPORT"),
        IdType::GhanianGhanaCard => Ok("GHANA_CARD"),
        IdType::UgandaNationalId => Ok("NATIONAL_ID_NO_PHOTO"),
        IdType::NigerianInternationalPassport => Err(NO_LOOKUP_NG_PASSPORT),
        IdType::UgandaVotersId | IdType::UgandaPassport | IdType::UgandaDriversLicense => Err(NO_LOOKUP_UGANDA),
        IdType::KenyanVotersId => Err(NO_LOOKUP_KENYA),
    }
}

const NO_LOOKUP_NG_PASSPORT: &str =
    "Smile ID cannot check a Nigerian passport by its number: a person reviews the uploaded ID";
const NO_LOOKUP_UGANDA: &str = "Smile ID checks Ugandan national IDs only: a person reviews this document";
const NO_LOOKUP_KENYA: &str =
    "Smile ID cannot check a Kenyan voter's card by its number: a person reviews this document";

#[cfg(test)]
mod tests {
    use super::*;
    use domain::cardholders::Country;

    #[test]
    fn every_document_of_every_country_has_an_id_type_or_a_reason() {
        for country in [Country::Nigeria, Country::Ghana, Country::Uganda, Country::Kenya] {
            for name in IdType::NAMES {
                if let Ok(id_type) = IdType::parse(name, country) {
                    match smile_id_type(id_type) {
                        Ok(smile) => assert!(
                            smile
                                .bytes()
                                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                        ),
                        Err(reason) => assert!(reason.contains("a person reviews")),
                    }
                }
            }
        }
        assert_eq!(smile_id_type(IdType::NigerianBvnVerification), Ok("BVN"));
        assert_eq!(smile_id_type(IdType::GhanianVotersId), Ok("NEW_VOTER_ID"));
        assert_eq!(smile_id_type(IdType::NigerianPvc), Ok("VOTER_ID"));
        assert!(smile_id_type(IdType::KenyanVotersId).is_err());
    }
}

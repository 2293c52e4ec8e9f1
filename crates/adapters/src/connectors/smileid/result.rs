//! Smile ID's verdict (`ResultCode` and `Actions`) as the contract's
//! outcome. Codes that say the provider could not decide now are
//! "unavailable" (retried, or 503 to a synchronous registration); any
//! code this connector does not know is treated the same way, never as a
//! pass.

use domain::cardholders::Registration;
use domain::cardholders::kyc::{KycFailure, KycOutcome, NameMatch, match_name};
use ports::kyc::KycUnavailable;
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
pub struct Verdict {
    #[serde(rename = "ResultCode")]
    pub result_code: Option<String>,
    #[serde(rename = "Actions", default)]
    pub actions: Actions,
    /// The name the ID authority holds: compared, never kept.
    #[serde(rename = "FullName")]
    pub full_name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Actions {
    #[serde(rename = "Verify_ID_Number")]
    pub verify_id_number: Option<String>,
    #[serde(rename = "Names")]
    pub names: Option<String>,
    #[serde(rename = "DOB")]
    pub dob: Option<String>,
}

/// What Smile ID answers for a field the authority does not return.
const NOT_AVAILABLE: &str = "Not Available";

pub const NAME_IN_PART: &str =
    "Smile ID matched the cardholder's name to the ID authority's only in part: a person compares them";
pub const NO_NAME: &str =
    "Smile ID validated the ID number but returned no name to compare with the cardholder's: a person compares them";
pub const DOB_DIFFERS: &str = "the date of birth differs from the ID authority's record: a person compares them";

impl Verdict {
    /// The outcome for `registration`. Enhanced KYC answers the
    /// authority's record (`FullName`) and leaves the comparison to us;
    /// Basic KYC's `Names` and `DOB` actions are read too.
    pub fn outcome(&self, registration: &Registration) -> Result<KycOutcome, KycUnavailable> {
        let code = self.result_code.as_deref().unwrap_or_default();
        let actions = &self.actions;
        // The cardholder's own name (the card's, the processor customer's),
        // never the identity object's, which a caller could set apart.
        let names = match self.full_name.as_deref() {
            Some(name) if !name.is_empty() && name != NOT_AVAILABLE => {
                Some(match_name(&registration.first_name, &registration.last_name, name))
            }
            _ => None,
        };
        match code {
            "1012" if actions.verify_id_number.as_deref() != Some("Verified") => {
                Ok(KycOutcome::Failed(KycFailure::NotVerifiable))
            }
            "1012" => Ok(match (names, actions.names.as_deref(), actions.dob.as_deref()) {
                (Some(NameMatch::Neither), _, _) | (_, Some("No Match"), _) => {
                    KycOutcome::Failed(KycFailure::NameMismatch)
                }
                (Some(NameMatch::One), _, _) | (_, Some("Partial Match"), _) => KycOutcome::ManualReview(NAME_IN_PART),
                (_, _, Some("No Match")) => KycOutcome::ManualReview(DOB_DIFFERS),
                (Some(NameMatch::Both), _, _) | (_, Some("Exact Match" | "Transposed"), _) => KycOutcome::Verified,
                // A valid number, but no name to compare: never a pass.
                _ => KycOutcome::ManualReview(NO_NAME),
            }),
            "1013" | "1014" => Ok(KycOutcome::Failed(KycFailure::NotVerifiable)),
            "1015" => Err(KycUnavailable("Smile ID: the ID authority is unavailable".into())),
            "1016" => Err(KycUnavailable(
                "Smile ID: this ID type is not activated for the partner account".into(),
            )),
            other => Err(KycUnavailable(format!(
                "Smile ID answered a result code this connector does not know ({})",
                other
                    .chars()
                    .filter(char::is_ascii_alphanumeric)
                    .take(8)
                    .collect::<String>()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(code: &str, verify: &str, names: Option<&str>, dob: Option<&str>) -> Verdict {
        Verdict {
            full_name: None,
            result_code: Some(code.into()),
            actions: Actions {
                verify_id_number: Some(verify.into()),
                names: names.map(Into::into),
                dob: dob.map(Into::into),
            },
        }
    }

    fn registration() -> Registration {
        domain::cardholders::fixtures::nigerian()
            .check(&domain::cardholders::fixtures::regions())
            .unwrap()
    }

    #[test]
    fn the_authoritys_name_is_compared_with_the_registered_one() {
        let r = registration();
        let named = |name: &str| {
            Verdict {
                full_name: Some(name.into()),
                ..verdict("1012", "Verified", None, None)
            }
            .outcome(&r)
            .unwrap()
        };
        let (first, last) = (r.first_name.to_uppercase(), r.last_name.to_uppercase());
        assert_eq!(named(&format!("{last} {first} CHIOMA")), KycOutcome::Verified);
        assert_eq!(
            named(&format!("{last} SOMEONE")),
            KycOutcome::ManualReview(NAME_IN_PART)
        );
        assert_eq!(named("SOMEONE ELSE"), KycOutcome::Failed(KycFailure::NameMismatch));
        assert_eq!(named("Not Available"), KycOutcome::ManualReview(NO_NAME));
        assert_eq!(named(""), KycOutcome::ManualReview(NO_NAME));
    }

    #[test]
    fn each_code_and_match_is_an_outcome() {
        let r = registration();
        let ok = |v: Verdict| v.outcome(&r).unwrap();
        assert_eq!(
            ok(verdict("1012", "Verified", Some("Exact Match"), Some("Exact Match"))),
            KycOutcome::Verified
        );
        assert_eq!(
            ok(verdict("1012", "Verified", Some("Transposed"), None)),
            KycOutcome::Verified
        );
        assert_eq!(
            ok(verdict("1012", "Verified", Some("No Match"), None)),
            KycOutcome::Failed(KycFailure::NameMismatch)
        );
        assert_eq!(
            ok(verdict("1012", "Verified", Some("Partial Match"), None)),
            KycOutcome::ManualReview(NAME_IN_PART)
        );
        assert_eq!(
            ok(verdict("1012", "Verified", None, Some("No Match"))),
            KycOutcome::ManualReview(DOB_DIFFERS)
        );
        assert_eq!(
            ok(verdict("1012", "Verified", None, None)),
            KycOutcome::ManualReview(NO_NAME)
        );
        assert_eq!(
            ok(verdict("1012", "Not Verified", None, None)),
            KycOutcome::Failed(KycFailure::NotVerifiable)
        );
        assert_eq!(
            ok(verdict("1013", "Not Verified", None, None)),
            KycOutcome::Failed(KycFailure::NotVerifiable)
        );
        assert_eq!(
            ok(verdict("1014", "Not Done", None, None)),
            KycOutcome::Failed(KycFailure::NotVerifiable)
        );
        for unsure in ["1015", "1016", "0000", "", "1012\u{0}"] {
            assert!(
                verdict(unsure, "Verified", None, None).outcome(&r).is_err(),
                "{unsure:?}"
            );
        }
        assert!(Verdict::default().outcome(&r).is_err());
    }
}

//! The identity object of a registration: its shape depends on the country.

use super::Country;
use crate::required;
use crate::{InvalidInput, http_url};
use chrono::NaiveDate;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdType {
    NigerianBvnVerification,
    NigerianNin,
    NigerianInternationalPassport,
    NigerianPvc,
    NigerianDriversLicense,
    GhanianSsnit,
    GhanianVotersId,
    GhanianDriversLicense,
    GhanianInternationalPassport,
    GhanianGhanaCard,
    UgandaVotersId,
    UgandaPassport,
    UgandaNationalId,
    UgandaDriversLicense,
    KenyanVotersId,
}

impl IdType {
    const ALL: [(IdType, &'static str, Country); 15] = [
        (
            IdType::NigerianBvnVerification,
            "NIGERIAN_BVN_VERIFICATION",
            Country::Nigeria,
        ),
        (IdType::NigerianNin, "NIGERIAN_NIN", Country::Nigeria),
        (
            IdType::NigerianInternationalPassport,
            "NIGERIAN_INTERNATIONAL_PASSPORT",
            Country::Nigeria,
        ),
        (IdType::NigerianPvc, "NIGERIAN_PVC", Country::Nigeria),
        (
            IdType::NigerianDriversLicense,
            "NIGERIAN_DRIVERS_LICENSE",
            Country::Nigeria,
        ),
        (IdType::GhanianSsnit, "GHANIAN_SSNIT", Country::Ghana),
        (IdType::GhanianVotersId, "GHANIAN_VOTERS_ID", Country::Ghana),
        (IdType::GhanianDriversLicense, "GHANIAN_DRIVERS_LICENSE", Country::Ghana),
        (
            IdType::GhanianInternationalPassport,
            "GHANIAN_INTERNATIONAL_PASSPORT",
            Country::Ghana,
        ),
        (IdType::GhanianGhanaCard, "GHANIAN_GHANA_CARD", Country::Ghana),
        (IdType::UgandaVotersId, "UGANDA_VOTERS_ID", Country::Uganda),
        (IdType::UgandaPassport, "UGANDA_PASSPORT", Country::Uganda),
        (IdType::UgandaNationalId, "UGANDA_NATIONAL_ID", Country::Uganda),
        (IdType::UgandaDriversLicense, "UGANDA_DRIVERS_LICENSE", Country::Uganda),
        (IdType::KenyanVotersId, "KENYAN_VOTERS_ID", Country::Kenya),
    ];

    /// The wire name of every identity document, of every country.
    pub const NAMES: [&'static str; 15] = {
        let mut names = [""; 15];
        let mut i = 0;
        while i < names.len() {
            names[i] = Self::ALL[i].1;
            i += 1;
        }
        names
    };

    pub fn as_str(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(t, _, _)| *t == self)
            .map(|(_, s, _)| *s)
            .unwrap_or_default()
    }

    /// The id type for `country`, or an error listing the ones it allows.
    pub fn parse(value: &str, country: Country) -> Result<IdType, InvalidInput> {
        let allowed: Vec<&str> = Self::ALL
            .iter()
            .filter(|(_, _, c)| *c == country)
            .map(|(_, s, _)| *s)
            .collect();
        Self::ALL
            .iter()
            .find(|(_, s, c)| *s == value && *c == country)
            .map(|(t, _, _)| *t)
            .ok_or_else(|| {
                InvalidInput::new(
                    "identity.id_type",
                    format!("must be one of {} for {}", allowed.join(", "), country.name()),
                )
            })
    }
}

/// The identity fields as they arrive; which are required depends on the
/// country and id type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdentityInput {
    pub id_type: Option<String>,
    pub bvn: Option<String>,
    pub id_no: Option<String>,
    pub id_image: Option<String>,
    pub selfie_image: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub middle_name: Option<String>,
    pub date_of_birth: Option<String>,
    pub gender: Option<String>,
}

/// A checked identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub id_type: IdType,
    pub bvn: Option<String>,
    pub id_no: Option<String>,
    pub id_image: Option<String>,
    pub selfie_image: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub middle_name: Option<String>,
    pub date_of_birth: Option<NaiveDate>,
    pub gender: Option<String>,
}

impl Identity {
    /// The number the identity is verified by: the BVN on the BVN route,
    /// the ID number otherwise.
    pub fn number(&self) -> &str {
        match self.id_type {
            IdType::NigerianBvnVerification => self.bvn.as_deref().unwrap_or_default(),
            _ => self.id_no.as_deref().unwrap_or_default(),
        }
    }

    /// [`Identity::number`] as a reviewer sees it: its last 4 characters,
    /// every other one a `*`.
    pub fn masked_number(&self) -> String {
        let number: Vec<char> = self.number().chars().collect();
        let shown = number.len().saturating_sub(4);
        number
            .iter()
            .enumerate()
            .map(|(i, c)| if i < shown { '*' } else { *c })
            .collect()
    }
}

/// A BVN is 11 digits.
pub fn check_bvn(value: &str) -> Result<String, InvalidInput> {
    if value.len() == 11 && value.bytes().all(|b| b.is_ascii_digit()) {
        Ok(value.to_string())
    } else {
        Err(InvalidInput::new("identity.bvn", "must be a valid BVN: 11 digits"))
    }
}

fn check_id_no(value: &str) -> Result<String, InvalidInput> {
    let ok = (5..=20).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'/');
    if ok {
        Ok(value.to_string())
    } else {
        Err(InvalidInput::new(
            "identity.id_no",
            "must be a valid ID number: 5 to 20 letters, digits, '-' or '/'",
        ))
    }
}

fn url(value: &Option<String>, field: &str) -> Result<String, InvalidInput> {
    http_url::parse(field, required(value, field)?)
}

pub fn check_name(field: &str, value: &str) -> Result<String, InvalidInput> {
    let value = value.trim();
    let letters = value.chars().filter(|c| c.is_alphabetic()).count();
    let allowed = value
        .chars()
        .all(|c| c.is_alphabetic() || matches!(c, ' ' | '-' | '\'' | '.'));
    if letters < 3 || !allowed || value.chars().count() > 100 {
        return Err(InvalidInput::new(
            field,
            "must have at least 3 letters (letters, spaces, '-', ''' and '.' only)",
        ));
    }
    Ok(value.to_string())
}

impl IdentityInput {
    pub fn check(&self, country: Country) -> Result<Identity, InvalidInput> {
        let id_type = IdType::parse(required(&self.id_type, "identity.id_type")?, country)?;
        let mut identity = Identity {
            id_type,
            bvn: None,
            id_no: None,
            id_image: None,
            selfie_image: None,
            first_name: None,
            last_name: None,
            middle_name: None,
            date_of_birth: None,
            gender: None,
        };
        match (country, id_type) {
            (Country::Nigeria, IdType::NigerianBvnVerification) => {
                identity.bvn = Some(check_bvn(required(&self.bvn, "identity.bvn")?)?);
                identity.selfie_image = Some(url(&self.selfie_image, "identity.selfie_image")?);
            }
            (Country::Nigeria, _) => {
                identity.id_no = Some(check_id_no(required(&self.id_no, "identity.id_no")?)?);
                identity.id_image = Some(url(&self.id_image, "identity.id_image")?);
                identity.bvn = Some(check_bvn(required(&self.bvn, "identity.bvn")?)?);
            }
            (Country::Ghana, _) => {
                identity.id_no = Some(check_id_no(required(&self.id_no, "identity.id_no")?)?);
                identity.id_image = Some(url(&self.id_image, "identity.id_image")?);
                identity.selfie_image = Some(url(&self.selfie_image, "identity.selfie_image")?);
            }
            (Country::Uganda | Country::Kenya, _) => {
                identity.id_no = Some(check_id_no(required(&self.id_no, "identity.id_no")?)?);
                identity.first_name = Some(check_name(
                    "identity.first_name",
                    required(&self.first_name, "identity.first_name")?,
                )?);
                identity.last_name = Some(check_name(
                    "identity.last_name",
                    required(&self.last_name, "identity.last_name")?,
                )?);
                identity.middle_name = self
                    .middle_name
                    .as_deref()
                    .filter(|m| !m.trim().is_empty())
                    .map(|m| check_name("identity.middle_name", m))
                    .transpose()?;
                let dob = required(&self.date_of_birth, "identity.date_of_birth")?;
                identity.date_of_birth = Some(
                    NaiveDate::parse_from_str(dob, "%Y-%m-%d")
                        .ok()
                        .filter(|_| dob.len() == 10)
                        .ok_or_else(|| InvalidInput::new("identity.date_of_birth", "must be a date as yyyy-mm-dd"))?,
                );
                let gender = required(&self.gender, "identity.gender")?;
                if !matches!(gender, "male" | "female") {
                    return Err(InvalidInput::new("identity.gender", "must be 'male' or 'female'"));
                }
                identity.gender = Some(gender.to_string());
                identity.selfie_image = Some(url(&self.selfie_image, "identity.selfie_image")?);
            }
        }
        Ok(identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(id_type: &str) -> IdentityInput {
        IdentityInput {
            id_type: Some(id_type.into()),
            bvn: Some("22212345678".into()),
            id_no: Some("A12345678".into()),
            id_image: Some("https://img.test/id.png".into()),
            selfie_image: Some("https://img.test/selfie.png".into()),
            first_name: Some("Akello".into()),
            last_name: Some("Nakato".into()),
            middle_name: None,
            date_of_birth: Some("1990-02-28".into()),
            gender: Some("female".into()),
        }
    }

    #[test]
    fn each_country_shape_is_accepted() {
        let bvn = input("NIGERIAN_BVN_VERIFICATION").check(Country::Nigeria).unwrap();
        assert_eq!(bvn.number(), "22212345678");
        let nin = input("NIGERIAN_NIN").check(Country::Nigeria).unwrap();
        assert_eq!((nin.number(), nin.bvn.as_deref()), ("A12345678", Some("22212345678")));
        assert!(input("GHANIAN_GHANA_CARD").check(Country::Ghana).is_ok());
        assert!(
            input("UGANDA_NATIONAL_ID")
                .check(Country::Uganda)
                .unwrap()
                .date_of_birth
                .is_some()
        );
        assert!(input("KENYAN_VOTERS_ID").check(Country::Kenya).is_ok());
    }

    #[test]
    fn an_id_type_of_another_country_is_refused() {
        let e = input("KENYAN_VOTERS_ID").check(Country::Ghana).unwrap_err();
        assert_eq!(e.field, "identity.id_type");
        assert!(e.rule.contains("GHANIAN_GHANA_CARD"));
    }

    #[test]
    fn every_bad_field_is_named() {
        type Case = (&'static str, Country, fn(&mut IdentityInput), &'static str);
        let cases: [Case; 8] = [
            (
                "NIGERIAN_BVN_VERIFICATION",
                Country::Nigeria,
                |i| i.bvn = Some("1234".into()),
                "identity.bvn",
            ),
            (
                "NIGERIAN_BVN_VERIFICATION",
                Country::Nigeria,
                |i| i.selfie_image = Some("nope".into()),
                "identity.selfie_image",
            ),
            ("NIGERIAN_NIN", Country::Nigeria, |i| i.id_no = None, "identity.id_no"),
            (
                "NIGERIAN_PVC",
                Country::Nigeria,
                |i| i.id_image = Some("ftp://x".into()),
                "identity.id_image",
            ),
            (
                "GHANIAN_SSNIT",
                Country::Ghana,
                |i| i.id_no = Some("!!".into()),
                "identity.id_no",
            ),
            (
                "UGANDA_PASSPORT",
                Country::Uganda,
                |i| i.date_of_birth = Some("28/02/1990".into()),
                "identity.date_of_birth",
            ),
            (
                "UGANDA_PASSPORT",
                Country::Uganda,
                |i| i.gender = Some("other".into()),
                "identity.gender",
            ),
            (
                "KENYAN_VOTERS_ID",
                Country::Kenya,
                |i| i.first_name = Some("Al".into()),
                "identity.first_name",
            ),
        ];
        for (id_type, country, spoil, field) in cases {
            let mut i = input(id_type);
            spoil(&mut i);
            assert_eq!(i.check(country).unwrap_err().field, field, "{id_type}");
        }
    }

    #[test]
    fn a_bvn_is_eleven_digits_and_says_so() {
        let e = check_bvn("123456789012").unwrap_err();
        assert!(e.rule.contains("11 digits"));
    }

    proptest::proptest! {
        #[test]
        fn a_masked_number_shows_its_last_4_characters_at_most(number in "\\PC{0,30}") {
            let mut identity = input("NIGERIAN_NIN").check(Country::Nigeria).unwrap();
            identity.id_no = Some(number.clone());
            let masked = identity.masked_number();
            let chars: Vec<char> = number.chars().collect();
            let shown = chars.len().saturating_sub(4);
            proptest::prop_assert_eq!(masked.chars().count(), chars.len());
            proptest::prop_assert!(masked.chars().take(shown).all(|c| c == '*'));
            proptest::prop_assert_eq!(masked.chars().skip(shown).collect::<String>(), chars[shown..].iter().collect::<String>());
        }
    }
}

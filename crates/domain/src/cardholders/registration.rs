//! A registration request, checked field by field: every failure names
//! the field and the rule.

use super::identity::{IdentityInput, check_name};
use super::{Country, Identity};
use crate::InvalidInput;
use crate::{required, text};
use phonenumber::PhoneNumber;

/// A state or region, with its LGAs or districts where they are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub name: String,
    pub code: String,
    pub lgas: Vec<String>,
    /// The other names people write for it (`Abuja` and `FCT` for the
    /// Federal Capital Territory).
    pub aliases: Vec<String>,
}

/// Names match whatever their case, spacing or punctuation
/// (`Eti Osa` is `Eti-Osa`).
fn same_name(a: &str, b: &str) -> bool {
    let key = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    key(a) == key(b)
}

impl State {
    fn is(&self, name_or_code: &str) -> bool {
        same_name(&self.name, name_or_code)
            || self.code.eq_ignore_ascii_case(name_or_code.trim())
            || self.aliases.iter().any(|a| same_name(a, name_or_code))
    }
}

/// The reference data addresses are checked against, per country.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Regions {
    pub countries: Vec<(Country, Vec<State>)>,
}

impl Regions {
    pub fn states(&self, country: Country) -> &[State] {
        self.countries
            .iter()
            .find(|(c, _)| *c == country)
            .map_or(&[], |(_, s)| s.as_slice())
    }

    /// The state named (or coded) `state`: in `country` when given, else
    /// in any supported country. Ghana and Uganda share region names
    /// (`Central`) and codes repeat across countries (`BO`): a name found
    /// in several countries is Nigeria's where Nigeria has it (the LGAs
    /// are Nigeria's), else ambiguous, and the error names the countries.
    pub fn find_state(&self, country: Option<Country>, state: &str) -> Result<&State, InvalidInput> {
        let found: Vec<(Country, &State)> = self
            .countries
            .iter()
            .filter(|(c, _)| country.is_none_or(|wanted| wanted == *c))
            .flat_map(|(c, states)| states.iter().map(move |s| (*c, s)))
            .filter(|(_, s)| s.is(state))
            .collect();
        let nigerian = found.iter().find(|(c, _)| *c == Country::Nigeria);
        match (found.as_slice(), nigerian) {
            ([], _) => Err(InvalidInput::new(
                "state",
                match country {
                    Some(c) => format!("is not a state of {} (see get_all_states)", c.name()),
                    None => "is not a state of Nigeria, Ghana, Uganda or Kenya (see get_all_states)".into(),
                },
            )),
            ([(_, one)], _) | (_, Some((_, one))) => Ok(one),
            (many, None) => {
                let countries: Vec<&str> = many.iter().map(|(c, _)| c.name()).collect();
                let rule = format!("names a region of {}: give country too", countries.join(" and "));
                Err(InvalidInput::new("state", rule))
            }
        }
    }

    /// The state's canonical name, and the LGA's where one is given.
    fn check(
        &self,
        country: Country,
        state: &str,
        lga: Option<&str>,
    ) -> Result<(String, Option<String>), InvalidInput> {
        let found = self.states(country).iter().find(|s| s.is(state)).ok_or_else(|| {
            InvalidInput::new(
                "address.state",
                format!("is not a state of {} (see get_all_states)", country.name()),
            )
        })?;
        let lga = match lga.map(str::trim).filter(|l| !l.is_empty()) {
            None => None,
            Some(l) if found.lgas.is_empty() => Some(l.to_string()),
            Some(l) => Some(
                found
                    .lgas
                    .iter()
                    .find(|known| same_name(known, l))
                    .cloned()
                    .ok_or_else(|| {
                        InvalidInput::new(
                            "address.lga",
                            format!("is not an LGA of {} (see get_all_lga)", found.name),
                        )
                    })?,
            ),
        };
        Ok((found.name.clone(), lga))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressInput {
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub country: Option<String>,
    pub postal_code: Option<String>,
    pub house_no: Option<String>,
    pub lga: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub address: String,
    pub city: String,
    pub state: String,
    pub country: Country,
    pub postal_code: String,
    pub house_no: String,
    pub lga: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegistrationInput {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub address: Option<AddressInput>,
    pub phone: Option<String>,
    pub email_address: Option<String>,
    pub identity: Option<IdentityInput>,
}

/// A registration whose every field passed its rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub first_name: String,
    pub last_name: String,
    pub address: Address,
    /// E.164.
    pub phone: String,
    pub email_address: Option<String>,
    pub identity: Identity,
}

/// An E.164 number (`+`, country code, number) that is valid for `country`.
pub fn check_phone(field: &str, value: &str, country: Country) -> Result<String, InvalidInput> {
    let rule = format!(
        "must be a valid {} phone number in E.164 form, e.g. +234...",
        country.name()
    );
    if !value.starts_with('+') {
        return Err(InvalidInput::new(field, rule));
    }
    let number: PhoneNumber = phonenumber::parse(None, value).map_err(|_| InvalidInput::new(field, rule.clone()))?;
    let region = number.country().id().map(|id| id.as_ref().to_string());
    if !phonenumber::is_valid(&number) || region.as_deref() != Some(country.iso()) {
        return Err(InvalidInput::new(field, rule));
    }
    Ok(number.format().mode(phonenumber::Mode::E164).to_string())
}

impl AddressInput {
    fn check(&self, regions: &Regions) -> Result<Address, InvalidInput> {
        let country = Country::parse("address.country", required(&self.country, "address.country")?)?;
        let line = required(&self.address, "address.address")?;
        text::plain("address.address", line, 200)?;
        if line.chars().filter(|c| c.is_alphabetic()).count() < 3 {
            return Err(InvalidInput::new("address.address", "must have at least 3 letters"));
        }
        let city = required(&self.city, "address.city")?;
        text::plain("address.city", city, 100)?;
        let house_no = required(&self.house_no, "address.house_no")?;
        let house_ok = house_no.len() <= 20
            && house_no
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '/'));
        if !house_ok || !house_no.chars().any(|c| c.is_ascii_digit()) {
            return Err(InvalidInput::new(
                "address.house_no",
                "must be a house number such as 12 or 12B",
            ));
        }
        let postal_code = self.postal_code.as_deref().map(str::trim).unwrap_or_default();
        country.check_postal_code("address.postal_code", postal_code)?;
        let (state, lga) = regions.check(country, required(&self.state, "address.state")?, self.lga.as_deref())?;
        Ok(Address {
            address: line.to_string(),
            city: city.to_string(),
            state,
            country,
            postal_code: postal_code.to_string(),
            house_no: house_no.to_string(),
            lga,
        })
    }
}

impl Registration {
    /// The registration as input again, to apply a partial update and
    /// check the result by the same rules.
    pub fn to_input(&self) -> RegistrationInput {
        let a = &self.address;
        let i = &self.identity;
        RegistrationInput {
            first_name: Some(self.first_name.clone()),
            last_name: Some(self.last_name.clone()),
            address: Some(AddressInput {
                address: Some(a.address.clone()),
                city: Some(a.city.clone()),
                state: Some(a.state.clone()),
                country: Some(a.country.name().to_string()),
                postal_code: Some(a.postal_code.clone()),
                house_no: Some(a.house_no.clone()),
                lga: a.lga.clone(),
            }),
            phone: Some(self.phone.clone()),
            email_address: self.email_address.clone(),
            identity: Some(IdentityInput {
                id_type: Some(i.id_type.as_str().to_string()),
                bvn: i.bvn.clone(),
                id_no: i.id_no.clone(),
                id_image: i.id_image.clone(),
                selfie_image: i.selfie_image.clone(),
                first_name: i.first_name.clone(),
                last_name: i.last_name.clone(),
                middle_name: i.middle_name.clone(),
                date_of_birth: i.date_of_birth.map(|d| d.format("%Y-%m-%d").to_string()),
                gender: i.gender.clone(),
            }),
        }
    }
}

impl RegistrationInput {
    pub fn check(&self, regions: &Regions) -> Result<Registration, InvalidInput> {
        let first_name = check_name("first_name", required(&self.first_name, "first_name")?)?;
        let last_name = check_name("last_name", required(&self.last_name, "last_name")?)?;
        let address = self
            .address
            .as_ref()
            .ok_or_else(|| InvalidInput::new("address", "is required"))?
            .check(regions)?;
        let phone = check_phone("phone", required(&self.phone, "phone")?, address.country)?;
        let email_address = self
            .email_address
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(|e| {
                email_address::EmailAddress::parse_with_options(e, Default::default())
                    .map(|_| e.to_string())
                    .map_err(|_| InvalidInput::new("email_address", "must be an email address"))
            })
            .transpose()?;
        let identity = self
            .identity
            .as_ref()
            .ok_or_else(|| InvalidInput::new("identity", "is required"))?
            .check(address.country)?;
        Ok(Registration {
            first_name,
            last_name,
            address,
            phone,
            email_address,
            identity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cardholders::fixtures::{nigerian, regions};
    use proptest::prelude::*;

    /// Any text, NUL and other control characters and every plane of
    /// unicode included, up to 2,000 characters.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(any::<char>(), 0..2_000).prop_map(|c| c.into_iter().collect())
    }

    proptest! {
        /// Whatever one field of a registration holds, checking it never
        /// panics, and what passes obeys the rules it was checked by.
        #[test]
        fn any_value_in_any_field_is_checked_without_panicking(field in 0usize..17, value in text()) {
            let mut input = nigerian();
            let (address, identity) = (input.address.as_mut().unwrap(), input.identity.as_mut().unwrap());
            let slot = match field {
                0 => &mut input.first_name,
                1 => &mut input.last_name,
                2 => &mut input.phone,
                3 => &mut input.email_address,
                4 => &mut address.address,
                5 => &mut address.city,
                6 => &mut address.state,
                7 => &mut address.country,
                8 => &mut address.postal_code,
                9 => &mut address.house_no,
                10 => &mut address.lga,
                11 => &mut identity.id_type,
                12 => &mut identity.bvn,
                13 => &mut identity.id_no,
                14 => &mut identity.selfie_image,
                15 => &mut identity.id_image,
                _ => &mut identity.date_of_birth,
            };
            *slot = Some(value);
            if let Ok(r) = input.check(&regions()) {
                prop_assert!(r.phone.starts_with('+') && r.phone[1..].bytes().all(|b| b.is_ascii_digit()));
                prop_assert!(r.first_name.chars().count() <= 100 && r.last_name.chars().count() <= 100);
                let texts = [&r.first_name, &r.last_name, &r.address.address, &r.address.city, &r.address.state];
                prop_assert!(texts.iter().all(|t| !t.chars().any(char::is_control)), "{:?}", texts);
            }
        }

        /// A phone number that passes is in E.164 and passes again as itself.
        #[test]
        fn a_phone_number_that_passes_is_e164_and_stable(value in text(), digits in "\\+234[0-9]{6,14}") {
            for value in [value, digits] {
                if let Ok(phone) = check_phone("phone", &value, Country::Nigeria) {
                    prop_assert_eq!(check_phone("phone", &phone, Country::Nigeria), Ok(phone.clone()));
                }
            }
        }
    }

    #[test]
    fn a_good_registration_is_normalised() {
        let r = nigerian().check(&regions()).unwrap();
        assert_eq!(
            (r.address.state.as_str(), r.address.lga.as_deref()),
            ("Lagos", Some("Eti-Osa"))
        );
        assert_eq!(r.phone, "+2348031234567");
    }

    #[test]
    fn a_registration_round_trips_through_its_input() {
        let r = nigerian().check(&regions()).unwrap();
        assert_eq!(r.to_input().check(&regions()).unwrap(), r);
    }

    #[test]
    fn every_rule_names_its_field() {
        type Spoil = fn(&mut RegistrationInput);
        let cases: [(Spoil, &str); 12] = [
            (|r| r.first_name = Some("Al".into()), "first_name"),
            (|r| r.last_name = None, "last_name"),
            (
                |r| r.address.as_mut().unwrap().country = Some("Togo".into()),
                "address.country",
            ),
            (
                |r| r.address.as_mut().unwrap().address = Some("12".into()),
                "address.address",
            ),
            (
                |r| r.address.as_mut().unwrap().postal_code = Some("1234".into()),
                "address.postal_code",
            ),
            (
                |r| r.address.as_mut().unwrap().house_no = Some("#?".into()),
                "address.house_no",
            ),
            (
                |r| r.address.as_mut().unwrap().state = Some("Texas".into()),
                "address.state",
            ),
            (
                |r| r.address.as_mut().unwrap().lga = Some("Kano Municipal".into()),
                "address.lga",
            ),
            (|r| r.phone = Some("08031234567".into()), "phone"),
            (|r| r.phone = Some("+254712345678".into()), "phone"),
            (|r| r.email_address = Some("not-an-email".into()), "email_address"),
            (|r| r.identity = None, "identity"),
        ];
        for (spoil, field) in cases {
            let mut input = nigerian();
            spoil(&mut input);
            assert_eq!(input.check(&regions()).unwrap_err().field, field);
        }
    }
}

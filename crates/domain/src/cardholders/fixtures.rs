//! Sample data for tests of this and the outer crates (feature
//! `fixtures`): a small region table and a registration that passes every
//! rule.

use super::Country;
use super::identity::IdentityInput;
use super::registration::{AddressInput, Regions, RegistrationInput, State};

/// Lagos with two LGAs, and Nairobi City.
pub fn regions() -> Regions {
    let state = |name: &str, code: &str, lgas: &[&str]| State {
        name: name.into(),
        code: code.into(),
        lgas: lgas.iter().map(|l| l.to_string()).collect(),
        aliases: vec![],
    };
    Regions {
        countries: vec![
            (Country::Nigeria, vec![state("Lagos", "LA", &["Ikeja", "Eti-Osa"])]),
            (Country::Kenya, vec![state("Nairobi City", "30", &[])]),
        ],
    }
}

/// A Nigerian registration on the BVN route that passes every rule.
pub fn nigerian() -> RegistrationInput {
    RegistrationInput {
        first_name: Some("Adaeze".into()),
        last_name: Some("Okafor".into()),
        address: Some(AddressInput {
            address: Some("Admiralty Way".into()),
            city: Some("Lekki".into()),
            state: Some("lagos".into()),
            country: Some("Nigeria".into()),
            postal_code: Some("106104".into()),
            house_no: Some("12B".into()),
            lga: Some("eti osa".into()),
        }),
        phone: Some("+2348031234567".into()),
        email_address: Some("adaeze@example.com".into()),
        identity: Some(IdentityInput {
            id_type: Some("NIGERIAN_BVN_VERIFICATION".into()),
            bvn: Some("22212345678".into()),
            selfie_image: Some("https://img.test/s.png".into()),
            ..Default::default()
        }),
    }
}

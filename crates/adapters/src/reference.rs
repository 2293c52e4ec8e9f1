//! Reference data shipped in `data/` (sources in `data/SOURCES.md`).

use domain::cardholders::Country;
use domain::cardholders::registration::{Regions, State};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct RegionsFile {
    countries: BTreeMap<String, CountryEntry>,
}

#[derive(Deserialize)]
struct CountryEntry {
    states: Vec<StateEntry>,
}

#[derive(Deserialize)]
struct StateEntry {
    name: String,
    code: String,
    lgas: Vec<String>,
}

/// Common names for states the data names otherwise: (country, code,
/// names).
const ALIASES: [(&str, &str, &[&str]); 2] = [("NG", "FC", &["Abuja", "FCT"]), ("KE", "30", &["Nairobi"])];

/// The states/regions and LGAs/districts of the four countries.
pub fn regions() -> Regions {
    let file: RegionsFile =
        serde_json::from_str(include_str!("../data/regions.json")).expect("data/regions.json is valid (tested)");
    let countries = file
        .countries
        .into_iter()
        .filter_map(|(iso, entry)| {
            let country = Country::parse("country", &iso).ok()?;
            let aliases = |code: &str| -> Vec<String> {
                let names = ALIASES.iter().find(|(c, s, _)| *c == iso && *s == code);
                names
                    .map(|(.., names)| names.iter().map(|n| n.to_string()).collect())
                    .unwrap_or_default()
            };
            let states = entry
                .states
                .into_iter()
                .map(|s| State {
                    aliases: aliases(&s.code),
                    name: s.name,
                    code: s.code,
                    lgas: s.lgas,
                })
                .collect();
            Some((country, states))
        })
        .collect();
    Regions { countries }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ships_every_country_with_its_states() {
        let r = regions();
        assert_eq!(r.states(Country::Nigeria).len(), 37);
        assert_eq!(
            r.states(Country::Nigeria).iter().map(|s| s.lgas.len()).sum::<usize>(),
            774
        );
        assert_eq!(r.states(Country::Ghana).len(), 16);
        assert_eq!(r.states(Country::Kenya).len(), 47);
        assert_eq!(r.states(Country::Uganda).len(), 4);
        assert!(r.find_state(None, "Lagos").unwrap().lgas.iter().any(|l| l == "Ikeja"));
    }

    #[test]
    fn shared_names_need_their_country_and_common_names_are_known() {
        let r = regions();
        let central = |country| r.find_state(Some(country), "central").map(|s| s.lgas.len());
        assert_eq!(central(Country::Ghana), Ok(0));
        assert_eq!(central(Country::Uganda), Ok(26));
        let e = r.find_state(None, "Central").unwrap_err();
        assert_eq!(
            e.to_string(),
            "state: names a region of Ghana and Uganda: give country too"
        );
        for abuja in ["Abuja", "FCT", "fct", "Federal Capital Territory", "FC"] {
            assert_eq!(r.find_state(None, abuja).unwrap().code, "FC", "{abuja}");
        }
        assert_eq!(
            r.find_state(Some(Country::Kenya), "Nairobi").unwrap().name,
            "Nairobi City"
        );
        // Nigeria's own codes keep answering for Nigeria (Ghana's Bono is BO too).
        assert_eq!(r.find_state(None, "BO").unwrap().name, "Borno");
        assert_eq!(r.find_state(Some(Country::Ghana), "BO").unwrap().name, "Bono");
        let e = r.find_state(Some(Country::Kenya), "Lagos").unwrap_err();
        assert_eq!(e.to_string(), "state: is not a state of Kenya (see get_all_states)");
    }
}

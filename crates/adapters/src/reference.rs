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

/// The states/regions and LGAs/districts of the four countries.
pub fn regions() -> Regions {
    let file: RegionsFile =
        serde_json::from_str(include_str!("../data/regions.json")).expect("data/regions.json is valid (tested)");
    let countries = file
        .countries
        .into_iter()
        .filter_map(|(iso, entry)| {
            let country = Country::parse("country", &iso).ok()?;
            let states = entry
                .states
                .into_iter()
                .map(|s| State {
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
        assert!(r.find_state("Lagos").unwrap().lgas.iter().any(|l| l == "Ikeja"));
    }
}

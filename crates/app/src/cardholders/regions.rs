//! `GET /cardholder/get_all_states?country=` and
//! `GET /cardholder/get_all_lga?state=`: the reference data addresses are
//! checked against.

use crate::App;
use domain::InvalidInput;
use domain::cardholders::Country;
use domain::cardholders::registration::State;

impl App {
    pub fn get_all_states(&self, country: &str) -> Result<&[State], InvalidInput> {
        let country = Country::parse("country", country)?;
        Ok(self.settings.regions.states(country))
    }

    /// The LGAs of `state`, looked up in `country` when given.
    pub fn get_all_lga(&self, state: &str, country: Option<&str>) -> Result<&[String], InvalidInput> {
        let country = country.map(|c| Country::parse("country", c)).transpose()?;
        Ok(self.settings.regions.find_state(country, state)?.lgas.as_slice())
    }
}

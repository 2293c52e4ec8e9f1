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

    pub fn get_all_lga(&self, state: &str) -> Result<&[String], InvalidInput> {
        self.settings
            .regions
            .find_state(state)
            .map(|s| s.lgas.as_slice())
            .ok_or_else(|| {
                InvalidInput::new(
                    "state",
                    "is not a state of Nigeria, Ghana, Uganda or Kenya (see get_all_states)",
                )
            })
    }
}

//! The card-network simulator: the default card processor in both modes.
//! It issues Luhn-valid Mastercard numbers under the configured BIN and
//! moves money at once, except for one documented sandbox decline.

use async_trait::async_trait;
use chrono::{DateTime, Datelike};
use domain::cards::pan::{check_bin, luhn_check_digit};
use domain::cards::{CardBrand, VALIDITY_MONTHS};
use domain::ids::CardId;
use domain::{Amount, Currency, InvalidInput, Mode, Secret, Timestamp};
use ports::card_network::{
    BookedAuthorization, Books, CardNetwork, CardToIssue, IssuedCard, KeptDetails, NetworkCardState, NetworkDecline,
    NetworkUnavailable, PinChange, PinSwap, VaultedDetails,
};
use ports::cardholders::CardholderRecord;
use rand::Rng;
use rand::rngs::OsRng;

/// A load or unload whose amount ends in these four digits (for example
/// `10013`, 100.13 USD) is declined, so integrators can see the
/// `.failed` events.
pub const DECLINED_SUFFIX: i64 = 13;

pub struct NetworkSimulator {
    bin: String,
}

impl NetworkSimulator {
    /// A simulator issuing under `bin` (see [`check_bin`]).
    pub fn new(bin: &str, allow_long_bin: bool) -> Result<Self, InvalidInput> {
        check_bin("card_bin", bin, allow_long_bin)?;
        Ok(Self { bin: bin.to_string() })
    }

    fn digits(n: usize) -> String {
        (0..n).map(|_| char::from(b'0' + OsRng.gen_range(0..10u8))).collect()
    }

    fn decide(amount: Amount, what: &str) -> Result<(), NetworkDecline> {
        if amount.minor() % 10_000 == DECLINED_SUFFIX {
            Err(NetworkDecline(format!(
                "the network declined the {what} (the simulator declines amounts ending in 0013)"
            )))
        } else {
            Ok(())
        }
    }
}

impl NetworkSimulator {
    /// A card's details, valid three to five years from `now`.
    fn details(&self, now: Timestamp) -> KeptDetails {
        let now = now.unix();
        let body = format!("{}{}", self.bin, Self::digits(15 - self.bin.len()));
        let pan = format!("{body}{}", luhn_check_digit(&body));
        // Valid three to five years, a month drawn at random, as cards
        // are: an expiry reckoned from `created_at` would be a guess.
        let months = OsRng.gen_range(VALIDITY_MONTHS);
        let issued = DateTime::from_timestamp(now, 0).unwrap_or_default();
        let expires = issued
            .date_naive()
            .checked_add_months(chrono::Months::new(months))
            .unwrap_or(issued.date_naive());
        KeptDetails {
            pan: Secret::new(pan),
            cvv: Secret::new(Self::digits(3)),
            expiry_month: Secret::new(format!("{:02}", expires.month())),
            expiry_year: Secret::new(expires.year().to_string()),
        }
    }
}

/// What the simulator answers for a card a processor keeps: a mode whose
/// cards a processor issued was switched back to the simulator.
fn not_kept_here() -> NetworkUnavailable {
    NetworkUnavailable("this card was issued by a processor, and the mode now runs on the simulator".into())
}

#[async_trait]
impl CardNetwork for NetworkSimulator {
    fn keeps_customers(&self, _mode: Mode) -> bool {
        false
    }

    fn issues_physical(&self, _mode: Mode) -> bool {
        true
    }

    /// Numbers under its Mastercard BIN, whatever the currency.
    fn brand(&self, _mode: Mode, _currency: Currency) -> CardBrand {
        CardBrand::Mastercard
    }

    async fn create_customer(&self, _mode: Mode, _cardholder: &CardholderRecord) -> Result<String, NetworkUnavailable> {
        Err(NetworkUnavailable("the simulator has no customers".into()))
    }

    async fn issue<'a>(&self, _mode: Mode, card: CardToIssue<'a>) -> Result<IssuedCard, NetworkUnavailable> {
        Ok(IssuedCard::Kept(self.details(card.now)))
    }

    async fn load(&self, _mode: Mode, _card: &CardId, amount: Amount) -> Result<(), NetworkDecline> {
        Self::decide(amount, "load")
    }

    async fn unload(&self, _mode: Mode, _card: &CardId, amount: Amount) -> Result<(), NetworkDecline> {
        Self::decide(amount, "unload")
    }

    async fn set_state(&self, _mode: Mode, _card: &str, _state: NetworkCardState) -> Result<(), NetworkUnavailable> {
        Err(not_kept_here())
    }

    async fn change_pin<'a>(
        &self,
        _mode: Mode,
        _card: &str,
        _pins: PinSwap<'a>,
    ) -> Result<PinChange, NetworkUnavailable> {
        Err(not_kept_here())
    }

    async fn reveal(&self, _mode: Mode, _card: &str) -> Result<VaultedDetails, NetworkUnavailable> {
        Err(not_kept_here())
    }

    async fn state(&self, _mode: Mode, _card: &str) -> Result<Option<NetworkCardState>, NetworkUnavailable> {
        Err(not_kept_here())
    }

    /// The simulator's books are the service's own ledger.
    async fn books(&self, _mode: Mode, _from: Timestamp, _to: Timestamp) -> Result<Option<Books>, NetworkUnavailable> {
        Ok(None)
    }

    async fn booked(&self, _mode: Mode, _id: &str) -> Result<Option<BookedAuthorization>, NetworkUnavailable> {
        Err(not_kept_here())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::cards::pan::is_luhn_valid;

    #[test]
    fn issues_luhn_valid_numbers_under_the_bin_valid_three_to_five_years() {
        let network = NetworkSimulator::new("539983", false).unwrap();
        let now = 1_795_305_600; // 2026-11-22
        let (mut seen, mut expiries) = (std::collections::HashSet::new(), std::collections::BTreeSet::new());
        for _ in 0..200 {
            let card = network.details(Timestamp::from_unix(now));
            let pan = card.pan.expose();
            assert_eq!(pan.len(), 16);
            assert!(pan.starts_with("539983"));
            assert!(is_luhn_valid(pan), "{pan}");
            assert_eq!(card.cvv.expose().len(), 3);
            let (month, year): (u32, i32) = (
                card.expiry_month.expose().parse().unwrap(),
                card.expiry_year.expose().parse().unwrap(),
            );
            let months_ahead = (year - 2026) * 12 + month as i32 - 11;
            assert!((36..=60).contains(&months_ahead), "{year}-{month}");
            expiries.insert((year, month));
            seen.insert(pan.clone());
        }
        assert!(seen.len() > 195, "numbers are random");
        assert!(expiries.len() > 12, "the validity varies: {expiries:?}");
    }

    #[tokio::test]
    async fn declines_only_the_documented_amounts() {
        let network = NetworkSimulator::new("22230012", true).unwrap();
        let card = CardId::new("card_1");
        let live = Mode::Live;
        assert!(network.load(live, &card, Amount::from_const(10_013)).await.is_err());
        assert!(network.unload(live, &card, Amount::from_const(13)).await.is_err());
        assert!(network.load(live, &card, Amount::from_const(1_013)).await.is_ok());
        assert!(network.load(live, &card, Amount::from_const(10_000)).await.is_ok());
        assert!(NetworkSimulator::new("411111", true).is_err());
        assert!(NetworkSimulator::new("22230012", false).is_err());
    }
}

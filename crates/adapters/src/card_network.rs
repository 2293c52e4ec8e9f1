//! The card-network simulator: the default card processor in both modes.
//! It issues Luhn-valid Mastercard numbers under the configured BIN and
//! moves money at once, except for one documented sandbox decline.

use async_trait::async_trait;
use chrono::{DateTime, Datelike};
use domain::cards::pan::{check_bin, luhn_check_digit};
use domain::cards::{CardType, VALIDITY_MONTHS};
use domain::ids::CardId;
use domain::{Amount, InvalidInput, Secret, Timestamp};
use ports::card_network::{CardNetwork, IssuedCard, NetworkDecline};
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

#[async_trait]
impl CardNetwork for NetworkSimulator {
    async fn issue(&self, _card_type: CardType, now: Timestamp) -> IssuedCard {
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
        IssuedCard {
            pan: Secret::new(pan),
            cvv: Secret::new(Self::digits(3)),
            expiry_month: Secret::new(format!("{:02}", expires.month())),
            expiry_year: Secret::new(expires.year().to_string()),
        }
    }

    async fn load(&self, _card: &CardId, amount: Amount) -> Result<(), NetworkDecline> {
        Self::decide(amount, "load")
    }

    async fn unload(&self, _card: &CardId, amount: Amount) -> Result<(), NetworkDecline> {
        Self::decide(amount, "unload")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::cards::pan::is_luhn_valid;

    #[tokio::test]
    async fn issues_luhn_valid_numbers_under_the_bin_valid_three_to_five_years() {
        let network = NetworkSimulator::new("539983", false).unwrap();
        let now = 1_795_305_600; // 2026-11-22
        let (mut seen, mut expiries) = (std::collections::HashSet::new(), std::collections::BTreeSet::new());
        for _ in 0..200 {
            let card = network.issue(CardType::Virtual, Timestamp::from_unix(now)).await;
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
        assert!(network.load(&card, Amount::from_const(10_013)).await.is_err());
        assert!(network.unload(&card, Amount::from_const(13)).await.is_err());
        assert!(network.load(&card, Amount::from_const(1_013)).await.is_ok());
        assert!(network.load(&card, Amount::from_const(10_000)).await.is_ok());
        assert!(NetworkSimulator::new("411111", true).is_err());
        assert!(NetworkSimulator::new("22230012", false).is_err());
    }
}

//! The card-network simulator: the default card processor in both modes.
//! It issues Luhn-valid Mastercard numbers under the configured BIN and
//! moves money at once, except for one documented sandbox decline.

use async_trait::async_trait;
use chrono::{DateTime, Datelike};
use domain::cards::pan::{check_bin, luhn_check_digit};
use domain::cards::{CardType, VALIDITY_YEARS};
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
    pub fn new(bin: &str) -> Result<Self, InvalidInput> {
        check_bin("card_bin", bin)?;
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
        let issued = DateTime::from_timestamp(now, 0).unwrap_or_default();
        IssuedCard {
            pan: Secret::new(pan),
            cvv: Secret::new(Self::digits(3)),
            expiry_month: Secret::new(format!("{:02}", issued.month())),
            expiry_year: Secret::new((issued.year() + VALIDITY_YEARS).to_string()),
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
    async fn issues_luhn_valid_numbers_under_the_bin_expiring_in_three_years() {
        let network = NetworkSimulator::new("539983").unwrap();
        let now = 1_795_305_600; // 2026-11-22
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let card = network.issue(CardType::Virtual, Timestamp::from_unix(now)).await;
            let pan = card.pan.expose();
            assert_eq!(pan.len(), 16);
            assert!(pan.starts_with("539983"));
            assert!(is_luhn_valid(pan), "{pan}");
            assert_eq!(card.cvv.expose().len(), 3);
            assert_eq!(card.expiry_month.expose(), "11");
            assert_eq!(card.expiry_year.expose(), "2029");
            seen.insert(pan.clone());
        }
        assert!(seen.len() > 195, "numbers are random");
    }

    #[tokio::test]
    async fn declines_only_the_documented_amounts() {
        let network = NetworkSimulator::new("22230012").unwrap();
        let card = CardId::new("card_1");
        assert!(network.load(&card, Amount::from_const(10_013)).await.is_err());
        assert!(network.unload(&card, Amount::from_const(13)).await.is_err());
        assert!(network.load(&card, Amount::from_const(1_013)).await.is_ok());
        assert!(network.load(&card, Amount::from_const(10_000)).await.is_ok());
        assert!(NetworkSimulator::new("411111").is_err());
    }
}

//! Cards: what a card is made of and the rules of issuing, funding and
//! revealing one. Numbers live in [`pan`], PINs in [`pin`], what differs
//! between USD and Naira cards in [`product`].

pub mod authorization;
pub mod debit_run;
pub mod hold;
pub mod pan;
pub mod pin;
pub mod product;
pub mod reconciliation;
pub mod reserve_run;
pub mod reversal;
pub mod settle_run;
pub mod spending_controls;
pub mod state;
pub mod three_ds;
pub mod transfer;

use crate::{Amount, InvalidInput, Timestamp};

/// A card's network brand: what its processor issues it as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardBrand {
    Mastercard,
    /// Nigeria's domestic scheme: Sudo's Naira cards.
    Verve,
}

impl CardBrand {
    pub fn as_str(self) -> &'static str {
        match self {
            CardBrand::Mastercard => "Mastercard",
            CardBrand::Verve => "Verve",
        }
    }

    /// The brand a request asks for, in any case (Sudo spells it
    /// `MasterCard`).
    pub fn parse(field: &str, value: &str) -> Result<Self, InvalidInput> {
        [CardBrand::Mastercard, CardBrand::Verve]
            .into_iter()
            .find(|brand| value.eq_ignore_ascii_case(brand.as_str()))
            .ok_or_else(|| {
                InvalidInput::new(
                    field,
                    "this card type is unavailable: the brands issued are Mastercard and Verve",
                )
            })
    }

    /// What a card asked as `asked` is issued as where the processor
    /// issues `issued`: that brand, or, asked `Mastercard` (what
    /// integrations written for the contract send for every card), the
    /// brand issued; any other ask is unavailable.
    pub fn issue_as(asked: CardBrand, issued: CardBrand, field: &str) -> Result<CardBrand, InvalidInput> {
        match asked == issued || asked == CardBrand::Mastercard {
            true => Ok(issued),
            false => Err(InvalidInput::new(
                field,
                format!(
                    "this card type is unavailable: such cards are issued here as {}",
                    issued.as_str()
                ),
            )),
        }
    }
}

/// A card may be funded (and, separately, unloaded) once per this window.
pub const MONEY_WINDOW_SECS: i64 = 300;

/// Card details and balance may each be read once per this window per card.
pub const READ_WINDOW_SECS: i64 = 3;

/// How long a card-details token may be redeemed (once).
pub const DETAILS_TOKEN_SECS: i64 = 300;

/// A card is deleted on this many consecutive insufficient-balance declines.
pub const MAX_CONSECUTIVE_DECLINES: i32 = 15;

/// A USD card with no transaction for this many months is deleted...
pub const INACTIVITY_MONTHS: u32 = 3;

/// ...after a reminder this many seconds (7 days) before.
pub const INACTIVITY_NOTICE_SECS: i64 = 7 * 86_400;

/// When a card last used at `last_activity` is deleted for inactivity.
pub fn inactivity_deadline(last_activity: Timestamp) -> Timestamp {
    last_activity.add_months(INACTIVITY_MONTHS)
}

/// A card's fee anniversaries: monthly from its anchor, for at most a
/// hundred years (a search past them finds none: never).
fn anniversaries(anchor: Timestamp) -> impl Iterator<Item = Timestamp> {
    (1..=1_200).map(move |k| anchor.add_months(k))
}

/// The first monthly anniversary of `anchor` after `now`, when the
/// maintenance fee is next charged.
pub fn next_anniversary(anchor: Timestamp, now: Timestamp) -> Timestamp {
    anniversaries(anchor).find(|t| *t > now).unwrap_or(Timestamp::NEVER)
}

/// A card's first fee: the first anniversary of `anchor` whose month is
/// after `charged` (the last month charged, for a card that takes over
/// another's anniversaries), which may be due already.
pub fn first_fee_due(anchor: Timestamp, charged: Option<i32>) -> Timestamp {
    anniversaries(anchor)
        .find(|t| charged.is_none_or(|month| t.month_key() > month))
        .unwrap_or(Timestamp::NEVER)
}

/// How long a card stays valid after issue, in months: three to five
/// years.
pub const VALIDITY_MONTHS: std::ops::RangeInclusive<u32> = 36..=60;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardType {
    Virtual,
    Physical,
}

impl CardType {
    pub fn as_str(self) -> &'static str {
        match self {
            CardType::Virtual => "virtual",
            CardType::Physical => "physical",
        }
    }

    pub fn parse(field: &str, value: &str) -> Result<Self, InvalidInput> {
        [CardType::Virtual, CardType::Physical]
            .into_iter()
            .find(|t| t.as_str() == value)
            .ok_or_else(|| InvalidInput::new(field, "must be virtual or physical"))
    }
}

/// A card's monthly spending limit, in USD cents. A USD card's is chosen
/// at creation and sets the minimum creation funding, which is held for
/// the monthly maintenance fee; a Naira card's is fixed, with no fee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardLimit {
    /// 5,000 USD a month; 3 USD held.
    Usd5k,
    /// 10,000 USD a month; 4 USD held.
    Usd10k,
    /// A Naira card's global spending: 1,500 USD a month; nothing held.
    Naira,
}

impl CardLimit {
    pub fn parse(field: &str, value: &str) -> Result<Self, InvalidInput> {
        match value {
            "500000" => Ok(CardLimit::Usd5k),
            "1000000" => Ok(CardLimit::Usd10k),
            _ => Err(InvalidInput::new(
                field,
                "must be '500000' (5,000 USD) or '1000000' (10,000 USD)",
            )),
        }
    }

    /// A USD card's limit as asked, or, omitted (as integrations of the
    /// original service do), the 5,000 USD one.
    pub fn parse_or_default(field: &str, value: Option<&str>) -> Result<Self, InvalidInput> {
        value.map_or(Ok(CardLimit::Usd5k), |v| CardLimit::parse(field, v.trim()))
    }

    pub fn from_minor(minor: i64) -> Option<Self> {
        match minor {
            500_000 => Some(CardLimit::Usd5k),
            1_000_000 => Some(CardLimit::Usd10k),
            150_000 => Some(CardLimit::Naira),
            _ => None,
        }
    }

    /// The monthly limit in cents.
    pub fn monthly(self) -> Amount {
        match self {
            CardLimit::Usd5k => Amount::from_const(500_000),
            CardLimit::Usd10k => Amount::from_const(1_000_000),
            CardLimit::Naira => Amount::from_const(150_000),
        }
    }

    /// The least a card may be created with: the maintenance-fee hold.
    pub fn fee_hold(self) -> Amount {
        match self {
            CardLimit::Usd5k => Amount::from_const(300),
            CardLimit::Usd10k => Amount::from_const(400),
            CardLimit::Naira => Amount::ZERO,
        }
    }

    /// A creation funding as asked, or, omitted, the least this limit is
    /// created with: its fee hold.
    pub fn parse_funding_or_least(self, field: &str, value: Option<&str>) -> Result<Amount, InvalidInput> {
        value.map_or(Ok(self.fee_hold()), |v| self.parse_funding(field, v))
    }

    /// Parses a creation funding: at least the fee hold of this limit, at
    /// most what a card may hold.
    pub fn parse_funding(self, field: &str, value: &str) -> Result<Amount, InvalidInput> {
        let funding = product::Product::USD.parse_funding_amount(field, value)?;
        if funding < self.fee_hold() {
            return Err(InvalidInput::new(
                field,
                format!(
                    "must be at least '{}' for a card limit of '{}' (held for the monthly maintenance fee)",
                    self.fee_hold(),
                    self.monthly()
                ),
            ));
        }
        Ok(funding)
    }
}

/// Checks a NIN (a Naira card's, optional): 11 digits.
pub fn check_nin(field: &str, value: &str) -> Result<(), InvalidInput> {
    if value.len() == 11 && value.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(());
    }
    Err(InvalidInput::new(field, "must be a NIN: 11 digits"))
}

/// The 13-digit number printed on a physical card's envelope.
pub fn check_token_number(field: &str, value: &str) -> Result<(), InvalidInput> {
    if value.len() == 13 && value.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(InvalidInput::new(
            field,
            "must be the 13-digit number on the card envelope",
        ))
    }
}

/// The balances a card reports. `balance` (the book balance) includes the
/// held maintenance fee and what pending authorizations hold;
/// `available` is what can be spent or unloaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardBalance {
    pub balance: i64,
    pub available: i64,
}

impl CardBalance {
    /// From the money on the card, what its authorizations hold, and its
    /// fee hold.
    pub fn new(on_card: i64, held: i64, fee_hold: Amount) -> Self {
        Self {
            balance: on_card.saturating_add(held),
            available: on_card.saturating_sub(fee_hold.minor()).max(0),
        }
    }
}

/// The billing address the network knows every card by (the issuer's).
pub struct BillingAddress {
    pub address1: &'static str,
    pub city: &'static str,
    pub state: &'static str,
    pub state_code: &'static str,
    pub country: &'static str,
    pub country_code: &'static str,
    pub zip_code: &'static str,
}

pub const BILLING_ADDRESS: BillingAddress = BillingAddress {
    address1: "256 Chapman Road STE 105-4",
    city: "Newark",
    state: "Delaware",
    state_code: "DE",
    country: "US",
    country_code: "US",
    zip_code: "19702",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_set_the_minimum_funding() {
        let five = CardLimit::parse("card_limit", "500000").unwrap();
        assert!(five.parse_funding("funding_amount", "299").is_err());
        assert_eq!(five.parse_funding("funding_amount", "300"), Ok(Amount::from_const(300)));
        let ten = CardLimit::parse("card_limit", "1000000").unwrap();
        let e = ten.parse_funding("funding_amount", "399").unwrap_err();
        assert!(
            e.to_string().starts_with("funding_amount: must be at least '400'"),
            "{e}"
        );
        assert!(CardLimit::parse("card_limit", "700000").is_err());
        // Omitted, as integrations of the original service omit them: the
        // 5,000 USD limit and its fee hold; supplied, read as ever.
        let omitted = CardLimit::parse_or_default("card_limit", None).unwrap();
        assert_eq!(omitted, CardLimit::Usd5k);
        assert_eq!(
            omitted.parse_funding_or_least("funding_amount", None),
            Ok(Amount::from_const(300))
        );
        assert_eq!(
            ten.parse_funding_or_least("funding_amount", None),
            Ok(Amount::from_const(400))
        );
        assert_eq!(CardLimit::parse_or_default("card_limit", Some(" 1000000 ")), Ok(ten));
        for bad in ["", "700000", "-500000"] {
            assert!(CardLimit::parse_or_default("card_limit", Some(bad)).is_err(), "{bad}");
        }
        assert!(omitted.parse_funding_or_least("funding_amount", Some("299")).is_err());
        assert!(omitted.parse_funding_or_least("funding_amount", Some("")).is_err());
        assert_eq!(
            ten.parse_funding("funding_amount", "500000"),
            Ok(product::Product::USD.max_balance)
        );
        for over in ["500001", "9223372036854775807", "99999999999999999999"] {
            let e = ten.parse_funding("funding_amount", over).unwrap_err();
            assert_eq!(
                e.to_string(),
                "funding_amount: must be at most 500000 (the most a USD card may hold: 5,000 USD)"
            );
        }
        assert_eq!(CardLimit::from_minor(1_000_000), Some(ten));
    }

    #[test]
    fn only_the_network_brand_and_known_types_are_issued() {
        assert_eq!(CardBrand::parse("card_brand", "MasterCard"), Ok(CardBrand::Mastercard));
        assert_eq!(CardBrand::parse("card_brand", "verve"), Ok(CardBrand::Verve));
        assert!(CardBrand::parse("card_brand", "Visa").is_err());
        let (m, v) = (CardBrand::Mastercard, CardBrand::Verve);
        assert_eq!(
            CardBrand::issue_as(m, v, "b"),
            Ok(v),
            "Mastercard asked of a Verve issuer"
        );
        assert_eq!(CardBrand::issue_as(v, v, "b"), Ok(v));
        assert_eq!(CardBrand::issue_as(m, m, "b"), Ok(m));
        let refused = CardBrand::issue_as(v, m, "card_brand").unwrap_err();
        assert!(refused.rule.contains("issued here as Mastercard"), "{}", refused.rule);
        assert_eq!(CardType::parse("card_type", "physical"), Ok(CardType::Physical));
        assert!(CardType::parse("card_type", "metal").is_err());
    }

    #[test]
    fn envelope_numbers_have_13_digits() {
        assert!(check_token_number("card_token_number", "1234567890123").is_ok());
        assert!(check_token_number("card_token_number", "123456789012").is_err());
        assert!(check_token_number("card_token_number", "12345678901a3").is_err());
    }

    #[test]
    fn time_rules_count_calendar_months() {
        let nov_22 = Timestamp::from_unix(1_795_305_600); // 2026-11-22 00:00 GMT
        assert_eq!(inactivity_deadline(nov_22).gmt(), "2027-02-22 00:00:00");
        assert_eq!(next_anniversary(nov_22, nov_22).gmt(), "2026-12-22 00:00:00");
        assert_eq!(
            next_anniversary(nov_22, nov_22.plus(40 * 86_400)).gmt(),
            "2027-01-22 00:00:00"
        );
    }

    #[test]
    fn a_card_taking_over_anniversaries_starts_after_the_last_month_charged() {
        let nov_22 = Timestamp::from_unix(1_795_305_600); // 2026-11-22 00:00 GMT
        assert_eq!(first_fee_due(nov_22, None).gmt(), "2026-12-22 00:00:00");
        assert_eq!(first_fee_due(nov_22, Some(202_612)).gmt(), "2027-01-22 00:00:00");
        assert_eq!(first_fee_due(Timestamp::NEVER, None), Timestamp::NEVER);
        assert_eq!(next_anniversary(nov_22, Timestamp::NEVER.minus(1)), Timestamp::NEVER);
    }

    #[test]
    fn available_balance_leaves_the_fee_hold() {
        assert_eq!(CardBalance::new(1_300, 0, Amount::from_const(300)).available, 1_000);
        assert_eq!(CardBalance::new(200, 0, Amount::from_const(300)).available, 0);
        // A hold leaves the book balance and takes from the available one.
        let held = CardBalance::new(1_000, 300, Amount::from_const(300));
        assert_eq!((held.balance, held.available), (1_300, 700));
    }
}

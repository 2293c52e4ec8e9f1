//! What differs between a USD card and a Naira card. A Naira card is the
//! same card with another currency, wallet and limits: it holds and moves
//! kobo from the NGN issuing wallet, pays no maintenance fee, takes no
//! funding at creation, and its spending is capped per calendar month in
//! USD (each debit converted at the rate in force when it is made).

use crate::fx::FxRates;
use crate::{Amount, Currency, InvalidInput};

/// The limits of the cards of one currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Product {
    pub currency: Currency,
    /// The most a card may hold at a time.
    pub max_balance: Amount,
    /// The largest single debit; a forced post may take a card below zero
    /// by at most this.
    pub max_debit: Amount,
    max_balance_text: &'static str,
    max_debit_text: &'static str,
}

impl Product {
    pub const USD: Product = Product {
        currency: Currency::Usd,
        max_balance: Amount::from_const(500_000),
        max_debit: Amount::from_const(1_000_000),
        max_balance_text: "the most a USD card may hold: 5,000 USD",
        max_debit_text: "the largest monthly card limit: 10,000 USD",
    };

    pub const NGN: Product = Product {
        currency: Currency::Ngn,
        max_balance: Amount::from_const(1_000_000_000),
        max_debit: Amount::from_const(500_000_000),
        max_balance_text: "the most a Naira card may hold: 10,000,000 NGN",
        max_debit_text: "the largest Naira card debit: 5,000,000 NGN",
    };

    pub const ALL: [Product; 2] = [Product::USD, Product::NGN];

    pub fn of(currency: Currency) -> Product {
        match currency {
            Currency::Usd => Product::USD,
            Currency::Ngn => Product::NGN,
        }
    }

    /// An amount to move onto or off a card: above zero, at most
    /// [`Product::max_balance`].
    pub fn parse_transfer_amount(self, field: &str, value: &str) -> Result<Amount, InvalidInput> {
        Amount::parse_positive_up_to(field, value, self.max_balance, self.max_balance_text)
    }

    /// A creation funding: zero or more, at most [`Product::max_balance`].
    pub fn parse_funding_amount(self, field: &str, value: &str) -> Result<Amount, InvalidInput> {
        Amount::parse_up_to(field, value, self.max_balance, self.max_balance_text)
    }

    /// The amount of a debit: above zero, at most [`Product::max_debit`].
    pub fn parse_debit_amount(self, field: &str, value: &str) -> Result<Amount, InvalidInput> {
        Amount::parse_positive_up_to(field, value, self.max_debit, self.max_debit_text)
    }

    /// The amount of a debit on a card not yet read: what
    /// [`Product::parse_debit_amount`] takes for some card (the card's own
    /// bound is checked once it is known), so that a request's form is
    /// judged before the card.
    pub fn parse_any_debit_amount(field: &str, value: &str) -> Result<Amount, InvalidInput> {
        let widest = Product::ALL
            .into_iter()
            .max_by_key(|p| p.max_debit)
            .unwrap_or(Product::NGN);
        widest.parse_debit_amount(field, value)
    }

    /// Whether funding a card with `amount` keeps it within its maximum,
    /// counting what is in transit to or from it (a pending funding lands
    /// on it; a pending unloading may come back to it). Taken in `i128`:
    /// never overflows.
    pub fn funding_fits(self, balance: i64, in_transit: i64, amount: Amount) -> bool {
        i128::from(balance) + i128::from(in_transit) + i128::from(amount.minor())
            <= i128::from(self.max_balance.minor())
    }

    /// What a debit of `amount` counts against the card's monthly limit,
    /// in USD cents: itself for a USD card; for a Naira card, converted at
    /// what buying its USD would cost (`ngn_usd` kobo per USD), rounded
    /// up so that a cap is never passed by rounding.
    pub fn counts_against_limit(self, amount: Amount, rates: FxRates) -> Amount {
        match self.currency {
            Currency::Usd => amount,
            Currency::Ngn => {
                let kobo = u128::try_from(amount.minor()).unwrap_or(0) * 100;
                let rate = u128::try_from(rates.ngn_usd.minor()).unwrap_or(1).max(1);
                let cents = kobo.div_ceil(rate);
                Amount::from_minor(i64::try_from(cents).unwrap_or(i64::MAX)).unwrap_or(Amount::MAX)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rates(ngn_usd: i64) -> FxRates {
        FxRates {
            ngn_usd: Amount::from_minor(ngn_usd).unwrap(),
            usd_ngn: Amount::from_minor(ngn_usd).unwrap(),
        }
    }

    #[test]
    fn each_currency_has_its_own_bounds() {
        assert_eq!(Product::of(Currency::Ngn), Product::NGN);
        assert!(Product::USD.parse_transfer_amount("amount", "500001").is_err());
        assert_eq!(
            Product::NGN.parse_transfer_amount("amount", "500001").unwrap().minor(),
            500_001
        );
        let e = Product::NGN.parse_transfer_amount("amount", "1000000001").unwrap_err();
        assert!(e.to_string().starts_with("amount: must be at most 1000000000"), "{e}");
        assert!(Product::NGN.parse_debit_amount("amount", "500000001").is_err());
        assert_eq!(
            Product::parse_any_debit_amount("amount", "500000000"),
            Ok(Amount::from_const(500_000_000))
        );
        assert!(Product::parse_any_debit_amount("amount", "500000001").is_err());
        assert!(Product::parse_any_debit_amount("amount", "0").is_err());
        assert!(Product::parse_any_debit_amount("amount", "-1").is_err());
        assert!(!Product::USD.funding_fits(i64::MAX, i64::MAX, Amount::MAX));
    }

    #[test]
    fn naira_spend_counts_in_usd_cents_rounded_up() {
        // 1,500 NGN a USD: 1,500.00 NGN is 1.00 USD; a kobo more is a cent more.
        let r = rates(150_000);
        assert_eq!(
            Product::NGN
                .counts_against_limit(Amount::from_const(150_000), r)
                .minor(),
            100
        );
        assert_eq!(
            Product::NGN
                .counts_against_limit(Amount::from_const(150_001), r)
                .minor(),
            101
        );
        assert_eq!(
            Product::USD
                .counts_against_limit(Amount::from_const(150_001), r)
                .minor(),
            150_001
        );
        assert_eq!(
            Product::NGN.counts_against_limit(Amount::MAX, rates(1)).minor(),
            Amount::MAX.minor()
        );
    }

    #[test]
    fn card_amounts_are_bounded_where_they_are_parsed() {
        for p in Product::ALL {
            assert_eq!(
                p.parse_transfer_amount("amount", &p.max_balance.to_string()),
                Ok(p.max_balance)
            );
            assert_eq!(
                p.parse_debit_amount("amount", &p.max_debit.to_string()),
                Ok(p.max_debit)
            );
            let over_balance = (p.max_balance.minor() + 1).to_string();
            let over_debit = (p.max_debit.minor() + 1).to_string();
            for bad in [
                "0",
                "-1",
                "9223372036854775807",
                "18446744073709551615",
                "99999999999999999999",
            ] {
                assert_eq!(
                    p.parse_transfer_amount("amount", bad).unwrap_err().field,
                    "amount",
                    "{bad}"
                );
                assert_eq!(
                    p.parse_debit_amount("amount", bad).unwrap_err().field,
                    "amount",
                    "{bad}"
                );
            }
            assert!(p.parse_transfer_amount("amount", &over_balance).is_err());
            assert!(p.parse_debit_amount("amount", &over_debit).is_err());
        }
    }

    #[test]
    fn extreme_balances_never_fit_and_never_overflow() {
        for p in Product::ALL {
            assert!(!p.funding_fits(i64::MAX, i64::MAX, Amount::MAX));
            assert!(p.funding_fits(i64::MIN, i64::MIN, Amount::MAX));
            assert!(p.funding_fits(0, 0, p.max_balance));
            assert!(!p.funding_fits(0, 1, p.max_balance));
            assert!(!p.funding_fits(1, 0, p.max_balance));
        }
    }

    proptest! {
        #[test]
        fn no_funding_that_fits_takes_a_card_past_its_maximum(
            usd in any::<bool>(),
            balance in -Product::NGN.max_debit.minor()..=Product::NGN.max_balance.minor(),
            in_transit in 0..=Product::NGN.max_balance.minor(),
            amount in 0..=Amount::MAX.minor(),
        ) {
            let p = if usd { Product::USD } else { Product::NGN };
            let fits = p.funding_fits(balance, in_transit, Amount::from_minor(amount).unwrap());
            prop_assert_eq!(fits, balance + in_transit + amount <= p.max_balance.minor());
        }

        #[test]
        fn a_naira_debit_never_counts_less_than_its_usd_worth(kobo in 1..=Product::NGN.max_debit.minor(), rate in 1i64..10_000_000) {
            let cents = Product::NGN.counts_against_limit(Amount::from_minor(kobo).unwrap(), rates(rate)).minor();
            prop_assert!(i128::from(cents) * i128::from(rate) >= i128::from(kobo) * 100);
            prop_assert!(i128::from(cents - 1) * i128::from(rate) < i128::from(kobo) * 100);
        }
    }
}

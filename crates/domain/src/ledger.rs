//! The double-entry ledger's rules. Every movement of money is an entry of
//! two or more postings whose amounts sum to zero in each currency; a
//! ledger account's balance is the sum of its postings.

use crate::{Amount, Currency, InvalidInput};
use std::collections::BTreeMap;
use std::fmt;

/// One side of an entry: `amount` is signed, credit positive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting<A> {
    pub account: A,
    pub currency: Currency,
    pub amount: i64,
}

/// A balanced set of postings, valid by construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<A> {
    postings: Vec<Posting<A>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("an entry needs at least two postings")]
    TooFewPostings,
    #[error("a posting of zero moves nothing")]
    ZeroPosting,
    #[error("postings in {0} do not sum to zero")]
    Unbalanced(&'static str),
}

impl<A> Entry<A> {
    pub fn new(postings: Vec<Posting<A>>) -> Result<Self, EntryError> {
        if postings.len() < 2 {
            return Err(EntryError::TooFewPostings);
        }
        let mut sums: BTreeMap<&'static str, i128> = BTreeMap::new();
        for p in &postings {
            if p.amount == 0 {
                return Err(EntryError::ZeroPosting);
            }
            *sums.entry(p.currency.code()).or_default() += i128::from(p.amount);
        }
        if let Some((code, _)) = sums.into_iter().find(|(_, sum)| *sum != 0) {
            return Err(EntryError::Unbalanced(code));
        }
        Ok(Self { postings })
    }

    /// Moves `amount` from one ledger account to another.
    pub fn transfer(from: A, to: A, currency: Currency, amount: Amount) -> Result<Self, InvalidInput> {
        let minor = amount.minor();
        Self::new(vec![
            Posting {
                account: from,
                currency,
                amount: -minor,
            },
            Posting {
                account: to,
                currency,
                amount: minor,
            },
        ])
        .map_err(|e| InvalidInput::new("amount", e.to_string()))
    }

    pub fn postings(&self) -> &[Posting<A>] {
        &self.postings
    }
}

/// A broken ledger invariant found by the ledger check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Breach {
    /// An entry's postings do not sum to zero in one currency.
    Unbalanced {
        entry_id: String,
        currency: String,
        sum: i64,
    },
    /// An entry with fewer than two postings.
    TooFewPostings { entry_id: String, postings: i64 },
    /// A cached balance differs from the sum of its postings.
    BalanceMismatch {
        ledger_account: String,
        cached: i64,
        postings: i64,
    },
    /// A balance below zero on an account that may not go negative.
    Negative { ledger_account: String, balance: i64 },
    /// A posting in a currency other than its account's.
    CurrencyMismatch { entry_id: String, ledger_account: String },
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Breach::Unbalanced {
                entry_id,
                currency,
                sum,
            } => {
                write!(f, "entry {entry_id} is unbalanced in {currency}: postings sum to {sum}")
            }
            Breach::TooFewPostings { entry_id, postings } => {
                write!(
                    f,
                    "entry {entry_id} has {postings} posting(s); at least two are required"
                )
            }
            Breach::BalanceMismatch {
                ledger_account,
                cached,
                postings,
            } => write!(
                f,
                "ledger account {ledger_account} caches balance {cached} but its postings sum to {postings}"
            ),
            Breach::Negative {
                ledger_account,
                balance,
            } => {
                write!(
                    f,
                    "ledger account {ledger_account} is negative ({balance}) and may not be"
                )
            }
            Breach::CurrencyMismatch {
                entry_id,
                ledger_account,
            } => write!(
                f,
                "entry {entry_id} posts to ledger account {ledger_account} in a currency it does not hold"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(account: &'static str, currency: Currency, amount: i64) -> Posting<&'static str> {
        Posting {
            account,
            currency,
            amount,
        }
    }

    #[test]
    fn transfer_is_balanced() {
        let e = Entry::transfer("faucet", "wallet", Currency::Usd, Amount::from_minor(500).unwrap()).unwrap();
        let sum: i64 = e.postings().iter().map(|p| p.amount).sum();
        assert_eq!(sum, 0);
        assert_eq!(e.postings()[1].amount, 500);
    }

    #[test]
    fn rejects_unbalanced_short_and_zero() {
        use Currency::*;
        assert_eq!(Entry::new(vec![p("a", Usd, 1)]), Err(EntryError::TooFewPostings));
        assert_eq!(
            Entry::new(vec![p("a", Usd, 1), p("b", Usd, -2)]),
            Err(EntryError::Unbalanced("USD"))
        );
        assert_eq!(
            Entry::new(vec![p("a", Usd, 1), p("b", Ngn, -1)]),
            Err(EntryError::Unbalanced("NGN"))
        );
        assert_eq!(
            Entry::new(vec![p("a", Usd, 0), p("b", Usd, 0)]),
            Err(EntryError::ZeroPosting)
        );
    }

    #[test]
    fn transfer_of_zero_is_refused() {
        assert!(Entry::transfer("a", "b", Currency::Usd, Amount::ZERO).is_err());
    }

    #[test]
    fn breaches_name_what_is_broken() {
        let b = Breach::BalanceMismatch {
            ledger_account: "la_1".into(),
            cached: 5,
            postings: 3,
        };
        assert!(b.to_string().contains("la_1"));
    }

    proptest! {
        #[test]
        fn any_accepted_entry_sums_to_zero_per_currency(
            amounts in proptest::collection::vec((any::<bool>(), -1_000_000i64..1_000_000), 2..8)
        ) {
            let postings: Vec<_> = amounts
                .iter()
                .map(|(usd, a)| p("x", if *usd { Currency::Usd } else { Currency::Ngn }, *a))
                .collect();
            if let Ok(entry) = Entry::new(postings) {
                for c in Currency::ALL {
                    let sum: i64 = entry.postings().iter().filter(|p| p.currency == c).map(|p| p.amount).sum();
                    prop_assert_eq!(sum, 0);
                }
            }
        }

        #[test]
        fn every_positive_transfer_is_accepted(a in 1i64..=i64::MAX) {
            prop_assert!(Entry::transfer("a", "b", Currency::Ngn, Amount::from_minor(a).unwrap()).is_ok());
        }
    }
}

//! Money a card processor gives back of a debit it had us approve: a
//! refund (a chargeback, a merchant's refund), or a reversal (the
//! processor declined in the end what we approved, or cleared less). It
//! credits back at most what the debit took and was not given back yet,
//! to the card while it lives and has room, else to the issuing wallet
//! the card was funded from.

use crate::Amount;

/// Why money comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReversalKind {
    /// The processor refunded a settled purchase.
    Refund,
    /// The processor undid (part of) an authorization.
    Reversal,
}

impl ReversalKind {
    pub const ALL: [ReversalKind; 2] = [ReversalKind::Refund, ReversalKind::Reversal];
    /// Their names, as requests and events spell them.
    pub const NAMES: [&'static str; 2] = ["refund", "reversal"];

    pub fn as_str(self) -> &'static str {
        match self {
            ReversalKind::Refund => Self::NAMES[0],
            ReversalKind::Reversal => Self::NAMES[1],
        }
    }

    pub fn parse(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// The `card_transaction_type` its event carries.
    pub fn transaction_type(self) -> &'static str {
        match self {
            ReversalKind::Refund => "REFUND",
            ReversalKind::Reversal => "REVERSAL",
        }
    }
}

/// Where the money goes back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreditTo {
    Card,
    /// The card was deleted, or has no room for it below its maximum.
    IssuingWallet,
}

impl CreditTo {
    pub fn as_str(self) -> &'static str {
        match self {
            CreditTo::Card => "card",
            CreditTo::IssuingWallet => "issuing_wallet",
        }
    }
}

/// The card a reversal would credit, as it is under lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardRoom {
    pub deleted: bool,
    /// Its balance (below zero after a forced post).
    pub balance: i64,
    /// The most it may hold.
    pub max_balance: Amount,
}

/// What is credited back, and where: the smaller of what is `asked` and
/// what the debit of `debited` has left after `reversed` came back
/// already. `None` when nothing is left to give back.
pub fn credit_back(debited: Amount, reversed: Amount, asked: Amount, card: CardRoom) -> Option<(Amount, CreditTo)> {
    let left = debited.minor().checked_sub(reversed.minor())?;
    let amount = Amount::from_minor(asked.minor().min(left))?;
    if amount == Amount::ZERO {
        return None;
    }
    Some((amount, card.takes(amount)))
}

impl CardRoom {
    /// Where money given back to this card goes: the card while it lives
    /// and has room below its maximum, else the issuing wallet.
    pub fn takes(&self, amount: Amount) -> CreditTo {
        let fits = self
            .balance
            .checked_add(amount.minor())
            .is_some_and(|after| after <= self.max_balance.minor());
        match !self.deleted && fits {
            true => CreditTo::Card,
            false => CreditTo::IssuingWallet,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn amount(minor: i64) -> Amount {
        Amount::from_minor(minor).unwrap()
    }

    fn room(balance: i64) -> CardRoom {
        CardRoom {
            deleted: false,
            balance,
            max_balance: amount(500_000),
        }
    }

    #[test]
    fn gives_back_what_is_left_to_where_it_fits() {
        assert_eq!(
            credit_back(amount(1_000), amount(0), amount(400), room(0)),
            Some((amount(400), CreditTo::Card))
        );
        assert_eq!(
            credit_back(amount(1_000), amount(700), amount(400), room(0)),
            Some((amount(300), CreditTo::Card))
        );
        assert_eq!(credit_back(amount(1_000), amount(1_000), amount(1), room(0)), None);
        assert_eq!(
            credit_back(amount(1_000), amount(0), amount(1_000), room(499_001)),
            Some((amount(1_000), CreditTo::IssuingWallet))
        );
        assert_eq!(
            credit_back(amount(1_000), amount(0), amount(1_000), room(499_000)),
            Some((amount(1_000), CreditTo::Card))
        );
        let deleted = CardRoom {
            deleted: true,
            ..room(0)
        };
        assert_eq!(
            credit_back(amount(10), amount(0), amount(10), deleted),
            Some((amount(10), CreditTo::IssuingWallet))
        );
        assert_eq!(credit_back(amount(10), amount(0), Amount::ZERO, room(0)), None);
        assert_eq!(
            credit_back(Amount::MAX, amount(0), Amount::MAX, room(i64::MAX)),
            Some((Amount::MAX, CreditTo::IssuingWallet))
        );
    }

    proptest! {
        #[test]
        fn never_more_than_asked_or_left_and_a_card_never_past_its_maximum(
            debited in 0..=Amount::MAX.minor(),
            reversed in 0..=Amount::MAX.minor(),
            asked in 0..=Amount::MAX.minor(),
            balance in -Amount::MAX.minor()..=i64::MAX,
            deleted: bool,
        ) {
            let card = CardRoom { deleted, balance, max_balance: amount(500_000) };
            match credit_back(amount(debited), amount(reversed), amount(asked), card) {
                None => prop_assert!(asked == 0 || reversed >= debited),
                Some((credited, to)) => {
                    prop_assert!(credited.minor() > 0);
                    prop_assert!(credited.minor() <= asked);
                    prop_assert!(credited.minor() <= debited - reversed);
                    if to == CreditTo::Card {
                        prop_assert!(!deleted && balance + credited.minor() <= 500_000);
                    }
                }
            }
        }
    }

    #[test]
    fn kinds_read_back() {
        for kind in ReversalKind::ALL {
            assert_eq!(ReversalKind::parse(kind.as_str()), Some(kind));
        }
    }
}

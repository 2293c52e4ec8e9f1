//! The authorization lifecycle. An authorization is decided like a debit
//! (the same engine: state, spending controls, limits, balance) but puts
//! its amount on hold instead of spending it: the money leaves the card's
//! available balance for the card's held account, and the card's book
//! balance (available plus held) stays. Increments raise an open hold;
//! then one step ends it: a capture (in full, in part, or above the hold
//! within [`OVER_CAPTURE_BPS`]) spends what it captures and releases the
//! rest, a reversal (in full, or in part, which leaves it open) or its
//! expiry releases what is held. A captured authorization is refunded
//! as any approved debit is ([`super::reversal`]).

use super::reversal::{CardRoom, CreditTo};
use crate::Amount;

/// An unended authorization expires this long (7 days) after it was made,
/// unless configured otherwise.
pub const DEFAULT_HOLD_SECS: i64 = 7 * 86_400;

/// A capture may exceed what is held by at most this share, in basis
/// points (15%, the tolerance card networks give tips and fuel), taking
/// the excess from the card's spendable balance.
pub const OVER_CAPTURE_BPS: i64 = 1_500;

/// What a card transaction is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionKind {
    /// Spent at once: the contract's debit (and the maintenance fee).
    Debit,
    /// A hold, until it is captured, reversed or expires.
    Authorization,
    /// A raise of an open authorization's hold.
    Increment,
    /// What an authorization's capture spent.
    Capture,
}

impl TransactionKind {
    pub const ALL: [TransactionKind; 4] = [
        TransactionKind::Debit,
        TransactionKind::Authorization,
        TransactionKind::Increment,
        TransactionKind::Capture,
    ];
    pub const NAMES: [&'static str; 4] = ["debit", "authorization", "increment", "capture"];

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn parse(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// Holds money rather than spending it.
    pub fn holds(self) -> bool {
        matches!(self, TransactionKind::Authorization | TransactionKind::Increment)
    }
}

/// Where an authorization (and its increments) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldState {
    Pending,
    /// Captured: what was not captured was released.
    Closed,
    Reversed,
    Expired,
}

impl HoldState {
    pub const ALL: [HoldState; 4] = [
        HoldState::Pending,
        HoldState::Closed,
        HoldState::Reversed,
        HoldState::Expired,
    ];
    pub const NAMES: [&'static str; 4] = ["pending", "closed", "reversed", "expired"];

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn parse(state: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == state)
    }
}

/// Where a card transaction stands, as stored and shown: a debit's or a
/// capture's decision, or a hold's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionStatus {
    Approved,
    Declined,
    Hold(HoldState),
}

impl TransactionStatus {
    pub const NAMES: [&'static str; 6] = ["approved", "declined", "pending", "closed", "reversed", "expired"];

    pub fn as_str(self) -> &'static str {
        match self {
            TransactionStatus::Approved => Self::NAMES[0],
            TransactionStatus::Declined => Self::NAMES[1],
            TransactionStatus::Hold(state) => state.as_str(),
        }
    }

    pub fn parse(status: &str) -> Option<Self> {
        match status {
            "approved" => Some(TransactionStatus::Approved),
            "declined" => Some(TransactionStatus::Declined),
            other => HoldState::parse(other).map(TransactionStatus::Hold),
        }
    }
}

/// What ends (or lowers) an open hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldStep {
    /// Clears this amount (what is held when `None`) and closes the
    /// authorization.
    Capture(Option<Amount>),
    /// Releases this much (what is held when `None` or more), closing the
    /// authorization as reversed when nothing is left held.
    Reverse(Option<Amount>),
    /// Releases everything held.
    Expire,
}

/// What a step moves, all in the card's currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldMovement {
    /// From the held account to the card's spend.
    pub captured_from_hold: Amount,
    /// From the card to its spend: a capture's excess over the hold.
    pub captured_from_card: Amount,
    /// From the held account back to where `released_to` says.
    pub released: Amount,
    pub released_to: CreditTo,
    /// The authorization's state after the step.
    pub state: HoldState,
}

impl HoldMovement {
    pub fn captured(&self) -> Amount {
        // Both parts are bounded by the hold plus its tolerance.
        Amount::from_minor(self.captured_from_hold.minor() + self.captured_from_card.minor()).unwrap_or(Amount::MAX)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldRefusal {
    /// Only a pending authorization takes a step.
    NotPending(HoldState),
    /// A capture above the hold by more than [`OVER_CAPTURE_BPS`]: the
    /// most it may be.
    AboveTolerance(Amount),
    /// The capture's excess over the hold is more than the card can spend
    /// (or the card is deleted).
    InsufficientBalance,
}

/// The card an excess or a release touches, as it is under lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldCard {
    pub room: CardRoom,
    /// The part of its balance held for the maintenance fee.
    pub fee_hold: Amount,
}

/// The most a capture of an authorization holding `held` may be.
pub fn most_capturable(held: Amount) -> Amount {
    let excess = i128::from(held.minor()) * i128::from(OVER_CAPTURE_BPS) / 10_000;
    i64::try_from(i128::from(held.minor()) + excess)
        .ok()
        .and_then(Amount::from_minor)
        .unwrap_or(Amount::MAX)
}

/// Decides `step` for an authorization in `state` holding `held`.
pub fn settle(state: HoldState, held: Amount, step: HoldStep, card: HoldCard) -> Result<HoldMovement, HoldRefusal> {
    if state != HoldState::Pending {
        return Err(HoldRefusal::NotPending(state));
    }
    let release = |amount: Amount, state| HoldMovement {
        captured_from_hold: Amount::ZERO,
        captured_from_card: Amount::ZERO,
        released: amount,
        released_to: card.room.takes(amount),
        state,
    };
    match step {
        HoldStep::Capture(amount) => {
            let amount = amount.unwrap_or(held);
            let most = most_capturable(held);
            if amount > most {
                return Err(HoldRefusal::AboveTolerance(most));
            }
            let from_hold = amount.min(held);
            let excess = amount.minor() - from_hold.minor();
            let spendable = card.room.balance.saturating_sub(card.fee_hold.minor());
            if excess > 0 && (card.room.deleted || spendable < excess) {
                return Err(HoldRefusal::InsufficientBalance);
            }
            let rest = Amount::from_minor(held.minor() - from_hold.minor()).unwrap_or(Amount::ZERO);
            Ok(HoldMovement {
                captured_from_hold: from_hold,
                captured_from_card: Amount::from_minor(excess).unwrap_or(Amount::ZERO),
                ..release(rest, HoldState::Closed)
            })
        }
        HoldStep::Reverse(Some(amount)) if amount < held => Ok(release(amount, HoldState::Pending)),
        HoldStep::Reverse(_) => Ok(release(held, HoldState::Reversed)),
        HoldStep::Expire => Ok(release(held, HoldState::Expired)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn amount(minor: i64) -> Amount {
        Amount::from_minor(minor).unwrap()
    }

    fn card(balance: i64) -> HoldCard {
        HoldCard {
            room: CardRoom {
                deleted: false,
                balance,
                max_balance: amount(500_000),
            },
            fee_hold: amount(300),
        }
    }

    #[test]
    fn a_capture_spends_what_it_clears_and_releases_the_rest() {
        let all = settle(HoldState::Pending, amount(1_000), HoldStep::Capture(None), card(0)).unwrap();
        assert_eq!(
            (all.captured(), all.released, all.state),
            (amount(1_000), Amount::ZERO, HoldState::Closed)
        );
        let m = settle(
            HoldState::Pending,
            amount(1_000),
            HoldStep::Capture(Some(amount(600))),
            card(0),
        )
        .unwrap();
        assert_eq!(
            (m.captured_from_hold, m.captured_from_card, m.released),
            (amount(600), Amount::ZERO, amount(400))
        );
        assert_eq!((m.state, m.released_to), (HoldState::Closed, CreditTo::Card));
    }

    #[test]
    fn a_capture_above_the_hold_takes_the_excess_within_the_tolerance() {
        assert_eq!(most_capturable(amount(1_000)), amount(1_150));
        let m = settle(
            HoldState::Pending,
            amount(1_000),
            HoldStep::Capture(Some(amount(1_150))),
            card(450),
        )
        .unwrap();
        assert_eq!(
            (m.captured_from_hold, m.captured_from_card, m.released),
            (amount(1_000), amount(150), Amount::ZERO)
        );
        assert_eq!(m.captured(), amount(1_150));
        assert_eq!(
            settle(
                HoldState::Pending,
                amount(1_000),
                HoldStep::Capture(Some(amount(1_151))),
                card(10_000)
            ),
            Err(HoldRefusal::AboveTolerance(amount(1_150)))
        );
        // The excess comes from what the card may spend, fee hold kept.
        assert_eq!(
            settle(
                HoldState::Pending,
                amount(1_000),
                HoldStep::Capture(Some(amount(1_150))),
                card(449)
            ),
            Err(HoldRefusal::InsufficientBalance)
        );
        let mut deleted = card(10_000);
        deleted.room.deleted = true;
        assert_eq!(
            settle(
                HoldState::Pending,
                amount(1_000),
                HoldStep::Capture(Some(amount(1_001))),
                deleted
            ),
            Err(HoldRefusal::InsufficientBalance)
        );
        assert!(
            settle(
                HoldState::Pending,
                amount(1_000),
                HoldStep::Capture(Some(amount(1_000))),
                deleted
            )
            .is_ok()
        );
    }

    #[test]
    fn reversals_and_expiry_release_and_only_a_pending_hold_moves() {
        let part = settle(
            HoldState::Pending,
            amount(1_000),
            HoldStep::Reverse(Some(amount(300))),
            card(0),
        )
        .unwrap();
        assert_eq!((part.released, part.state), (amount(300), HoldState::Pending));
        for step in [
            HoldStep::Reverse(None),
            HoldStep::Reverse(Some(amount(1_000))),
            HoldStep::Reverse(Some(Amount::MAX)),
        ] {
            let all = settle(HoldState::Pending, amount(1_000), step, card(0)).unwrap();
            assert_eq!((all.released, all.state), (amount(1_000), HoldState::Reversed));
        }
        let expired = settle(HoldState::Pending, amount(1_000), HoldStep::Expire, card(499_500)).unwrap();
        assert_eq!(
            (expired.released, expired.state, expired.released_to),
            (amount(1_000), HoldState::Expired, CreditTo::IssuingWallet)
        );
        for state in [HoldState::Closed, HoldState::Reversed, HoldState::Expired] {
            assert_eq!(
                settle(state, amount(1), HoldStep::Expire, card(0)),
                Err(HoldRefusal::NotPending(state))
            );
        }
    }

    #[test]
    fn names_read_back() {
        for kind in TransactionKind::ALL {
            assert_eq!(TransactionKind::parse(kind.as_str()), Some(kind));
        }
        for state in HoldState::ALL {
            assert_eq!(HoldState::parse(state.as_str()), Some(state));
        }
        for name in TransactionStatus::NAMES {
            assert_eq!(
                TransactionStatus::parse(name).map(TransactionStatus::as_str),
                Some(name)
            );
        }
    }

    proptest! {
        /// Whatever the step, the money out of the hold is exactly what
        /// was held when the step ends the authorization, never more than
        /// held, and a capture never spends past the tolerance or the
        /// card's spendable balance.
        #[test]
        fn a_step_moves_no_more_than_is_held_or_allowed(
            held in 0..=Amount::MAX.minor(),
            asked in 0..=Amount::MAX.minor(),
            balance in -Amount::MAX.minor()..=Amount::MAX.minor(),
            deleted: bool,
            which in 0..4u8,
        ) {
            let step = match which {
                0 => HoldStep::Capture(Some(amount(asked))),
                1 => HoldStep::Reverse(Some(amount(asked))),
                2 => HoldStep::Reverse(None),
                _ => HoldStep::Expire,
            };
            let mut c = card(balance);
            c.room.deleted = deleted;
            if let Ok(m) = settle(HoldState::Pending, amount(held), step, c) {
                let out = m.captured_from_hold.minor() + m.released.minor();
                prop_assert!(out <= held);
                if m.state != HoldState::Pending {
                    prop_assert_eq!(out, held);
                }
                prop_assert!(m.captured().minor() <= most_capturable(amount(held)).minor());
                if m.captured_from_card.minor() > 0 {
                    prop_assert!(!deleted && balance - 300 >= m.captured_from_card.minor());
                }
                if let HoldStep::Capture(Some(a)) = step {
                    prop_assert_eq!(m.captured(), a);
                }
            }
        }
    }
}

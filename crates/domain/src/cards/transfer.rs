//! Fundings and unloadings: their kinds and states, and the money plan of
//! each step. A plan says which of the card's ledger places money moves
//! between, how much, and under which guards; the store executes it in one
//! transaction with the guards as conditions of its updates (what makes it
//! race-free), and decides nothing else.

use super::MONEY_WINDOW_SECS;
use super::product::Product;
use crate::{Amount, Timestamp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferKind {
    /// From the issuing wallet onto the card.
    Fund,
    /// From the card back to the issuing wallet.
    Unload,
}

impl TransferKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TransferKind::Fund => "fund",
            TransferKind::Unload => "unload",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [TransferKind::Fund, TransferKind::Unload]
            .into_iter()
            .find(|k| k.as_str() == value)
    }
}

/// A transfer's state: `pending` until its job settles it, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferState {
    /// Reserved: the money sits in transit until the job settles it.
    Pending,
    Succeeded,
    Failed,
}

impl TransferState {
    pub fn as_str(self) -> &'static str {
        match self {
            TransferState::Pending => "pending",
            TransferState::Succeeded => "succeeded",
            TransferState::Failed => "failed",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::Pending, Self::Succeeded, Self::Failed]
            .into_iter()
            .find(|s| s.as_str() == value)
    }
}

/// What the settling job decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settlement {
    /// Fund: in transit to the card. Unload: in transit to the wallet.
    Complete,
    /// Back where it came from (to the wallet when a refunded card is gone).
    Reverse,
}

impl Settlement {
    /// The state a pending transfer leaves for: the only transition.
    pub fn state(self) -> TransferState {
        match self {
            Settlement::Complete => TransferState::Succeeded,
            Settlement::Reverse => TransferState::Failed,
        }
    }
}

/// The ledger places a card's money steps move between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// The account's issuing wallet.
    Wallet,
    /// The card's balance.
    Card,
    /// The card's transit account, between a 202 and its settlement.
    Transit,
}

/// One movement and its guards: `from` keeps at least `floor` after it,
/// `to` holds at most `cap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub from: Place,
    pub to: Place,
    pub amount: Amount,
    pub floor: Amount,
    pub cap: Amount,
    /// A completed funding resets the card's count of consecutive declines.
    pub resets_declines: bool,
}

impl Plan {
    fn movement(from: Place, to: Place, amount: Amount) -> Self {
        Plan {
            from,
            to,
            amount,
            floor: Amount::ZERO,
            cap: Amount::MAX,
            resets_declines: false,
        }
    }
}

/// The start of the window a funding or unloading must be outside of: the
/// card's last one of that kind must be at or before it.
pub fn window_start(now: Timestamp) -> Timestamp {
    now.minus(MONEY_WINDOW_SECS)
}

/// Seconds until a card last moved at `last` may move again (at least 1).
pub fn window_wait(last: Option<Timestamp>, now: Timestamp) -> u64 {
    let wait = last.unwrap_or(now).plus(MONEY_WINDOW_SECS).secs_since(now);
    u64::try_from(wait).unwrap_or(0).max(1)
}

/// The reservation of a funding or unloading: into transit, out of the
/// wallet (never below zero) or off the card (never below its held fee).
/// A funding must also fit: see [`Product::funding_fits`], checked under
/// the card's lock.
pub fn reserve(kind: TransferKind, amount: Amount, fee_hold: Amount) -> Plan {
    match kind {
        TransferKind::Fund => Plan::movement(Place::Wallet, Place::Transit, amount),
        TransferKind::Unload => Plan {
            floor: fee_hold,
            ..Plan::movement(Place::Card, Place::Transit, amount)
        },
    }
}

/// Completing a funding onto a card that is gone is refused: reverse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardGone;

/// The settlement of a reserved transfer, out of transit: a completed
/// funding onto the card (never past its product's maximum; if that guard fails,
/// reverse it instead); a completed unloading, or a reversed funding, to
/// the wallet; a reversed unloading back onto the card, or to the wallet
/// when the card is gone.
pub fn settle(
    product: Product,
    kind: TransferKind,
    settlement: Settlement,
    amount: Amount,
    card_live: bool,
) -> Result<Plan, CardGone> {
    match (kind, settlement) {
        (TransferKind::Fund, Settlement::Complete) if !card_live => Err(CardGone),
        (TransferKind::Fund, Settlement::Complete) => Ok(Plan {
            cap: product.max_balance,
            resets_declines: true,
            ..Plan::movement(Place::Transit, Place::Card, amount)
        }),
        (TransferKind::Unload, Settlement::Reverse) if card_live => {
            Ok(Plan::movement(Place::Transit, Place::Card, amount))
        }
        _ => Ok(Plan::movement(Place::Transit, Place::Wallet, amount)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Executes a plan as the store does: all of it, or nothing when a
    /// guard fails.
    fn apply(balances: &mut HashMap<Place, i64>, plan: &Plan) -> bool {
        let a = plan.amount.minor();
        let (from, to) = (balances[&plan.from], balances[&plan.to]);
        if from - a < plan.floor.minor() || to + a > plan.cap.minor() {
            return false;
        }
        *balances.get_mut(&plan.from).unwrap() -= a;
        *balances.get_mut(&plan.to).unwrap() += a;
        true
    }

    #[derive(Debug, Clone)]
    enum Step {
        Reserve(TransferKind, i64),
        Settle(Settlement, bool),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (
                prop_oneof![Just(TransferKind::Fund), Just(TransferKind::Unload)],
                1..=Product::USD.max_balance.minor()
            )
                .prop_map(|(k, a)| Step::Reserve(k, a)),
            (
                prop_oneof![Just(Settlement::Complete), Just(Settlement::Reverse)],
                any::<bool>()
            )
                .prop_map(|(s, live)| Step::Settle(s, live)),
        ]
    }

    proptest! {
        /// Any run of reservations and settlements (the oldest pending
        /// settled first): money is never created or destroyed, the wallet
        /// never goes below zero, the card never below its held fee nor
        /// above its product's maximum, transit never below zero, and once everything
        /// is settled nothing is left in transit.
        #[test]
        fn plans_conserve_money_and_keep_every_guard(
            usd in any::<bool>(),
            wallet in 0..10 * Product::USD.max_balance.minor(),
            fee_hold in 0..=1_500i64,
            steps in proptest::collection::vec(step(), 0..40),
        ) {
            let product = if usd { Product::USD } else { Product::NGN };
            let fee = Amount::from_minor(fee_hold).unwrap();
            let mut b = HashMap::from([(Place::Wallet, wallet), (Place::Card, fee_hold), (Place::Transit, 0)]);
            let total = wallet + fee_hold;
            let mut pending: Vec<(TransferKind, Amount)> = vec![];
            let settle_one = |b: &mut HashMap<Place, i64>, (kind, amount): (TransferKind, Amount), s, live| {
                match settle(product, kind, s, amount, live) {
                    Ok(plan) if apply(b, &plan) => {}
                    // Refused (gone, or the cap): reversed instead, which always applies.
                    _ => assert!(apply(b, &settle(product, kind, Settlement::Reverse, amount, live).unwrap())),
                }
            };
            for step in steps {
                match step {
                    Step::Reserve(kind, a) => {
                        let amount = Amount::from_minor(a).unwrap();
                        let fits = kind == TransferKind::Unload
                            || product.funding_fits(b[&Place::Card], b[&Place::Transit], amount);
                        if fits && apply(&mut b, &reserve(kind, amount, fee)) {
                            pending.push((kind, amount));
                        }
                    }
                    Step::Settle(s, live) if !pending.is_empty() => {
                        settle_one(&mut b, pending.remove(0), s, live);
                    }
                    Step::Settle(..) => {}
                }
                prop_assert_eq!(b.values().sum::<i64>(), total);
                prop_assert!(b[&Place::Wallet] >= 0 && b[&Place::Transit] >= 0);
                prop_assert!(b[&Place::Card] >= fee_hold && b[&Place::Card] <= product.max_balance.minor());
            }
            for p in std::mem::take(&mut pending) {
                settle_one(&mut b, p, Settlement::Complete, true);
            }
            prop_assert_eq!(b[&Place::Transit], 0);
            prop_assert_eq!(b.values().sum::<i64>(), total);
        }
    }

    #[test]
    fn a_completed_funding_onto_a_gone_card_is_refused_and_every_other_settlement_has_a_home() {
        let a = Amount::from_const(100);
        assert_eq!(
            settle(Product::USD, TransferKind::Fund, Settlement::Complete, a, false),
            Err(CardGone)
        );
        let to = |k, s, live| settle(Product::USD, k, s, a, live).unwrap().to;
        assert_eq!(to(TransferKind::Fund, Settlement::Complete, true), Place::Card);
        assert_eq!(to(TransferKind::Fund, Settlement::Reverse, true), Place::Wallet);
        assert_eq!(to(TransferKind::Unload, Settlement::Complete, true), Place::Wallet);
        assert_eq!(to(TransferKind::Unload, Settlement::Reverse, true), Place::Card);
        assert_eq!(to(TransferKind::Unload, Settlement::Reverse, false), Place::Wallet);
        assert!(
            settle(Product::USD, TransferKind::Fund, Settlement::Complete, a, true)
                .unwrap()
                .resets_declines
        );
    }

    #[test]
    fn the_window_wait_is_never_zero_nor_overflows() {
        let at = Timestamp::from_unix;
        assert_eq!(window_wait(Some(at(1_000)), at(1_000)), 300);
        assert_eq!(window_wait(Some(at(1_000)), at(1_299)), 1);
        assert_eq!(window_wait(None, at(5)), 300);
        assert_eq!(
            window_wait(Some(Timestamp::NEVER), at(i64::MIN)),
            u64::try_from(i64::MAX).unwrap()
        );
        assert_eq!(window_start(at(1_000)), at(700));
    }
}

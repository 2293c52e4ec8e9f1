//! A run of settlements (reserved fundings and unloadings out of transit),
//! decided in order against the cards and wallets as the run's transaction
//! locked them. The settling job records a batch in one transaction: each
//! sees the ones before it (a card filled towards its most, a wallet
//! credited), exactly as if each had been its own transaction one after
//! another.

use super::product::Product;
use super::transfer::{Place, Plan, Settlement, TransferKind, settle};
use crate::Amount;

/// A card's money as settlements read and change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettlingCard {
    pub product: Product,
    /// Not deleted: a completed funding may land on it.
    pub live: bool,
    pub balance: i64,
    /// What is reserved to or from the card and not yet settled.
    pub transit: i64,
}

/// Why a settlement is not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsettled {
    /// Completing a funding is refused (the card is gone, or would pass
    /// its most): nothing changed; reverse it instead.
    Refused,
    /// A guard that always holds did not (transit lacks the amount, or a
    /// balance would overflow): the books are not as the reservation left
    /// them, and nothing may be recorded on them.
    Broken,
}

impl SettlingCard {
    /// Decides the settlement of `amount` of `kind` as `settlement` (see
    /// [`settle`]) and applies it when it passes: out of transit, onto the
    /// card (never past the plan's cap) or into `wallet`. Returns the plan
    /// applied.
    pub fn settle(
        &mut self,
        wallet: &mut i64,
        kind: TransferKind,
        settlement: Settlement,
        amount: Amount,
    ) -> Result<Plan, Unsettled> {
        let plan = settle(self.product, kind, settlement, amount, self.live).map_err(|_| Unsettled::Refused)?;
        let left = self
            .transit
            .checked_sub(amount.minor())
            .filter(|left| *left >= plan.floor.minor())
            .ok_or(Unsettled::Broken)?;
        let to = match plan.to {
            Place::Card => &mut self.balance,
            _ => &mut *wallet,
        };
        let landed = to.checked_add(amount.minor()).ok_or(Unsettled::Broken)?;
        if landed > plan.cap.minor() {
            // Only a capped plan (a completed funding) may be refused.
            return Err(match plan.cap < Amount::MAX {
                true => Unsettled::Refused,
                false => Unsettled::Broken,
            });
        }
        *to = landed;
        self.transit = left;
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn amount(n: i64) -> Amount {
        Amount::from_minor(n).unwrap()
    }

    fn card(balance: i64, transit: i64) -> SettlingCard {
        SettlingCard {
            product: Product::USD,
            live: true,
            balance,
            transit,
        }
    }

    #[test]
    fn each_settlement_sees_the_ones_before_it() {
        let max = Product::USD.max_balance.minor();
        let (mut c, mut wallet) = (card(max - 1_500, 3_000), 10);
        let (fund, unload) = (TransferKind::Fund, TransferKind::Unload);
        let plan = c
            .settle(&mut wallet, fund, Settlement::Complete, amount(1_000))
            .unwrap();
        assert!(plan.resets_declines);
        // The first filled the card: the second would pass its most.
        assert_eq!(
            c.settle(&mut wallet, fund, Settlement::Complete, amount(1_000)),
            Err(Unsettled::Refused)
        );
        assert_eq!((c.balance, c.transit, wallet), (max - 500, 2_000, 10));
        c.settle(&mut wallet, fund, Settlement::Reverse, amount(1_000)).unwrap();
        c.settle(&mut wallet, unload, Settlement::Complete, amount(600))
            .unwrap();
        assert_eq!((c.balance, c.transit, wallet), (max - 500, 400, 1_610));
        // Transit holds 400: settling more is a broken book, not a refusal.
        assert_eq!(
            c.settle(&mut wallet, unload, Settlement::Reverse, amount(401)),
            Err(Unsettled::Broken)
        );
        c.live = false;
        assert_eq!(
            c.settle(&mut wallet, fund, Settlement::Complete, amount(1)),
            Err(Unsettled::Refused)
        );
        // An unloading reversed onto a gone card goes to the wallet.
        c.settle(&mut wallet, unload, Settlement::Reverse, amount(400)).unwrap();
        assert_eq!((c.balance, c.transit, wallet), (max - 500, 0, 2_010));
        let mut rich = i64::MAX - 5;
        let mut full = card(0, 10);
        assert_eq!(
            full.settle(&mut rich, unload, Settlement::Complete, amount(10)),
            Err(Unsettled::Broken),
            "a wallet's overflow is never recorded"
        );
    }

    proptest! {
        /// Whatever the run: money only moves out of transit (wallet, card
        /// and transit together hold what they held), transit never goes
        /// below zero, a completed funding never takes the card past its
        /// most, and a refused or broken one changes nothing.
        #[test]
        fn a_run_keeps_every_rule_of_one_settlement_at_a_time(
            live in any::<bool>(),
            start in (0i64..=500_000, 0i64..=1_000_000, 0i64..=1_000_000_000),
            run in prop::collection::vec((any::<bool>(), any::<bool>(), 1i64..600_000), 0..40),
        ) {
            let (balance, transit, wallet) = start;
            let mut c = SettlingCard { live, ..card(balance, transit) };
            let mut wallet = wallet;
            let total = |w: i64, c: &SettlingCard| w + c.balance + c.transit;
            let before_all = total(wallet, &c);
            for (fund, complete, cents) in run {
                let kind = if fund { TransferKind::Fund } else { TransferKind::Unload };
                let settlement = if complete { Settlement::Complete } else { Settlement::Reverse };
                let before = (wallet, c);
                match c.settle(&mut wallet, kind, settlement, amount(cents)) {
                    Ok(plan) => {
                        prop_assert!(c.transit >= 0);
                        prop_assert_eq!(c.transit, before.1.transit - cents);
                        if plan.to == Place::Card && fund {
                            prop_assert!(c.balance <= Product::USD.max_balance.minor());
                        }
                        prop_assert!(live || plan.to == Place::Wallet);
                    }
                    Err(Unsettled::Refused) => {
                        prop_assert!(fund && complete);
                        prop_assert_eq!((wallet, c), before);
                    }
                    Err(Unsettled::Broken) => {
                        prop_assert!(before.1.transit < cents);
                        prop_assert_eq!((wallet, c), before);
                    }
                }
                prop_assert_eq!(total(wallet, &c), before_all);
            }
        }
    }
}

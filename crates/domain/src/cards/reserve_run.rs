//! A run of reservations (fundings and unloadings into transit), decided
//! in order against the cards and wallets as the run's transaction locked
//! them. Group commit records many in one transaction: each sees the ones
//! before it (a wallet drawn down, a card's window taken), exactly as if
//! each had been its own transaction one after another.

use super::product::Product;
use super::transfer::{Place, TransferKind, reserve, window_start, window_wait};
use crate::{Amount, Timestamp};

/// A card's money and windows as reservations read and change them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservingCard {
    pub product: Product,
    pub balance: i64,
    /// What is in transit to or from the card.
    pub transit: i64,
    pub fee_hold: Amount,
    pub last_funded_at: Option<Timestamp>,
    pub last_unloaded_at: Option<Timestamp>,
}

/// Why a reservation is refused, in the order the rules are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The card moved this way less than the window ago: retry in so many
    /// seconds.
    TooSoon(u64),
    /// A funding would take the card past its product's most.
    OverMaxBalance,
    WalletTooLow,
    CardTooLow,
}

impl ReservingCard {
    /// Decides reserving `amount` of `kind` at `now`, the funding drawn from
    /// `wallet`, and applies it when it passes: the card's window, then
    /// (a funding) the card's most with what is in transit, then the
    /// source's floor ([`reserve`]'s plan).
    pub fn reserve(
        &mut self,
        wallet: &mut i64,
        kind: TransferKind,
        amount: Amount,
        now: Timestamp,
    ) -> Result<(), Refusal> {
        let last = match kind {
            TransferKind::Fund => &mut self.last_funded_at,
            TransferKind::Unload => &mut self.last_unloaded_at,
        };
        if last.is_some_and(|at| at > window_start(now)) {
            return Err(Refusal::TooSoon(window_wait(*last, now)));
        }
        if kind == TransferKind::Fund && !self.product.funding_fits(self.balance, self.transit, amount) {
            return Err(Refusal::OverMaxBalance);
        }
        let plan = reserve(kind, amount, self.fee_hold);
        let (from, low) = match plan.from {
            Place::Wallet => (&mut *wallet, Refusal::WalletTooLow),
            _ => (&mut self.balance, Refusal::CardTooLow),
        };
        let left = from
            .checked_sub(amount.minor())
            .filter(|left| *left >= plan.floor.minor());
        let into = self
            .transit
            .checked_add(amount.minor())
            .filter(|t| *t <= plan.cap.minor());
        let (Some(left), Some(into)) = (left, into) else {
            return Err(low);
        };
        *from = left;
        self.transit = into;
        *last = Some(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn card(balance: i64) -> ReservingCard {
        ReservingCard {
            product: Product::USD,
            balance,
            transit: 0,
            fee_hold: Amount::from_const(300),
            last_funded_at: None,
            last_unloaded_at: None,
        }
    }

    fn amount(n: i64) -> Amount {
        Amount::from_minor(n).unwrap()
    }

    #[test]
    fn each_reservation_sees_the_ones_before_it() {
        let now = Timestamp::from_unix(10_000);
        let (mut a, mut b, mut wallet) = (card(300), card(1_300), 1_500);
        assert_eq!(a.reserve(&mut wallet, TransferKind::Fund, amount(1_000), now), Ok(()));
        assert_eq!(
            b.reserve(&mut wallet, TransferKind::Fund, amount(1_000), now),
            Err(Refusal::WalletTooLow)
        );
        assert_eq!(
            a.reserve(&mut wallet, TransferKind::Fund, amount(1), now.plus(299)),
            Err(Refusal::TooSoon(1))
        );
        assert_eq!(
            a.reserve(&mut wallet, TransferKind::Fund, amount(1), now.plus(300)),
            Ok(())
        );
        assert_eq!(
            b.reserve(&mut wallet, TransferKind::Unload, amount(1_001), now),
            Err(Refusal::CardTooLow)
        );
        assert_eq!(b.reserve(&mut wallet, TransferKind::Unload, amount(1_000), now), Ok(()));
        assert_eq!((wallet, a.transit, b.balance, b.transit), (499, 1_001, 300, 1_000));
        let mut full = ReservingCard {
            transit: 499_000,
            ..card(1_000)
        };
        assert_eq!(
            full.reserve(&mut wallet, TransferKind::Fund, amount(1), now),
            Err(Refusal::OverMaxBalance)
        );
    }

    proptest! {
        /// Whatever the run: money only moves into transit (wallet, cards
        /// and transit together hold what they held), no wallet goes below
        /// zero, no card below its held fee by an unloading, no card is
        /// reserved past its most, and a refusal changes nothing.
        #[test]
        fn a_run_keeps_every_rule_of_one_reservation_at_a_time(
            wallet in 0i64..2_000_000,
            balances in prop::collection::vec(300i64..500_000, 1..5),
            run in prop::collection::vec((0usize..5, any::<bool>(), 1i64..600_000, 0i64..400), 0..40),
        ) {
            let mut cards: Vec<ReservingCard> = balances.iter().map(|b| card(*b)).collect();
            let total = |w: i64, cards: &[ReservingCard]| w + cards.iter().map(|c| c.balance + c.transit).sum::<i64>();
            let (start, mut wallet, mut now) = (total(wallet, &cards), wallet, Timestamp::from_unix(1_000));
            for (i, fund, cents, later) in run {
                now = now.plus(later);
                let n = i % cards.len();
                let kind = if fund { TransferKind::Fund } else { TransferKind::Unload };
                let before = (wallet, cards[n]);
                match cards[n].reserve(&mut wallet, kind, amount(cents), now) {
                    Ok(()) => {
                        prop_assert!(wallet >= 0);
                        prop_assert!(cards[n].balance >= cards[n].fee_hold.minor() || fund);
                        prop_assert!(cards[n].balance + cards[n].transit <= Product::USD.max_balance.minor() || !fund);
                    }
                    Err(_) => prop_assert_eq!((wallet, cards[n]), before),
                }
                prop_assert_eq!(total(wallet, &cards), start);
            }
        }
    }
}

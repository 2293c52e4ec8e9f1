//! A run of debits on one card, decided in order against the card as the
//! run's transaction locked it. Group commit records many debits in one
//! transaction: each sees the ones before it (their spend, their balance,
//! their declines, a deletion they caused), exactly as if each had been
//! its own transaction one after another.

use super::authorization::{CardSnapshot, DebitRequest, Decision, authorize};
use super::spending_controls::{SpendingControls, WindowKeys, Windows};
use super::state::{DeletionReason, after_debit};
use crate::Amount;

/// A card's state as debits read and change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebitCard {
    pub frozen: bool,
    /// All money on the card; below zero only after a forced post.
    pub balance: i64,
    pub fee_hold: Amount,
    /// In USD cents.
    pub monthly_limit: Amount,
    /// Approved spend by window, in USD cents.
    pub spend: Windows,
    pub consecutive_declines: i32,
    /// The card's count of approved debits.
    pub approved_count: i64,
    /// Deleted by a debit of the run.
    pub deleted: Option<DeletionReason>,
}

/// What one debit of a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebitStep {
    pub decision: Decision,
    /// The approval's number on the card; none for a decline or a hold.
    pub approved_seq: Option<i64>,
    /// The deletion this (declined) debit carried out.
    pub deletion: Option<DeletionReason>,
}

impl DebitCard {
    /// Decides `debit`, made at `at`, under `controls` and applies it to
    /// the card. `None`: an earlier debit of the run deleted the card, so
    /// for this one there is no card (as for a debit arriving after the
    /// deletion).
    pub fn apply(&mut self, debit: &DebitRequest, at: WindowKeys, controls: &[&SpendingControls]) -> Option<DebitStep> {
        if self.deleted.is_some() {
            return None;
        }
        let snapshot = CardSnapshot {
            frozen: self.frozen,
            deleted: false,
            balance: self.balance,
            fee_hold: self.fee_hold,
            spent: self.spend.at(at).1,
            monthly_limit: self.monthly_limit,
        };
        let decision = authorize(&snapshot, debit, controls);
        let declined = match decision {
            Decision::Approve => None,
            Decision::Decline(reason) => Some(reason),
        };
        let (consecutive, deletion) = after_debit(declined, self.consecutive_declines);
        self.consecutive_declines = consecutive;
        self.deleted = deletion;
        let mut approved_seq = None;
        if declined.is_none() {
            // An approval passed the balance and limit rules, so these
            // stay within the card's ranges; saturating keeps them total.
            self.balance = self.balance.saturating_sub(debit.amount.minor());
            self.spend.add(at, debit.counts);
            if !debit.holds {
                self.approved_count = self.approved_count.saturating_add(1);
                approved_seq = Some(self.approved_count);
            }
        }
        Some(DebitStep {
            decision,
            approved_seq,
            deletion,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::authorization::DeclineReason;
    use crate::cards::product::Product;
    use crate::cards::spending_controls::{Merchant, Window};
    use proptest::prelude::*;

    const MONTH: i32 = 202_611;

    fn card(balance: i64, month_spend: i64) -> DebitCard {
        DebitCard {
            frozen: false,
            balance,
            fee_hold: Amount::from_const(300),
            monthly_limit: Amount::from_const(500_000),
            spend: Windows {
                month: Window {
                    key: MONTH,
                    spend: month_spend,
                },
                ..Windows::default()
            },
            consecutive_declines: 0,
            approved_count: 7,
            deleted: None,
        }
    }

    fn debit(amount: i64, forced: bool, holds: bool) -> DebitRequest<'static> {
        let amount = Amount::from_minor(amount).unwrap();
        DebitRequest {
            amount,
            counts: amount,
            forced,
            holds,
            raises: None,
            merchant: Merchant::default(),
        }
    }

    /// A time of `month`, on one day of it.
    fn at(month: i32) -> WindowKeys {
        WindowKeys { day: 0, week: 0, month }
    }

    #[test]
    fn each_debit_sees_the_ones_before_it() {
        let mut c = card(1_300, 0);
        let step = c.apply(&debit(600, false, false), at(MONTH), &[]).unwrap();
        assert_eq!((step.decision, step.approved_seq), (Decision::Approve, Some(8)));
        let step = c.apply(&debit(600, false, false), at(MONTH), &[]).unwrap();
        assert_eq!(step.decision, Decision::Decline(DeclineReason::InsufficientBalance));
        assert_eq!((c.balance, c.consecutive_declines, c.spend.month.spend), (700, 1, 600));
        let step = c.apply(&debit(400, false, false), at(MONTH), &[]).unwrap();
        assert_eq!(
            (step.approved_seq, c.balance, c.consecutive_declines),
            (Some(9), 300, 0)
        );
    }

    #[test]
    fn a_new_month_starts_its_spend_from_nothing() {
        let mut c = card(10_000, 499_000);
        assert_eq!(
            c.apply(&debit(2_000, false, false), at(MONTH), &[]).unwrap().decision,
            Decision::Decline(DeclineReason::MonthlyLimit)
        );
        assert_eq!(
            c.apply(&debit(2_000, false, false), at(MONTH + 1), &[])
                .unwrap()
                .decision,
            Decision::Approve
        );
        assert_eq!((c.spend.month.key, c.spend.month.spend), (MONTH + 1, 2_000));
    }

    #[test]
    fn a_debit_of_an_earlier_month_counts_in_the_cards_month() {
        let mut c = card(10_000, 0);
        assert_eq!(
            c.apply(&debit(2_000, false, false), at(MONTH + 1), &[])
                .unwrap()
                .decision,
            Decision::Approve
        );
        assert_eq!(
            c.apply(&debit(1_000, false, false), at(MONTH), &[]).unwrap().decision,
            Decision::Approve
        );
        assert_eq!((c.spend.month.key, c.spend.month.spend), (MONTH + 1, 3_000));
    }

    #[test]
    fn after_a_deletion_the_run_has_no_card() {
        let mut c = card(1_000, 0);
        assert_eq!(
            c.apply(&debit(5_000, true, false), at(MONTH), &[]).unwrap().decision,
            Decision::Approve
        );
        let step = c.apply(&debit(1, false, false), at(MONTH), &[]).unwrap();
        assert_eq!(step.decision, Decision::Decline(DeclineReason::NegativeBalance));
        assert_eq!(step.deletion, Some(DeletionReason::NegativeRepeat));
        assert_eq!(c.apply(&debit(1, false, false), at(MONTH), &[]), None);
        let mut c = DebitCard {
            consecutive_declines: crate::cards::MAX_CONSECUTIVE_DECLINES - 1,
            ..card(0, 0)
        };
        assert_eq!(
            c.apply(&debit(1, false, false), at(MONTH), &[]).unwrap().deletion,
            Some(DeletionReason::Declines)
        );
        assert_eq!(c.apply(&debit(1, false, false), at(MONTH), &[]), None);
    }

    proptest! {
        /// Whatever the run, its approvals are numbered on from the card's
        /// count, take exactly their amounts from the balance, never leave
        /// the spendable balance below zero but by a forced post (and then
        /// never below the largest debit), never pass the monthly limit or
        /// a control's daily limit, and nothing follows a deletion.
        #[test]
        fn a_run_keeps_every_rule_of_one_debit_at_a_time(
            balance in 0i64..2_000_000,
            spent in 0i64..500_000,
            daily in 1i64..3_000_000,
            run in prop::collection::vec((1i64..=1_000_000, any::<bool>(), -1i32..2, any::<bool>()), 0..40),
        ) {
            let start = card(balance, spent);
            let mut c = start;
            let (mut approved, mut numbered) = (0i64, start.approved_count);
            let mut deleted_at = None;
            let controls = SpendingControls {
                limits: crate::cards::spending_controls::Limits {
                    daily: Some(Amount::from_minor(daily).unwrap()),
                    ..Default::default()
                },
                ..Default::default()
            };
            for (i, (amount, forced, month, holds)) in run.iter().enumerate() {
                let before = c;
                let step = c.apply(&debit(*amount, *forced, *holds), at(MONTH + month), &[&controls]);
                let Some(step) = step else {
                    prop_assert!(deleted_at.is_some(), "no card only after a deletion");
                    prop_assert_eq!(c, before);
                    continue;
                };
                prop_assert!(deleted_at.is_none(), "a debit after the deletion at {:?} was decided", deleted_at);
                if step.deletion.is_some() {
                    deleted_at = Some(i);
                }
                match step.decision {
                    Decision::Approve => {
                        approved += amount;
                        if *holds {
                            prop_assert_eq!(step.approved_seq, None);
                        } else {
                            numbered += 1;
                            prop_assert_eq!(step.approved_seq, Some(numbered));
                        }
                        prop_assert!(c.spend.month.spend <= c.monthly_limit.minor());
                        prop_assert!(c.spend.day.spend <= daily);
                        if *forced {
                            prop_assert!(c.balance >= -Product::USD.max_debit.minor());
                        } else {
                            prop_assert!(c.balance >= c.fee_hold.minor());
                        }
                    }
                    Decision::Decline(_) => {
                        prop_assert_eq!(step.approved_seq, None);
                        prop_assert_eq!((c.balance, c.spend.month.spend, c.approved_count), (before.balance, before.spend.month.spend, before.approved_count));
                    }
                }
            }
            prop_assert_eq!(start.balance - c.balance, approved);
            prop_assert!(c.spend.month.key >= start.spend.month.key, "the spend month never moves back");
            prop_assert_eq!(c.approved_count, numbered);
        }
    }
}

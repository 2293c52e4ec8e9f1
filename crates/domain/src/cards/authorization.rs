//! The authorization engine: one pure decision per card debit, from the
//! card's state, balances, spend by window and spending controls. The HTTP
//! sandbox debit, the processor's real-time endpoint and the live
//! connectors' gateway all ask it.

use super::spending_controls::{Control, Merchant, SpendingControls, Spent};
use crate::Amount;

/// What the engine knows of the card when a debit arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardSnapshot {
    pub frozen: bool,
    pub deleted: bool,
    /// All money on the card, in its minor units; below zero only after a
    /// forced post.
    pub balance: i64,
    /// The part of the balance held for the monthly maintenance fee.
    pub fee_hold: Amount,
    /// Approved spend in each window of the debit's time, in USD cents as
    /// each debit counted (see [`DebitRequest::counts`]).
    pub spent: Spent,
    /// In USD cents.
    pub monthly_limit: Amount,
}

/// A debit the network asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebitRequest<'a> {
    /// In the card's currency.
    pub amount: Amount,
    /// What it counts against the monthly limit, in USD cents: the amount
    /// of a USD card's debit, a Naira card's converted at the rate in
    /// force (`Product::counts_against_limit`).
    pub counts: Amount,
    /// A network-forced post (for example an offline capture): it may take
    /// the balance below zero; every other rule still applies.
    pub forced: bool,
    /// An authorization's hold (or its increment): approved, it spends
    /// nothing yet, so it is not numbered among the card's transactions
    /// (its capture is).
    pub holds: bool,
    /// An increment: what its authorization counts so far, in USD cents
    /// (see [`SpendingControls::refusal`]).
    pub raises: Option<Amount>,
    /// What the spending controls look at.
    pub merchant: Merchant<'a>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclineReason {
    CardFrozen,
    CardDeleted,
    InsufficientBalance,
    MonthlyLimit,
    /// A card already below zero received another debit: it is deleted.
    NegativeBalance,
    /// A 3-D Secure challenge failed: three wrong OTPs, or expired.
    ThreeDsFailed,
    /// A spending control of the card or of the account refused it.
    SpendingControl(Control),
}

impl DeclineReason {
    /// A stable code for the processor endpoint and the event.
    pub fn code(self) -> &'static str {
        match self {
            DeclineReason::CardFrozen => "card_frozen",
            DeclineReason::CardDeleted => "card_deleted",
            DeclineReason::InsufficientBalance => "insufficient_balance",
            DeclineReason::MonthlyLimit => "monthly_limit_exceeded",
            DeclineReason::NegativeBalance => "negative_balance",
            DeclineReason::ThreeDsFailed => "three_ds_failed",
            DeclineReason::SpendingControl(control) => match control {
                Control::Category => "spending_control_category",
                Control::Channel => "spending_control_channel",
                Control::Country => "spending_control_country",
                Control::PerAuthorization => "spending_control_limit_per_authorization",
                Control::Daily => "spending_control_limit_daily",
                Control::Weekly => "spending_control_limit_weekly",
                Control::Monthly => "spending_control_limit_monthly",
                Control::Lifetime => "spending_control_limit_lifetime",
            },
        }
    }

    /// The `decline_reason` text of `card_debit_event.declined`.
    pub fn text(self) -> &'static str {
        match self {
            DeclineReason::CardFrozen => "The card is frozen",
            DeclineReason::CardDeleted => "The card is deleted",
            DeclineReason::InsufficientBalance => {
                "Insufficient balance: the card balance cannot cover the merchant charge and fee"
            }
            DeclineReason::MonthlyLimit => "The card's monthly spending limit would be exceeded",
            DeclineReason::NegativeBalance => {
                "The card balance is negative and another negative transaction arrived: the card is deleted"
            }
            DeclineReason::ThreeDsFailed => "3-D Secure was not completed: three wrong OTPs, or the challenge expired",
            DeclineReason::SpendingControl(control) => match control {
                Control::Category => "A spending control does not allow this merchant category",
                Control::Channel => "A spending control does not allow this channel",
                Control::Country => "A spending control does not allow this merchant country",
                Control::PerAuthorization => "A spending control's per-authorization limit would be exceeded",
                Control::Daily => "A spending control's daily limit would be exceeded",
                Control::Weekly => "A spending control's weekly limit would be exceeded",
                Control::Monthly => "A spending control's monthly limit would be exceeded",
                Control::Lifetime => "A spending control's lifetime limit would be exceeded",
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Decline(DeclineReason),
}

/// Decides one debit under `controls` (the card's and its account's).
/// Order: a deleted card, a frozen card, a card already below zero, the
/// spending controls, the monthly limit, then the spendable balance (the
/// balance less the fee hold), which a forced post may overdraw.
pub fn authorize(card: &CardSnapshot, debit: &DebitRequest, controls: &[&SpendingControls]) -> Decision {
    let amount = debit.amount.minor();
    if card.deleted {
        return Decision::Decline(DeclineReason::CardDeleted);
    }
    if card.frozen {
        return Decision::Decline(DeclineReason::CardFrozen);
    }
    if card.balance < 0 {
        return Decision::Decline(DeclineReason::NegativeBalance);
    }
    let refusal = controls
        .iter()
        .find_map(|c| c.refusal(&debit.merchant, debit.counts, &card.spent, debit.raises));
    if let Some(control) = refusal {
        return Decision::Decline(DeclineReason::SpendingControl(control));
    }
    if card.spent.month.saturating_add(debit.counts.minor()) > card.monthly_limit.minor() {
        return Decision::Decline(DeclineReason::MonthlyLimit);
    }
    let spendable = card.balance.saturating_sub(card.fee_hold.minor());
    if amount > spendable && !debit.forced {
        return Decision::Decline(DeclineReason::InsufficientBalance);
    }
    Decision::Approve
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn card(balance: i64) -> CardSnapshot {
        CardSnapshot {
            frozen: false,
            deleted: false,
            balance,
            fee_hold: Amount::from_const(300),
            spent: Spent::default(),
            monthly_limit: Amount::from_const(500_000),
        }
    }

    fn debit(amount: i64, forced: bool) -> DebitRequest<'static> {
        DebitRequest {
            amount: Amount::from_minor(amount).unwrap(),
            counts: Amount::from_minor(amount).unwrap(),
            forced,
            holds: false,
            raises: None,
            merchant: Merchant::default(),
        }
    }

    #[test]
    fn each_rule_declines_with_its_reason() {
        let d = |c: CardSnapshot, r: DebitRequest| authorize(&c, &r, &[]);
        assert_eq!(d(card(1_300), debit(1_000, false)), Decision::Approve);
        assert_eq!(
            d(card(1_300), debit(1_001, false)),
            Decision::Decline(DeclineReason::InsufficientBalance)
        );
        assert_eq!(d(card(1_300), debit(5_000, true)), Decision::Approve, "forced");
        let frozen = CardSnapshot {
            frozen: true,
            ..card(9_000)
        };
        assert_eq!(d(frozen, debit(1, true)), Decision::Decline(DeclineReason::CardFrozen));
        let deleted = CardSnapshot {
            deleted: true,
            ..card(9_000)
        };
        assert_eq!(
            d(deleted, debit(1, false)),
            Decision::Decline(DeclineReason::CardDeleted)
        );
        assert_eq!(
            d(card(-1), debit(1, true)),
            Decision::Decline(DeclineReason::NegativeBalance)
        );
        let spent = CardSnapshot {
            spent: Spent {
                month: 499_990,
                ..Spent::default()
            },
            ..card(9_000)
        };
        assert_eq!(
            d(spent, debit(11, true)),
            Decision::Decline(DeclineReason::MonthlyLimit)
        );
        assert_eq!(d(spent, debit(10, false)), Decision::Approve);
        assert!(
            DeclineReason::InsufficientBalance
                .text()
                .contains("cannot cover the merchant charge and fee")
        );
        assert_eq!(DeclineReason::MonthlyLimit.code(), "monthly_limit_exceeded");
    }

    #[test]
    fn controls_come_after_the_cards_state_and_before_its_money() {
        use crate::cards::spending_controls::Limits;
        let daily = SpendingControls {
            limits: Limits {
                daily: Some(Amount::from_const(50)),
                ..Limits::default()
            },
            ..SpendingControls::default()
        };
        let open = SpendingControls::default();
        let decide = |c: CardSnapshot, amount| authorize(&c, &debit(amount, false), &[&open, &daily]);
        let refused = Decision::Decline(DeclineReason::SpendingControl(Control::Daily));
        assert_eq!(decide(card(0), 51), refused, "before the balance");
        assert_eq!(decide(card(9_000), 50), Decision::Approve);
        let frozen = CardSnapshot {
            frozen: true,
            ..card(9_000)
        };
        assert_eq!(decide(frozen, 51), Decision::Decline(DeclineReason::CardFrozen));
        assert_eq!(
            DeclineReason::SpendingControl(Control::Daily).code(),
            "spending_control_limit_daily"
        );
    }

    /// Applies a sequence of debits as the store would: an approval
    /// moves the balance and the month's spend.
    fn run(start: i64, limit: i64, debits: &[(i64, bool)]) -> Vec<(CardSnapshot, bool)> {
        let mut c = CardSnapshot {
            monthly_limit: Amount::from_minor(limit).unwrap(),
            ..card(start)
        };
        let mut seen = vec![];
        for &(amount, forced) in debits {
            if authorize(&c, &debit(amount, forced), &[]) == Decision::Approve {
                c.balance -= amount;
                c.spent.month += amount;
                seen.push((c, forced));
            }
        }
        seen
    }

    proptest! {
        #[test]
        fn no_unforced_approval_takes_the_card_below_zero(
            start in 0i64..100_000, limit in 0i64..200_000,
            debits in proptest::collection::vec((1i64..50_000, any::<bool>()), 0..40)
        ) {
            for (after, forced) in run(start, limit, &debits) {
                prop_assert!(after.balance >= 0 || forced, "{after:?}");
                prop_assert!(after.spent.month <= limit);
            }
        }

        #[test]
        fn without_forced_posts_the_fee_hold_is_never_spent(
            start in 300i64..100_000,
            debits in proptest::collection::vec(1i64..50_000, 0..40)
        ) {
            let debits: Vec<(i64, bool)> = debits.into_iter().map(|a| (a, false)).collect();
            for (after, _) in run(start, 1_000_000, &debits) {
                prop_assert!(after.balance >= 300);
            }
        }
    }
}

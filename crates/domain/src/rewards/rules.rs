//! The rules that earn rewards, per account and mode: spending past a
//! threshold in a calendar month, a number of debits in a calendar month,
//! and a spell of inactivity. Each rule earns a cardholder at most one
//! reward per period: the month (GMT) for the first two, the spell (from
//! the last approved debit) for inactivity.

use crate::{Amount, InvalidInput, Timestamp};

/// An account's reward settings in one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewardRules {
    /// The feature switch: off until the operator turns it on.
    pub enabled: bool,
    /// A month's card spending (USD cents) must be greater than this.
    pub spend_threshold: Amount,
    /// This many approved debits in a month earn a reward.
    pub monthly_debits: u32,
    /// This many days without an approved debit earn a reward.
    pub inactivity_days: u32,
}

impl Default for RewardRules {
    /// The contract's defaults: more than 99 USD, 2 debits, 3 weeks.
    fn default() -> Self {
        Self {
            enabled: false,
            spend_threshold: Amount::from_const(9_900),
            monthly_debits: 2,
            inactivity_days: 21,
        }
    }
}

pub const MAX_MONTHLY_DEBITS: u32 = 10_000;
pub const MAX_INACTIVITY_DAYS: u32 = 366;

/// A rule that earns rewards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Spend,
    MonthlyDebits,
    Inactivity,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Spend => "spend",
            Rule::MonthlyDebits => "monthly_debits",
            Rule::Inactivity => "inactivity",
        }
    }
}

/// A cardholder's approved debits in one calendar month, all cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonthActivity {
    /// In USD cents, Naira debits converted.
    pub spent: Amount,
    pub debits: u32,
}

impl RewardRules {
    /// Checks a change: the count and days at least 1 and at most their
    /// bounds (the threshold was bounded where it was parsed).
    pub fn validate(self) -> Result<Self, InvalidInput> {
        if !(1..=MAX_MONTHLY_DEBITS).contains(&self.monthly_debits) {
            let rule = format!("must be 1 to {MAX_MONTHLY_DEBITS}");
            return Err(InvalidInput::new("monthly_debits", rule));
        }
        if !(1..=MAX_INACTIVITY_DAYS).contains(&self.inactivity_days) {
            let rule = format!("must be 1 to {MAX_INACTIVITY_DAYS}");
            return Err(InvalidInput::new("inactivity_days", rule));
        }
        Ok(self)
    }

    /// The month rules `activity` meets (none while the feature is off).
    pub fn earned(&self, activity: MonthActivity) -> Vec<Rule> {
        if !self.enabled {
            return vec![];
        }
        let mut rules = vec![];
        if activity.spent > self.spend_threshold {
            rules.push(Rule::Spend);
        }
        if activity.debits >= self.monthly_debits {
            rules.push(Rule::MonthlyDebits);
        }
        rules
    }

    /// When a cardholder whose last approved debit was at `last` has been
    /// inactive long enough.
    pub fn inactive_from(&self, last: Timestamp) -> Timestamp {
        last.plus(i64::from(self.inactivity_days) * 86_400)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn on() -> RewardRules {
        RewardRules {
            enabled: true,
            ..RewardRules::default()
        }
    }

    fn month(cents: i64, debits: u32) -> MonthActivity {
        MonthActivity {
            spent: Amount::from_minor(cents).unwrap(),
            debits,
        }
    }

    #[test]
    fn the_defaults_are_the_contracts_and_earn_nothing_while_off() {
        let rules = RewardRules::default();
        assert_eq!(
            (
                rules.spend_threshold.minor(),
                rules.monthly_debits,
                rules.inactivity_days
            ),
            (9_900, 2, 21)
        );
        assert!(rules.earned(month(1_000_000, 100)).is_empty());
    }

    #[test]
    fn spending_must_pass_the_threshold_and_debits_reach_the_count() {
        assert_eq!(on().earned(month(9_900, 1)), vec![]);
        assert_eq!(on().earned(month(9_901, 1)), vec![Rule::Spend]);
        assert_eq!(on().earned(month(100, 2)), vec![Rule::MonthlyDebits]);
        assert_eq!(on().earned(month(9_901, 2)), vec![Rule::Spend, Rule::MonthlyDebits]);
    }

    #[test]
    fn changes_are_bounded() {
        for (debits, days, field) in [
            (0, 21, "monthly_debits"),
            (2, 0, "inactivity_days"),
            (2, 367, "inactivity_days"),
        ] {
            let change = RewardRules {
                monthly_debits: debits,
                inactivity_days: days,
                ..on()
            };
            assert_eq!(change.validate().unwrap_err().field, field);
        }
        assert!(on().validate().is_ok());
    }

    proptest! {
        #[test]
        fn the_spend_rule_is_exactly_greater_than(threshold in 0i64..1_000_000, spent in 0i64..2_000_000) {
            let rules = RewardRules { spend_threshold: Amount::from_minor(threshold).unwrap(), ..on() };
            prop_assert_eq!(rules.earned(month(spent, 0)).contains(&Rule::Spend), spent > threshold);
        }

        #[test]
        fn inactivity_is_its_days_after_the_last_debit(last in 0i64..4_000_000_000, days in 1u32..=MAX_INACTIVITY_DAYS) {
            let rules = RewardRules { inactivity_days: days, ..on() };
            let from = rules.inactive_from(Timestamp::from_unix(last));
            prop_assert_eq!(from.unix() - last, i64::from(days) * 86_400);
        }
    }
}

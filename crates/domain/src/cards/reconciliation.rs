//! Money reconciliation with a card processor that keeps books of its
//! own (Sudo): what one of its authorizations moved here against what it
//! says it moved, and the repairs that make the two agree. The use case
//! reads both sides; [`compare`] decides; the stores apply each repair
//! once by its id, so a second run finds nothing left to repair.

use crate::Amount;

/// The reference of a repair's own record: a debit the processor took
/// beyond what is recorded here, or money given back that it never took.
pub fn repair_reference(authorization: &str) -> String {
    format!("{REPAIR_PREFIX}{authorization}")
}

const REPAIR_PREFIX: &str = "reconcile:";

/// The authorization a debit's reference is of: its own, or the one a
/// [`repair_reference`] names.
pub fn authorization_of(reference: &str) -> &str {
    reference.strip_prefix(REPAIR_PREFIX).unwrap_or(reference)
}

/// What the books here hold of one processor authorization.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Here {
    /// The approved debit recorded under the authorization's id (zero:
    /// declined, or none).
    pub debited: Amount,
    /// The repair debit recorded under [`repair_reference`] (zero: none).
    pub repair_debited: Amount,
    /// What was given back of them, by the id it was applied under (a
    /// processor's refund id, its authorization's for a void, or
    /// [`repair_reference`]).
    pub given_back: Vec<(String, Amount)>,
}

/// What the processor says of one authorization.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct There {
    /// What it moved: its captures' sum, else its approved amount; zero
    /// when it declined or reversed the authorization, or does not know it.
    pub moved: Amount,
    /// Its refunds of the authorization, by their ids.
    pub refunds: Vec<(String, Amount)>,
}

/// What kind of difference was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Approved here; declined, reversed or unknown at the processor.
    ApprovedHereOnly,
    /// Approved at the processor (by its timeout default, say); no
    /// approval recorded here.
    ApprovedThereOnly,
    /// Approved on both sides, for different amounts.
    AmountDiffers,
    /// A refund the processor made and this service never applied.
    RefundNotApplied,
    /// A difference a repair was already made for: an operator decides.
    Unresolved,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::ApprovedHereOnly,
        Class::ApprovedThereOnly,
        Class::AmountDiffers,
        Class::RefundNotApplied,
        Class::Unresolved,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Class::ApprovedHereOnly => "approved_here_only",
            Class::ApprovedThereOnly => "approved_there_only",
            Class::AmountDiffers => "amount_differs",
            Class::RefundNotApplied => "refund_not_applied",
            Class::Unresolved => "unresolved",
        }
    }
}

/// What makes a difference go away, applied once by its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// Debit the card what the processor took beyond what is recorded: a
    /// forced post under the authorization's id, or (a record already
    /// holds it) under [`repair_reference`].
    Debit(Amount),
    /// Give back what is recorded beyond what the processor took, under
    /// [`repair_reference`].
    GiveBack(Amount),
    /// Apply the processor's refund, under its id.
    Refund { id: String, amount: Amount },
    /// Nothing is applied (an [`Class::Unresolved`] difference).
    None,
}

/// One difference, and its repair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub class: Class,
    pub repair: Repair,
}

fn total(items: &[(String, Amount)]) -> i128 {
    items.iter().map(|(_, a)| i128::from(a.minor())).sum()
}

/// An amount of a difference: at most [`Amount::MAX`], as every amount
/// compared is.
fn amount(minor: i128) -> Amount {
    Amount::from_minor(i64::try_from(minor).unwrap_or(i64::MAX)).unwrap_or(Amount::MAX)
}

/// The differences between one authorization here and at the processor,
/// with their repairs in the order they are applied: a debit of what the
/// processor took beyond what is recorded here first (its refunds may be
/// given back from it), then the refunds never applied here (never more
/// of them than it took), then a give-back of what is recorded beyond
/// what it took. A difference of an authorization a repair was made for
/// already (under [`repair_reference`]) is [`Class::Unresolved`]: a
/// repair is made once, never again.
pub fn compare(authorization: &str, here: &Here, there: &There) -> Vec<Difference> {
    let money = |a: Amount| i128::from(a.minor());
    let applied = |id: &str| here.given_back.iter().any(|(given, _)| given == id);
    let debited = money(here.debited) + money(here.repair_debited);
    let left_here = (debited - total(&here.given_back)).max(0);
    let left_there = (money(there.moved) - total(&there.refunds)).max(0);
    let (theirs_applied, missing): (Vec<_>, Vec<_>) = there.refunds.iter().partition(|(id, _)| applied(id));
    let missing_total: i128 = missing.iter().map(|(_, a)| money(*a)).sum();
    let refundable = (money(there.moved) - theirs_applied.iter().map(|(_, a)| money(*a)).sum::<i128>()).max(0);
    let mut budget = missing_total.min(refundable);
    let owed = left_there - (left_here - budget);
    let repaired = here.repair_debited > Amount::ZERO || applied(&repair_reference(authorization));
    let mut found = vec![];
    let mut pool = left_here;
    if owed > 0 {
        let class = match () {
            _ if repaired => Class::Unresolved,
            _ if here.debited == Amount::ZERO => Class::ApprovedThereOnly,
            _ => Class::AmountDiffers,
        };
        let repair = match class {
            Class::Unresolved => Repair::None,
            _ => {
                pool += owed;
                Repair::Debit(amount(owed))
            }
        };
        found.push(Difference { class, repair });
    }
    for (id, refund) in missing {
        let back = money(*refund).min(budget).min(pool);
        if back > 0 {
            found.push(Difference {
                class: Class::RefundNotApplied,
                repair: Repair::Refund {
                    id: id.clone(),
                    amount: amount(back),
                },
            });
            budget -= back;
            pool -= back;
        }
    }
    if owed < 0 {
        let (class, repair) = match () {
            _ if repaired => (Class::Unresolved, Repair::None),
            _ if there.moved == Amount::ZERO => (Class::ApprovedHereOnly, Repair::GiveBack(amount(-owed))),
            _ => (Class::AmountDiffers, Repair::GiveBack(amount(-owed))),
        };
        found.push(Difference { class, repair });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn a(minor: i64) -> Amount {
        Amount::from_minor(minor).unwrap()
    }

    /// The repairs as the stores apply them: a give-back is bounded by
    /// what the debits have left.
    fn apply(authorization: &str, here: &Here, found: &[Difference]) -> Here {
        let mut after = here.clone();
        let left = |h: &Here| {
            let debited = i128::from(h.debited.minor()) + i128::from(h.repair_debited.minor());
            (debited - total(&h.given_back)).max(0)
        };
        for difference in found {
            match &difference.repair {
                Repair::Debit(amount) if after.debited == Amount::ZERO && after.repair_debited == Amount::ZERO => {
                    after.debited = *amount
                }
                Repair::Debit(amount) => after.repair_debited = after.repair_debited.checked_add(*amount).unwrap(),
                Repair::GiveBack(asked) => {
                    let back = i128::from(asked.minor()).min(left(&after));
                    after
                        .given_back
                        .push((repair_reference(authorization), super::amount(back)));
                }
                Repair::Refund { id, amount: asked } => {
                    let back = i128::from(asked.minor()).min(left(&after));
                    after.given_back.push((id.clone(), super::amount(back)));
                }
                Repair::None => {}
            }
        }
        after
    }

    #[test]
    fn a_repair_reference_names_its_authorization() {
        assert_eq!(authorization_of(&repair_reference("au_1")), "au_1");
        assert_eq!(authorization_of("au_1"), "au_1");
    }

    #[test]
    fn each_class_is_found_and_repaired() {
        let declined_there = There::default();
        let approved_here = Here {
            debited: a(1_000),
            ..Here::default()
        };
        assert_eq!(
            compare("au", &approved_here, &declined_there),
            [Difference {
                class: Class::ApprovedHereOnly,
                repair: Repair::GiveBack(a(1_000))
            }]
        );
        let approved_there = There {
            moved: a(700),
            refunds: vec![("rf".into(), a(200))],
        };
        assert_eq!(
            compare("au", &Here::default(), &approved_there),
            [
                Difference {
                    class: Class::ApprovedThereOnly,
                    repair: Repair::Debit(a(700))
                },
                Difference {
                    class: Class::RefundNotApplied,
                    repair: Repair::Refund {
                        id: "rf".into(),
                        amount: a(200)
                    }
                },
            ]
        );
        let more_there = There {
            moved: a(1_250),
            refunds: vec![],
        };
        assert_eq!(
            compare("au", &approved_here, &more_there),
            [Difference {
                class: Class::AmountDiffers,
                repair: Repair::Debit(a(250))
            }]
        );
        // Repaired once already, and different again: an operator's.
        let repaired = Here {
            given_back: vec![(repair_reference("au"), a(1_000))],
            debited: a(2_000),
            ..Here::default()
        };
        assert_eq!(
            compare("au", &repaired, &declined_there),
            [Difference {
                class: Class::Unresolved,
                repair: Repair::None
            }]
        );
    }

    fn side() -> impl Strategy<Value = (Here, There)> {
        let money = prop_oneof![
            0..5_000i64,
            Just(0),
            Just(Amount::MAX.minor()),
            Just(Amount::MAX.minor() - 1)
        ];
        let ids = prop::collection::vec(("rf[0-3]", money.clone()), 0..4);
        (
            money.clone(),
            prop_oneof![Just(0i64), money.clone()],
            ids.clone(),
            money,
            ids,
        )
            .prop_map(|(debited, repair_debited, given_back, moved, refunds)| {
                let items = |v: Vec<(String, i64)>| {
                    let mut seen = std::collections::HashSet::new();
                    v.into_iter()
                        .filter(|(id, _)| seen.insert(id.clone()))
                        .map(|(id, m)| (id, a(m)))
                        .collect::<Vec<_>>()
                };
                // The stores never give back more than was debited.
                let mut left = i128::from(debited) + i128::from(repair_debited);
                let given_back = items(given_back)
                    .into_iter()
                    .map(|(id, asked)| {
                        let back = i128::from(asked.minor()).min(left);
                        left -= back;
                        (id, amount(back))
                    })
                    .collect();
                let here = Here {
                    debited: a(debited),
                    repair_debited: a(repair_debited),
                    given_back,
                };
                let there = There {
                    moved: a(moved),
                    refunds: items(refunds),
                };
                (here, there)
            })
    }

    proptest! {
        /// One run's repairs leave nothing to repair: a second run finds
        /// no difference, or only the ones an operator must decide.
        #[test]
        fn a_second_run_repairs_nothing((here, there) in side()) {
            let first = compare("au", &here, &there);
            let after = apply("au", &here, &first);
            let second = compare("au", &after, &there);
            prop_assert!(
                second.iter().all(|d| d.repair == Repair::None),
                "{first:?} then {second:?}"
            );
            if first.iter().all(|d| d.repair != Repair::None) && here.repair_debited == Amount::ZERO
                && !here.given_back.iter().any(|(id, _)| *id == repair_reference("au"))
            {
                prop_assert!(second.is_empty(), "{first:?} then {second:?}");
            }
        }

        /// A repair never gives back more than the debits here have left,
        /// and debits only what the processor moved.
        #[test]
        fn repairs_stay_within_both_sides((here, there) in side()) {
            let debited = i128::from(here.debited.minor()) + i128::from(here.repair_debited.minor());
            let left = (debited - total(&here.given_back)).max(0);
            let found = compare("au", &here, &there);
            let debits: i128 = found.iter().map(|d| match d.repair {
                Repair::Debit(a) => i128::from(a.minor()),
                _ => 0,
            }).sum();
            let back: i128 = found.iter().map(|d| match &d.repair {
                Repair::GiveBack(a) | Repair::Refund { amount: a, .. } => i128::from(a.minor()),
                _ => 0,
            }).sum();
            prop_assert!(debits <= i128::from(there.moved.minor()), "{found:?}");
            prop_assert!(back <= left + debits, "{found:?}");
            let nothing = |d: &Difference| matches!(d.repair,
                Repair::Debit(a) | Repair::GiveBack(a) | Repair::Refund { amount: a, .. } if a == Amount::ZERO);
            prop_assert!(!found.iter().any(nothing), "{found:?}");
        }
    }
}

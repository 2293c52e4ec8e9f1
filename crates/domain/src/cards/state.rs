//! A card's life: active, frozen, or deleted for a reason. The one
//! transition function every use case goes through; the store applies a
//! transition only to a card still in a state that allows it (a deleted
//! card's row is never changed again).

use super::authorization::DeclineReason;

/// Why a card was deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeletionReason {
    /// `DELETE /cards/delete_card/{id}`.
    Requested,
    /// Its cardholder was deleted.
    CardholderDeleted,
    /// No transaction for three months.
    Inactivity,
    /// Too many consecutive insufficient-balance declines.
    Declines,
    /// A debit arrived while the balance was already negative.
    NegativeRepeat,
    /// Replaced by a new card that took its balance.
    Migrated,
    /// Its processor terminated it (Sudo's `card.terminated`).
    ProcessorTerminated,
}

impl DeletionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DeletionReason::Requested => "requested",
            DeletionReason::CardholderDeleted => "cardholder_deleted",
            DeletionReason::Inactivity => "inactivity",
            DeletionReason::Declines => "declines",
            DeletionReason::NegativeRepeat => "negative_repeat",
            DeletionReason::Migrated => "migrated",
            DeletionReason::ProcessorTerminated => "processor_terminated",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Requested,
            Self::CardholderDeleted,
            Self::Inactivity,
            Self::Declines,
            Self::NegativeRepeat,
            Self::Migrated,
            Self::ProcessorTerminated,
        ]
        .into_iter()
        .find(|r| r.as_str() == value)
    }
}

/// After a debit: the card's new count of consecutive insufficient-balance
/// declines (an approval resets it), and the deletion the debit carries
/// out: a debit on a negative balance, or the 15th such decline in a row.
pub fn after_debit(declined: Option<DeclineReason>, consecutive_before: i32) -> (i32, Option<DeletionReason>) {
    let consecutive = match declined {
        None => 0,
        Some(DeclineReason::InsufficientBalance) => consecutive_before.saturating_add(1),
        Some(_) => consecutive_before,
    };
    let deletion = match declined {
        Some(DeclineReason::NegativeBalance) => Some(DeletionReason::NegativeRepeat),
        Some(_) if consecutive >= super::MAX_CONSECUTIVE_DECLINES => Some(DeletionReason::Declines),
        _ => None,
    };
    (consecutive, deletion)
}

/// What a card is. (The service never blocks a card for fraud: the
/// contract's `blocked_due_to_fraud` is always false.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardState {
    Active,
    Frozen,
    Deleted(DeletionReason),
}

/// What may happen to a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardChange {
    Freeze,
    Unfreeze,
    Delete(DeletionReason),
}

/// A change the card's state does not allow: a deleted card stays deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the card is deleted")]
pub struct CardGoneError;

impl CardState {
    /// Freezing a frozen card or unfreezing an active one changes nothing
    /// and is allowed (the contract answers 200 either way).
    pub fn apply(self, change: CardChange) -> Result<CardState, CardGoneError> {
        match (self, change) {
            (CardState::Deleted(_), _) => Err(CardGoneError),
            (_, CardChange::Freeze) => Ok(CardState::Frozen),
            (_, CardChange::Unfreeze) => Ok(CardState::Active),
            (_, CardChange::Delete(reason)) => Ok(CardState::Deleted(reason)),
        }
    }

    /// The API's `is_active`: false once frozen (or deleted).
    pub fn is_active(self) -> bool {
        self == CardState::Active
    }

    pub fn is_deleted(self) -> bool {
        matches!(self, CardState::Deleted(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn change() -> impl Strategy<Value = CardChange> {
        prop_oneof![
            Just(CardChange::Freeze),
            Just(CardChange::Unfreeze),
            Just(CardChange::Delete(DeletionReason::Requested)),
            Just(CardChange::Delete(DeletionReason::Inactivity)),
        ]
    }

    proptest! {
        /// Any sequence of changes: the first deletion is final (its reason
        /// kept), and before it the card is active exactly after an
        /// unfreeze or at the start.
        #[test]
        fn deletion_is_final_and_freezing_toggles_only_activity(changes in proptest::collection::vec(change(), 0..20)) {
            let mut state = CardState::Active;
            let mut deleted_for = None;
            for c in changes {
                match state.apply(c) {
                    Ok(next) => {
                        prop_assert!(deleted_for.is_none());
                        if let CardChange::Delete(r) = c { deleted_for = Some(r); }
                        prop_assert_eq!(next.is_active(), c == CardChange::Unfreeze);
                        state = next;
                    }
                    Err(CardGoneError) => prop_assert!(deleted_for.is_some()),
                }
            }
            prop_assert_eq!(state.is_deleted(), deleted_for.is_some());
            if let Some(r) = deleted_for { prop_assert_eq!(state, CardState::Deleted(r)); }
        }
    }

    #[test]
    fn reasons_round_trip() {
        for r in [
            DeletionReason::Requested,
            DeletionReason::CardholderDeleted,
            DeletionReason::Inactivity,
            DeletionReason::Declines,
            DeletionReason::NegativeRepeat,
            DeletionReason::Migrated,
        ] {
            assert_eq!(DeletionReason::parse(r.as_str()), Some(r));
        }
    }

    #[test]
    fn the_fifteenth_insufficient_balance_decline_in_a_row_or_a_negative_repeat_deletes() {
        let insufficient = Some(DeclineReason::InsufficientBalance);
        assert_eq!(after_debit(insufficient, 13), (14, None));
        assert_eq!(after_debit(insufficient, 14), (15, Some(DeletionReason::Declines)));
        assert_eq!(after_debit(None, 14), (0, None));
        assert_eq!(after_debit(Some(DeclineReason::MonthlyLimit), 3), (3, None));
        assert_eq!(
            after_debit(Some(DeclineReason::NegativeBalance), 0),
            (0, Some(DeletionReason::NegativeRepeat))
        );
        assert_eq!(after_debit(insufficient, i32::MAX).0, i32::MAX);
    }
}

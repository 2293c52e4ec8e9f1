//! The double-entry ledger's rules. Every movement of money is an entry of
//! two or more postings whose amounts sum to zero in each currency; a
//! ledger account's balance is the sum of its postings.

use crate::cards::product::Product;
use crate::{Amount, Currency, InvalidInput, Mode};
use AccountKind as K;
use Direction::{In, Out};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::RangeInclusive;

/// The most an issuing wallet holds unless configured otherwise: 10^13
/// minor units (100 billion USD or NGN), a hundredth of [`Amount::MAX`].
pub const DEFAULT_MAX_WALLET: Amount = Amount::from_const(10_000_000_000_000);

/// The largest wallet maximum an operator may set: a tenth of
/// [`Amount::MAX`], so that money the account's own cards return (always
/// taken, past the maximum) has nine tenths of the bound every balance
/// guard keeps to land in.
pub const MAX_WALLET_LIMIT: Amount = Amount::from_const(100_000_000_000_000);

/// How low the accounts that only ever go down (deposits, losses) may
/// go: a thousand times [`Amount::MAX`], 10^16 USD or NGN over an
/// account's life, while two balances and an amount still fit in i64.
const LIFETIME_FLOOR: i64 = -1_000 * Amount::MAX.minor();

/// What a ledger account holds money for, and so which balances it may
/// hold. Every money step keeps each balance in its range; the ledger
/// check reports any balance found outside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountKind {
    /// An account's issuing wallet: `0..=`[`Amount::MAX`]. The maximum
    /// (`max_wallet`) refuses new money in (the sandbox faucet, operator
    /// credits); money coming back from the account's own cards (a
    /// deletion's refund, a settled unloading, a failed funding) is always
    /// taken, so a wallet may stand above it by what its cards returned,
    /// never past the bound every balance guard keeps.
    IssuingWallet,
    /// The sandbox's source of test money, negative by design. Every
    /// unit an account holds in the sandbox came from it, so holding it at
    /// `-max_wallet` or above keeps all the account's sandbox money, its
    /// wallet's included, within the maximum.
    Faucet,
    /// Monthly maintenance fees charged from the account's cards.
    FeeIncome,
    /// The money on a card: at most its product's maximum balance, and
    /// below zero by at most one forced post (its maximum debit).
    Card,
    /// Fundings and unloadings of a card reserved but not yet settled.
    CardTransit,
    /// What a card spent, settled to the network.
    CardSpend,
    /// What a card's pending authorizations hold.
    CardHeld,
    /// Money the account holder paid in, credited to its issuing wallet by
    /// the operator (`issuing wallets credit`): negative by design, as the
    /// faucet is, since every unit credited came from it.
    Deposits,
    /// The negative balances of deleted cards, written off to the account
    /// holder: what forced posts took beyond what the cards held.
    Losses,
}

impl AccountKind {
    pub const ALL: [AccountKind; 9] = [
        AccountKind::IssuingWallet,
        AccountKind::Faucet,
        AccountKind::FeeIncome,
        AccountKind::Card,
        AccountKind::CardTransit,
        AccountKind::CardSpend,
        AccountKind::CardHeld,
        AccountKind::Deposits,
        AccountKind::Losses,
    ];

    /// The kind as stored and reported by `ledger totals`.
    pub fn as_str(self) -> &'static str {
        match self {
            AccountKind::IssuingWallet => "issuing_wallet",
            AccountKind::Faucet => "faucet",
            AccountKind::FeeIncome => "fee_income",
            AccountKind::Card => "card",
            AccountKind::CardTransit => "card_transit",
            AccountKind::CardSpend => "card_spend",
            AccountKind::CardHeld => "card_held",
            AccountKind::Deposits => "deposits",
            AccountKind::Losses => "losses",
        }
    }

    pub fn parse(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// The balances an account of this kind may hold, given the most an
    /// issuing wallet may hold.
    pub fn allowed(self, currency: Currency, max_wallet: Amount) -> RangeInclusive<i64> {
        let max = max_wallet.minor();
        let card = Product::of(currency);
        let (max_balance, max_debit) = (card.max_balance.minor(), card.max_debit.minor());
        match self {
            AccountKind::IssuingWallet => 0..=Amount::MAX.minor(),
            AccountKind::Faucet => -max..=0,
            AccountKind::FeeIncome | AccountKind::CardSpend | AccountKind::CardHeld => 0..=Amount::MAX.minor(),
            AccountKind::Card => -max_debit..=max_balance,
            AccountKind::CardTransit => 0..=max_balance + max_debit,
            AccountKind::Deposits | AccountKind::Losses => LIFETIME_FLOOR..=0,
        }
    }
}

/// What becomes of a card's balance when the card is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeletedBalance {
    /// Nothing is on the card.
    Empty,
    /// The card holds money (its held fee included): it goes back to the
    /// issuing wallet of the card's currency.
    Refund(Amount),
    /// The card is below zero (a forced post): the account holder's losses
    /// account covers it, so no deleted card is left owing.
    WriteOff(Amount),
}

impl DeletedBalance {
    /// `None` for a balance beyond [`Amount::MAX`] either way, which no
    /// card can hold unless the ledger is breached: nothing is moved then.
    pub fn of(balance: i64) -> Option<Self> {
        Some(match balance.cmp(&0) {
            std::cmp::Ordering::Equal => DeletedBalance::Empty,
            std::cmp::Ordering::Greater => DeletedBalance::Refund(Amount::from_minor(balance)?),
            std::cmp::Ordering::Less => DeletedBalance::WriteOff(Amount::from_minor(balance.checked_neg()?)?),
        })
    }
}

/// One side of an entry: `amount` is signed, credit positive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting<A> {
    pub account: A,
    pub currency: Currency,
    pub amount: i64,
}

/// A balanced set of postings, valid by construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<A> {
    postings: Vec<Posting<A>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("an entry needs at least two postings")]
    TooFewPostings,
    #[error("a posting of zero moves nothing")]
    ZeroPosting,
    #[error("postings in {0} do not sum to zero")]
    Unbalanced(&'static str),
}

impl<A> Entry<A> {
    pub fn new(postings: Vec<Posting<A>>) -> Result<Self, EntryError> {
        if postings.len() < 2 {
            return Err(EntryError::TooFewPostings);
        }
        let mut sums: BTreeMap<&'static str, i128> = BTreeMap::new();
        for p in &postings {
            if p.amount == 0 {
                return Err(EntryError::ZeroPosting);
            }
            *sums.entry(p.currency.code()).or_default() += i128::from(p.amount);
        }
        if let Some((code, _)) = sums.into_iter().find(|(_, sum)| *sum != 0) {
            return Err(EntryError::Unbalanced(code));
        }
        Ok(Self { postings })
    }

    /// Moves `amount` from one ledger account to another.
    pub fn transfer(from: A, to: A, currency: Currency, amount: Amount) -> Result<Self, InvalidInput> {
        let minor = amount.minor();
        Self::new(vec![
            Posting {
                account: from,
                currency,
                amount: -minor,
            },
            Posting {
                account: to,
                currency,
                amount: minor,
            },
        ])
        .map_err(|e| InvalidInput::new("amount", e.to_string()))
    }

    pub fn postings(&self) -> &[Posting<A>] {
        &self.postings
    }
}

/// Which way a posting moves money for its account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Money leaves the account (a negative posting).
    Out,
    /// Money enters it (a positive posting).
    In,
}

/// A kind of ledger entry: the business step it records, and the only
/// moves its postings may make. An entry of a kind posting anywhere else
/// (another kind of account, the other way) records nothing its records
/// explain, and `ledger check` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryKind {
    /// As stored in `ledger_entries.kind`.
    pub name: &'static str,
    pub moves: &'static [(AccountKind, Direction)],
    /// Whether live mode may post it: the faucet is test money only, so
    /// live money enters only by operators' credits and the processor's
    /// records.
    pub live: bool,
}

impl EntryKind {
    /// Every kind of entry the service posts.
    pub const ALL: [EntryKind; 13] = [
        // A new card's funding from the wallet, or a migrated card's
        // balance onto its successor (`cards.opened_with`, `closed_with`).
        EntryKind::new(
            "card_funding",
            &[(K::IssuingWallet, Out), (K::Card, Out), (K::Card, In)],
        ),
        EntryKind::new("card_debit", &[(K::Card, Out), (K::CardSpend, In)]),
        EntryKind::new("card_hold", &[(K::Card, Out), (K::CardHeld, In)]),
        EntryKind::new(
            "card_capture",
            &[(K::CardHeld, Out), (K::Card, Out), (K::CardSpend, In)],
        ),
        EntryKind::new(
            "card_hold_release",
            &[(K::CardHeld, Out), (K::Card, In), (K::IssuingWallet, In)],
        ),
        EntryKind::new(
            "card_reversal",
            &[(K::CardSpend, Out), (K::Card, In), (K::IssuingWallet, In)],
        ),
        EntryKind::new(
            "card_transfer_reserve",
            &[(K::IssuingWallet, Out), (K::Card, Out), (K::CardTransit, In)],
        ),
        EntryKind::new(
            "card_transfer_settle",
            &[(K::CardTransit, Out), (K::Card, In), (K::IssuingWallet, In)],
        ),
        EntryKind::new("card_deletion", &[(K::Card, Out), (K::IssuingWallet, In)]),
        EntryKind::new("card_write_off", &[(K::Losses, Out), (K::Card, In)]),
        EntryKind::new("maintenance_fee", &[(K::Card, Out), (K::FeeIncome, In)]),
        EntryKind {
            live: false,
            ..EntryKind::new("wallet_funding", &[(K::Faucet, Out), (K::IssuingWallet, In)])
        },
        EntryKind::new("wallet_credit", &[(K::Deposits, Out), (K::IssuingWallet, In)]),
    ];

    const fn new(name: &'static str, moves: &'static [(AccountKind, Direction)]) -> Self {
        EntryKind {
            name,
            moves,
            live: true,
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name == name)
    }

    /// Whether an entry of this kind, in `mode`, may post `amount` to an
    /// account of `account`'s kind.
    pub fn may_post(&self, mode: Mode, account: AccountKind, amount: i64) -> bool {
        let direction = if amount < 0 { Out } else { In };
        (self.live || !mode.is_live()) && amount != 0 && self.moves.contains(&(account, direction))
    }
}

/// A broken ledger invariant found by the ledger check; as JSON, tagged
/// by `breach` (`issuing ledger check --json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "breach", rename_all = "snake_case")]
pub enum Breach {
    /// An entry's postings do not sum to zero in one currency.
    Unbalanced {
        entry_id: String,
        currency: String,
        sum: i64,
    },
    /// An entry with fewer than two postings.
    TooFewPostings { entry_id: String, postings: i64 },
    /// A cached balance differs from the sum of its postings.
    BalanceMismatch {
        ledger_account: String,
        cached: i64,
        postings: i64,
    },
    /// A balance outside what its kind of account may hold (see
    /// [`AccountKind::allowed`]), or an account of no known kind.
    OutOfRange {
        ledger_account: String,
        balance: i64,
        allowed: RangeInclusive<i64>,
    },
    /// A posting in a currency other than its account's.
    CurrencyMismatch { entry_id: String, ledger_account: String },
    /// An entry posting to a ledger account of another account or mode
    /// than its own: money moves within one account and one mode.
    CrossBooks { entry_id: String, ledger_account: String },
    /// A deleted card whose balance is not zero: deletion refunds or
    /// writes off everything on it.
    DeletedCardHolds { card_id: String, balance: i64 },
    /// A card's transit account differs from what its pending transfers
    /// (fundings and unloadings reserved, not yet settled) hold.
    TransitMismatch {
        card_id: String,
        transit: i64,
        pending: i64,
    },
    /// A posting to a deposits account with no operator credit
    /// (`wallet_credits`) of its entry and amount.
    UnrecordedDeposit { entry_id: String, ledger_account: String },
    /// An entry posting where its kind never moves money (another kind
    /// of account, the other way, a kind live mode never posts), or of a
    /// kind the service never posts.
    Misposted {
        entry_id: String,
        kind: String,
        ledger_account: String,
    },
    /// A posting with no entry of its account and mode.
    OrphanPosting { entry_id: String, ledger_account: String },
    /// A ledger account that is neither one of a card's (named after the
    /// card, of its account and mode) nor one of an account's (named
    /// after its account, mode, kind and currency).
    StrayAccount { ledger_account: String, code: String },
    /// A card with no record of its opening, or whose record of its
    /// closing disagrees with its deletion.
    UnrecordedCard { card_id: String },
    /// What a card's entries of one kind posted differs from what its
    /// records of that kind total (`rule` names both).
    RecordMismatch {
        card_id: String,
        rule: &'static str,
        posted: i64,
        recorded: i64,
    },
    /// A transaction given back (refunded, reversed) beyond its amount, or
    /// given back when it was never approved (a decline, a fee).
    OverGiven {
        transaction_id: String,
        amount: i64,
        given: i64,
    },
    /// An authorization whose capture and reversals took more than it held
    /// plus the over-capture tolerance.
    OverCaptured {
        authorization_id: String,
        held: i64,
        taken: i64,
    },
    /// A card's held account differs from what its pending
    /// authorizations hold.
    HeldMismatch { card_id: String, held: i64, pending: i64 },
    /// A repair reconciliation says it applied has no record of its
    /// amount: its debit, or its give-back (of at most what it asked).
    UnrecordedRepair {
        repair_id: String,
        asked: i64,
        recorded: i64,
    },
    /// A job that moves money (a settlement, a fee) gave up after its last
    /// attempt: money waits in transit, or a fee is uncharged, until an
    /// operator retries it (`issuing jobs retry`).
    ParkedMoneyJob {
        job_id: String,
        kind: String,
        subject: String,
        error: String,
    },
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Breach::Unbalanced {
                entry_id,
                currency,
                sum,
            } => {
                write!(f, "entry {entry_id} is unbalanced in {currency}: postings sum to {sum}")
            }
            Breach::TooFewPostings { entry_id, postings } => {
                write!(
                    f,
                    "entry {entry_id} has {postings} posting(s); at least two are required"
                )
            }
            Breach::BalanceMismatch {
                ledger_account,
                cached,
                postings,
            } => write!(
                f,
                "ledger account {ledger_account} caches balance {cached} but its postings sum to {postings}"
            ),
            Breach::OutOfRange {
                ledger_account,
                balance,
                allowed,
            } => write!(
                f,
                "ledger account {ledger_account} holds {balance}, outside its allowed range {}..={}",
                allowed.start(),
                allowed.end()
            ),
            Breach::CurrencyMismatch {
                entry_id,
                ledger_account,
            } => write!(
                f,
                "entry {entry_id} posts to ledger account {ledger_account} in a currency it does not hold"
            ),
            Breach::CrossBooks {
                entry_id,
                ledger_account,
            } => write!(
                f,
                "entry {entry_id} posts to ledger account {ledger_account} of another account or mode: \
                 an entry moves money within one account and one mode"
            ),
            Breach::DeletedCardHolds { card_id, balance } => write!(
                f,
                "card {card_id} is deleted but holds {balance}: a deleted card holds nothing"
            ),
            Breach::TransitMismatch {
                card_id,
                transit,
                pending,
            } => write!(
                f,
                "card {card_id} holds {transit} in transit but its pending transfers hold {pending}: \
                 transit is what pending transfers hold"
            ),
            Breach::UnrecordedDeposit {
                entry_id,
                ledger_account,
            } => write!(
                f,
                "entry {entry_id} takes from deposits account {ledger_account} with no operator credit \
                 recording it: every deposit credit has its record"
            ),
            Breach::HeldMismatch { card_id, held, pending } => write!(
                f,
                "card {card_id} holds {held} for authorizations but its pending authorizations hold {pending}: \
                 held money is what pending authorizations hold"
            ),
            Breach::Misposted {
                entry_id,
                kind,
                ledger_account,
            } => write!(
                f,
                "entry {entry_id} ({kind}) posts to ledger account {ledger_account}, where its kind moves no \
                 money: each kind of entry moves money only between the accounts of its record"
            ),
            Breach::OrphanPosting {
                entry_id,
                ledger_account,
            } => write!(
                f,
                "a posting to ledger account {ledger_account} names entry {entry_id}, which its account and \
                 mode do not have: every posting belongs to an entry"
            ),
            Breach::StrayAccount { ledger_account, code } => write!(
                f,
                "ledger account {ledger_account} ({code}) is no card's and no account's under its name: every \
                 ledger account is one a card or an account opens"
            ),
            Breach::UnrecordedCard { card_id } => write!(
                f,
                "card {card_id} has no record of its opening, or a record of its closing that disagrees with its \
                 deletion: every card records what its creation and deletion moved"
            ),
            Breach::RecordMismatch {
                card_id,
                rule,
                posted,
                recorded,
            } => write!(
                f,
                "card {card_id}: {rule}: the ledger posted {posted} where the records total {recorded}: \
                 every entry is its record's, and every record has its entry"
            ),
            Breach::OverGiven {
                transaction_id,
                amount,
                given,
            } => write!(
                f,
                "transaction {transaction_id} of {amount} was given back {given}: refunds and reversals \
                 never exceed an approved transaction"
            ),
            Breach::OverCaptured {
                authorization_id,
                held,
                taken,
            } => write!(
                f,
                "authorization {authorization_id} held {held} but its capture and reversals took {taken}: \
                 they never exceed the hold plus its over-capture tolerance"
            ),
            Breach::UnrecordedRepair {
                repair_id,
                asked,
                recorded,
            } => write!(
                f,
                "reconciliation repair {repair_id} of {asked} was applied, but its record holds {recorded}: \
                 a repair's debit is its amount, its give-back at most that"
            ),
            Breach::ParkedMoneyJob {
                job_id,
                kind,
                subject,
                error,
            } => write!(
                f,
                "job {job_id} ({kind} of {subject}) moves money and is parked after its last attempt ({error}): \
                 retry it with `issuing jobs retry {job_id}`"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(account: &'static str, currency: Currency, amount: i64) -> Posting<&'static str> {
        Posting {
            account,
            currency,
            amount,
        }
    }

    /// Each kind moves money out of some account and into another, names
    /// are unique, and only the faucet's funding is sandbox-only.
    #[test]
    fn every_kind_of_entry_moves_money_from_one_place_to_another() {
        let mut names: Vec<&str> = EntryKind::ALL.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EntryKind::ALL.len());
        for kind in EntryKind::ALL {
            assert!(kind.moves.iter().any(|(_, d)| *d == Out), "{}", kind.name);
            assert!(kind.moves.iter().any(|(_, d)| *d == In), "{}", kind.name);
            assert_eq!(kind.live, kind.name != "wallet_funding");
        }
        let debit = EntryKind::parse("card_debit").unwrap();
        assert!(debit.may_post(Mode::Live, K::Card, -5) && debit.may_post(Mode::Live, K::CardSpend, 5));
        assert!(
            !debit.may_post(Mode::Live, K::Card, 5),
            "a debit never credits the card"
        );
        assert!(!debit.may_post(Mode::Live, K::IssuingWallet, 5), "nor a wallet");
        assert!(!debit.may_post(Mode::Test, K::Card, 0), "nor posts nothing");
        let faucet = EntryKind::parse("wallet_funding").unwrap();
        assert!(faucet.may_post(Mode::Test, K::IssuingWallet, 5));
        assert!(
            !faucet.may_post(Mode::Live, K::IssuingWallet, 5),
            "live money never comes from the faucet"
        );
        assert!(EntryKind::parse("card_gift").is_none());
    }

    #[test]
    fn breaches_are_json_tagged_by_their_rule() {
        let breach = Breach::RecordMismatch {
            card_id: "card_1".into(),
            rule: "approved debits",
            posted: 5,
            recorded: 0,
        };
        assert_eq!(
            serde_json::to_value(&breach).unwrap(),
            serde_json::json!({"breach": "record_mismatch", "card_id": "card_1", "rule": "approved debits",
                               "posted": 5, "recorded": 0})
        );
    }

    #[test]
    fn transfer_is_balanced() {
        let e = Entry::transfer("faucet", "wallet", Currency::Usd, Amount::from_minor(500).unwrap()).unwrap();
        let sum: i64 = e.postings().iter().map(|p| p.amount).sum();
        assert_eq!(sum, 0);
        assert_eq!(e.postings()[1].amount, 500);
    }

    #[test]
    fn rejects_unbalanced_short_and_zero() {
        use Currency::*;
        assert_eq!(Entry::new(vec![p("a", Usd, 1)]), Err(EntryError::TooFewPostings));
        assert_eq!(
            Entry::new(vec![p("a", Usd, 1), p("b", Usd, -2)]),
            Err(EntryError::Unbalanced("USD"))
        );
        assert_eq!(
            Entry::new(vec![p("a", Usd, 1), p("b", Ngn, -1)]),
            Err(EntryError::Unbalanced("NGN"))
        );
        assert_eq!(
            Entry::new(vec![p("a", Usd, 0), p("b", Usd, 0)]),
            Err(EntryError::ZeroPosting)
        );
    }

    #[test]
    fn transfer_of_zero_is_refused() {
        assert!(Entry::transfer("a", "b", Currency::Usd, Amount::ZERO).is_err());
    }

    #[test]
    fn breaches_name_what_is_broken() {
        let b = Breach::BalanceMismatch {
            ledger_account: "la_1".into(),
            cached: 5,
            postings: 3,
        };
        assert!(b.to_string().contains("la_1"));
        let b = Breach::OutOfRange {
            ledger_account: "la_w".into(),
            balance: i64::MAX,
            allowed: AccountKind::Faucet.allowed(Currency::Usd, Amount::from_const(100)),
        };
        assert_eq!(
            b.to_string(),
            "ledger account la_w holds 9223372036854775807, outside its allowed range -100..=0"
        );
        let b = Breach::DeletedCardHolds {
            card_id: "card_9".into(),
            balance: 5,
        };
        assert_eq!(
            b.to_string(),
            "card card_9 is deleted but holds 5: a deleted card holds nothing"
        );
    }

    #[test]
    fn kinds_round_trip_and_their_ranges_leave_i64_headroom() {
        for (kind, currency) in AccountKind::ALL.into_iter().flat_map(|k| Currency::ALL.map(|c| (k, c))) {
            assert_eq!(AccountKind::parse(kind.as_str()), Some(kind));
            let range = kind.allowed(currency, Amount::MAX);
            // Two balances of any kinds, plus an amount, still fit in i64.
            let worst = i128::from(range.start().abs().max(range.end().abs())) * 3;
            assert!(worst < i128::from(i64::MAX), "{kind:?} {currency:?}");
        }
        assert_eq!(AccountKind::parse("card_spend:x"), None);
        assert!(
            !AccountKind::Card
                .allowed(Currency::Usd, Amount::MAX)
                .contains(&-9_223_372_036_854_775_507)
        );
    }

    #[test]
    fn a_deleted_cards_balance_goes_to_the_wallet_or_is_written_off() {
        assert_eq!(DeletedBalance::of(0), Some(DeletedBalance::Empty));
        assert_eq!(
            DeletedBalance::of(300),
            Some(DeletedBalance::Refund(Amount::from_const(300)))
        );
        assert_eq!(
            DeletedBalance::of(-25),
            Some(DeletedBalance::WriteOff(Amount::from_const(25)))
        );
        assert_eq!(DeletedBalance::of(i64::MIN), None);
        assert_eq!(DeletedBalance::of(i64::MAX), None);
        assert_eq!(DeletedBalance::of(-Amount::MAX.minor() - 1), None);
    }

    proptest! {
        #[test]
        fn a_deleted_card_is_left_at_zero(balance in any::<i64>()) {
            let left = match DeletedBalance::of(balance) {
                None => {
                    prop_assert!(balance.unsigned_abs() > Amount::MAX.minor().unsigned_abs());
                    return Ok(());
                }
                Some(DeletedBalance::Empty) => balance,
                Some(DeletedBalance::Refund(a)) => balance - a.minor(),
                Some(DeletedBalance::WriteOff(a)) => balance + a.minor(),
            };
            prop_assert_eq!(left, 0);
        }

        #[test]
        fn any_accepted_entry_sums_to_zero_per_currency(
            amounts in proptest::collection::vec((any::<bool>(), -1_000_000i64..1_000_000), 2..8)
        ) {
            let postings: Vec<_> = amounts
                .iter()
                .map(|(usd, a)| p("x", if *usd { Currency::Usd } else { Currency::Ngn }, *a))
                .collect();
            if let Ok(entry) = Entry::new(postings) {
                for c in Currency::ALL {
                    let sum: i64 = entry.postings().iter().filter(|p| p.currency == c).map(|p| p.amount).sum();
                    prop_assert_eq!(sum, 0);
                }
            }
        }

        #[test]
        fn every_positive_transfer_is_accepted(a in 1i64..=Amount::MAX.minor()) {
            prop_assert!(Entry::transfer("a", "b", Currency::Ngn, Amount::from_minor(a).unwrap()).is_ok());
        }
    }
}

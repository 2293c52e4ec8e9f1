//! Card debits, recorded by group commit ([`crate::db::money::committer`]): a batch
//! of debits is one transaction whose statements do not grow with its
//! size. It takes every client reference of the batch at once (a used one
//! is that debit's refusal), locks every card it touches in id order (the
//! global lock order, so concurrent batches and other money steps never
//! deadlock), reads the accounts' spending controls, decides each debit in
//! order with the domain's [`DebitCard::apply`] against that locked state
//! (so debits of one card see each other: their spend in every window of
//! the controls too), and writes the outcome with one statement per table.
//! A refused debit is a decision, not a rollback. If the database fails a
//! batch, its debits are recorded again one by one, so one bad debit
//! cannot fail the others.
//!
//! PostgreSQL gets one prepared statement per table over `unnest`ed arrays
//! ([`crate::db::money::unnest`]); SQLite, where one writer runs at a time and
//! statements are calls into the process, runs the same plan row by row
//! inside the one transaction (diesel-async does not batch-insert there).
//! Over 400 lines as one thing: the debit batch's two plans and the
//! decision they share, read best side by side.

use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::money::batches::{
    Batched, CardOwner, LedgerWrites, Made, balances_of, clock_offsets, clocks_moved, lock_cards, plans_of_this_module,
    release_references, stamps, take_references_pg, take_references_sqlite, to_exactly, unless_empty,
};
use crate::db::money::committer::Committer;
use crate::db::money::ledger::{CardLedger, card_ledger_account_id, post_transfer, transfer_rows};
use crate::db::money::spending_controls::{SpendingRow, stored_controls};
use crate::db::money::steps::{TxError, clear_deleted_balance, wallet};
use crate::db::money::unnest::{InsertDeliveries, InsertEvents, InsertJobs, unnest_statement};
use crate::db::rows::TransactionRow;
use crate::db::schema::{
    card_reversals, card_spending, card_transactions, cards, jobs, ledger_accounts, spending_controls,
};
use crate::db::{DbError, SqliteAsync};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::cards::authorization::{DebitRequest, Decision};
use domain::cards::debit_run::DebitCard;
use domain::cards::hold::{HoldState, TransactionKind, TransactionStatus};
use domain::cards::product::Product;
use domain::cards::spending_controls::{Merchant, SpendingControls, WindowKeys, Windows};
use domain::cards::state::DeletionReason;
use domain::ids::{AccountId, CardholderId};
use domain::{Amount, Currency, Mode};
use ports::StoreError;
use ports::card_transactions::{DebitAttempt, DebitError, DebitOutcome, Notices};
use std::collections::BTreeMap;

/// A debit waiting for its batch.
pub(in crate::db) struct Waiting {
    pub(in crate::db) attempt: DebitAttempt,
    pub(in crate::db) notices: Notices,
}

pub(in crate::db) type Answer = Result<DebitOutcome, DebitError>;

pub(in crate::db) type DebitCommitter = Committer<Waiting, Answer>;

impl Batched for Waiting {
    type Answer = Answer;
    const NAME: &'static str = "debits";

    fn made(&self) -> Option<Made<'_>> {
        let a = &self.attempt;
        Some(Made::new(
            (&a.account_id, a.mode),
            &a.client_reference,
            a.now,
            a.reference_held,
            a.clock_ahead_secs,
        ))
    }

    plans_of_this_module!(failed: DebitError::Store);
}

/// The locked card's state the decisions read.
#[derive(Queryable, Selectable)]
#[diesel(table_name = cards)]
struct LockedCard {
    #[diesel(embed)]
    owner: CardOwner,
    is_active: bool,
    fee_hold: i64,
    card_limit: i64,
    spend_month: i32,
    month_spend: i64,
    consecutive_declines: i32,
    approved_count: i64,
    currency: String,
}

/// The accounts' controls by mode, as the batch read them (a batch holds
/// few accounts: looked up without making a key).
type AccountControls = Vec<(String, bool, SpendingControls)>;

/// A card the batch decides on: as it was locked, as the batch leaves it,
/// and when its last approval and its deletion were.
struct Run {
    locked: LockedCard,
    currency: Currency,
    /// The card's own controls.
    controls: Option<SpendingControls>,
    card: DebitCard,
    approved_at: Option<i64>,
    deleted_at: Option<i64>,
    /// What the batch's approved holds took from the card (the rest of
    /// what left it, the card's spend received).
    held: i64,
}

/// The changes of a batch, one list per table.
#[derive(Default)]
struct Writes {
    transactions: Vec<TransactionRow>,
    events: Vec<(EventRow, JobRow)>,
    /// Approved authorizations' expiries.
    jobs: Vec<JobRow>,
    /// References taken for debits then refused (no card): given back.
    released: Vec<(String, bool, String)>,
    ledger: LedgerWrites,
    /// Cards changed: approvals, declines in a row, spend by window, last
    /// activity, deletion.
    cards: Vec<CardWrite>,
    /// Cards whose spend by window moved: day, week and life (the month's
    /// is on the card): account, card, windows.
    spending: Vec<(String, String, Windows)>,
    /// Cards deleted by a debit: account, mode, card, time.
    deleted: Vec<(AccountId, Mode, String, i64)>,
}

/// A card's counters and state after a batch, as [`UpdateCards`] writes them.
pub(in crate::db) struct CardWrite {
    id: String,
    approved_count: i64,
    consecutive_declines: i32,
    spend: Windows,
    last_activity_at: Option<i64>,
    deleted_at: Option<i64>,
    deleted_reason: Option<&'static str>,
}

/// The decisions of a batch against its locked cards: each debit's
/// answer, and the writes that record them.
fn decide(
    batch: &[&Waiting],
    (taken, moved): (&[bool], &[bool]),
    locked: Vec<LockedCard>,
    balances: &BTreeMap<String, i64>,
    (spending, accounts): (Vec<SpendingRow>, &AccountControls),
    mut pending: BTreeMap<String, Raised>,
) -> Result<(Vec<Answer>, Writes), StoreError> {
    let spending: BTreeMap<String, SpendingRow> = spending.into_iter().map(|r| (r.card_id.clone(), r)).collect();
    let mut runs: BTreeMap<String, Run> = BTreeMap::new();
    for l in locked {
        let balance = balances
            .get(&card_ledger_account_id(&l.owner.id, CardLedger::Balance))
            .copied();
        let (Some(balance), Ok(currency)) = (balance, Currency::parse("currency", &l.currency)) else {
            return Err(StoreError::new(format!(
                "card {} has an unreadable balance or currency",
                l.owner.id
            )));
        };
        let card = DebitCard {
            frozen: !l.is_active,
            balance,
            fee_hold: Amount::from_minor(l.fee_hold).unwrap_or(Amount::ZERO),
            monthly_limit: Amount::from_minor(l.card_limit).unwrap_or(Amount::ZERO),
            spend: SpendingRow::windows(spending.get(&l.owner.id), (l.spend_month, l.month_spend)),
            consecutive_declines: l.consecutive_declines,
            approved_count: l.approved_count,
            deleted: None,
        };
        let controls = spending
            .get(&l.owner.id)
            .map(SpendingRow::controls)
            .transpose()?
            .flatten();
        let run = Run {
            locked: l,
            currency,
            controls,
            card,
            approved_at: None,
            deleted_at: None,
            held: 0,
        };
        runs.insert(run.locked.owner.id.clone(), run);
    }
    let start: BTreeMap<String, DebitCard> = runs.iter().map(|(id, r)| (id.clone(), r.card)).collect();
    let mut writes = Writes::default();
    let mut answers = Vec::with_capacity(batch.len());
    for ((w, &taken), &moved) in batch.iter().zip(taken).zip(moved) {
        let a = &w.attempt;
        if !taken {
            answers.push(Err(DebitError::ReferenceUsed));
            continue;
        }
        let run = runs
            .get_mut(a.card_id.as_str())
            .filter(|r| r.locked.owner.is(&a.account_id, a.mode) && a.currency.is_none_or(|c| c == r.currency));
        // A debit stamped with a clock advanced since is sent back.
        let run = run.filter(|_| !moved);
        // An increment raises a pending authorization of its card only.
        let mut raised = match a.kind {
            TransactionKind::Increment => a
                .authorization_id
                .as_ref()
                .and_then(|id| pending.get_mut(id))
                .filter(|r| r.card_id == a.card_id.as_str()),
            _ => None,
        };
        let orphan = run.is_some() && a.kind == TransactionKind::Increment && raised.is_none();
        let run = run.filter(|_| !orphan);
        let product = run.as_ref().map(|r| Product::of(r.currency));
        let step = run.zip(product).and_then(|(run, product)| {
            let counts = product.counts_against_limit(a.amount, a.rates);
            let so_far = raised.as_ref().map(|r| {
                let sum = Amount::from_minor(r.authorized).unwrap_or(Amount::MAX);
                product.counts_against_limit(sum, a.rates)
            });
            let request = DebitRequest {
                amount: a.amount,
                counts,
                forced: a.forced,
                holds: a.kind.holds(),
                raises: so_far,
                merchant: Merchant {
                    category_code: a.merchant_category_code.as_deref(),
                    group: a.merchant_group.as_deref(),
                    channel: a.channel,
                    country: a.merchant_country,
                },
            };
            let account = accounts
                .iter()
                .find(|(id, live, _)| id == a.account_id.as_str() && *live == a.mode.is_live())
                .map(|(_, _, controls)| controls);
            let controls: Vec<&SpendingControls> = account.into_iter().chain(run.controls.as_ref()).collect();
            let step = run.card.apply(&request, WindowKeys::of(a.now), &controls)?;
            if step.decision == Decision::Approve {
                run.approved_at = Some(a.now.unix());
                if request.holds {
                    run.held = run.held.saturating_add(a.amount.minor());
                }
                if let Some(r) = raised.as_mut() {
                    r.authorized = r.authorized.saturating_add(a.amount.minor());
                }
            }
            if step.deletion.is_some() {
                run.deleted_at = Some(a.now.unix());
            }
            Some((step, run.currency, run.locked.owner.cardholder_id.clone()))
        });
        let Some((step, currency, cardholder)) = step else {
            if !a.reference_held {
                writes
                    .released
                    .push((a.account_id.to_string(), a.mode.is_live(), a.client_reference.clone()));
            }
            answers.push(Err(match (moved, orphan) {
                (true, _) => DebitError::ClockMoved,
                (false, true) => DebitError::NoPendingAuthorization,
                (false, false) => DebitError::CardNotFound,
            }));
            continue;
        };
        let card = a.card_id.as_str();
        let declined = match step.decision {
            Decision::Approve => None,
            Decision::Decline(reason) => Some(reason),
        };
        let status = match (declined, a.kind.holds()) {
            (Some(_), _) => TransactionStatus::Declined,
            (None, true) => TransactionStatus::Hold(HoldState::Pending),
            (None, false) => TransactionStatus::Approved,
        };
        writes.transactions.push(TransactionRow {
            id: a.id.clone(),
            account_id: a.account_id.to_string(),
            livemode: a.mode.is_live(),
            card_id: card.to_string(),
            cardholder_id: cardholder.clone(),
            client_reference: a.client_reference.clone(),
            status: status.as_str().to_string(),
            decline_reason: declined.map(|r| r.code().to_string()),
            amount: a.amount.minor(),
            currency: currency.code().to_string(),
            description: a.description.clone(),
            merchant_category_code: a.merchant_category_code.clone(),
            enriched_data: a.enriched_data.clone(),
            merchant_name: a.merchant_name.clone(),
            created_at: a.now.unix(),
            approved_seq: step.approved_seq,
            kind: a.kind.as_str().to_string(),
            authorization_id: a.authorization_id.clone(),
        });
        if declined.is_none() {
            let (kind, to) = match a.kind.holds() {
                true => ("card_hold", CardLedger::Held),
                false => ("card_debit", CardLedger::Spend),
            };
            if let Some(expiry) = &a.expiry {
                writes.jobs.push(JobRow::new(expiry.clone(), &a.account_id, a.mode));
            }
            writes.ledger.post(transfer_rows(
                &a.account_id,
                a.mode,
                kind,
                (
                    &card_ledger_account_id(card, CardLedger::Balance),
                    &card_ledger_account_id(card, to),
                ),
                currency,
                a.amount,
                a.now.unix(),
            )?);
        }
        let held = match (declined, a.kind) {
            (None, TransactionKind::Authorization) => Some(a.amount),
            (None, TransactionKind::Increment) => raised
                .as_ref()
                .and_then(|r| r.authorized.checked_sub(r.released))
                .and_then(Amount::from_minor),
            _ => None,
        };
        let outcome = DebitOutcome {
            held,
            decision: step.decision,
            card_deleted: step.deletion.is_some(),
            cardholder_id: CardholderId::new(cardholder),
            currency,
        };
        for (event, job) in (w.notices)(&outcome) {
            writes
                .events
                .push((EventRow::new(event), JobRow::new(job, &a.account_id, a.mode)));
        }
        answers.push(Ok(outcome));
    }
    for (id, run) in runs {
        let (before, now) = (start[&id], run.card);
        if now == before {
            continue;
        }
        if let Some(at) = run.deleted_at {
            let owner = AccountId::new(run.locked.owner.account_id.clone());
            writes
                .deleted
                .push((owner, Mode::from_live(run.locked.owner.livemode), id.clone(), at));
        }
        // The card's balance lands exactly where the decisions put it;
        // what left it, the card's spend received.
        let id_of = |which| card_ledger_account_id(&id, which);
        if let Some(moved) = to_exactly(id_of(CardLedger::Balance), before.balance, now.balance)? {
            let spent = (moved.1)
                .checked_neg()
                .and_then(|out| out.checked_sub(run.held))
                .ok_or_else(|| StoreError::new(format!("card {id}: the batch's spend overflows")))?;
            writes.ledger.moves.push(moved);
            for (which, change) in [(CardLedger::Spend, spent), (CardLedger::Held, run.held)] {
                if change != 0 {
                    writes
                        .ledger
                        .moves
                        .push((id_of(which), change, -Amount::MAX.minor(), Amount::MAX.minor()));
                }
            }
        }
        if now.spend != before.spend {
            writes
                .spending
                .push((run.locked.owner.account_id.clone(), id.clone(), now.spend));
        }
        writes.cards.push(CardWrite {
            approved_count: now.approved_count,
            consecutive_declines: now.consecutive_declines,
            spend: now.spend,
            last_activity_at: run.approved_at,
            deleted_at: run.deleted_at,
            deleted_reason: now.deleted.map(DeletionReason::as_str),
            id,
        });
    }
    Ok((answers, writes))
}

/// The column list of [`LockedCard`].
/// The batch's cards' rows of spend by window and controls.
macro_rules! spending_of {
    ($conn:expr, $ids:expr) => {
        card_spending::table
            .filter(card_spending::card_id.eq_any($ids))
            .select(SpendingRow::as_select())
            .load::<SpendingRow>($conn)
    };
}

/// The spending controls of the batch's accounts, in both modes.
macro_rules! account_controls {
    ($conn:expr, $accounts:expr) => {
        spending_controls::table
            .filter(spending_controls::account_id.eq_any($accounts))
            .select((
                spending_controls::account_id,
                spending_controls::livemode,
                spending_controls::controls,
            ))
            .load::<(String, bool, String)>($conn)
    };
}

/// The pending authorizations the batch's increments raise, with their
/// cards, as the batch's locks left them.
macro_rules! pending_of {
    ($conn:expr, $ids:expr) => {
        card_transactions::table
            .filter(
                (card_transactions::id.eq_any($ids))
                    .and(card_transactions::kind.eq(TransactionKind::Authorization.as_str()))
                    .or(card_transactions::authorization_id
                        .eq_any($ids)
                        .and(card_transactions::kind.eq(TransactionKind::Increment.as_str()))),
            )
            .filter(card_transactions::status.eq(HoldState::Pending.as_str()))
            .select(PendingHold::as_select())
            .load::<PendingHold>($conn)
    };
}

/// A pending hold an increment of the batch raises.
#[derive(Queryable, Selectable)]
#[diesel(table_name = card_transactions)]
struct PendingHold {
    id: String,
    card_id: String,
    authorization_id: Option<String>,
    amount: i64,
}

/// What partial reversals released of the batch's increments'
/// authorizations, by authorization.
macro_rules! released_of {
    ($conn:expr, $ids:expr) => {
        card_reversals::table
            .filter(card_reversals::transaction_id.eq_any($ids))
            .select((card_reversals::transaction_id, card_reversals::amount))
            .load::<(String, i64)>($conn)
    };
}

/// A pending authorization an increment of the batch raises.
struct Raised {
    card_id: String,
    /// What it and its increments took (the per-authorization limit
    /// counts it whole), and what partial reversals released of it.
    authorized: i64,
    released: i64,
}

/// The pending authorizations of `rows` by id, with `released`.
fn authorizations(rows: Vec<PendingHold>, released: Vec<(String, i64)>) -> BTreeMap<String, Raised> {
    let mut held: BTreeMap<String, Raised> = BTreeMap::new();
    let (roots, raises): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.authorization_id.is_none());
    for r in roots {
        let (card_id, authorized) = (r.card_id, r.amount);
        held.insert(
            r.id,
            Raised {
                card_id,
                authorized,
                released: 0,
            },
        );
    }
    for r in raises {
        if let Some(a) = r.authorization_id.and_then(|id| held.get_mut(&id)) {
            a.authorized = a.authorized.saturating_add(r.amount);
        }
    }
    for (id, amount) in released {
        if let Some(a) = held.get_mut(&id) {
            a.released = a.released.saturating_add(amount);
        }
    }
    held
}

/// The authorizations the batch's increments raise.
fn raised<'a>(batch: &[&'a Waiting]) -> Vec<&'a str> {
    batch
        .iter()
        .filter_map(|w| w.attempt.authorization_id.as_deref())
        .collect()
}

/// The batch's accounts, once each.
fn account_ids<'a>(batch: &[&'a Waiting]) -> Vec<&'a str> {
    let mut ids: Vec<&str> = batch.iter().map(|w| w.attempt.account_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The controls read, parsed.
fn parsed_controls(rows: Vec<(String, bool, String)>) -> Result<AccountControls, StoreError> {
    rows.into_iter()
        .map(|(account, live, json)| {
            let controls = stored_controls(&json, &format!("account {account}"))?;
            Ok((account, live, controls))
        })
        .collect()
}

/// What follows the decisions on both backends, in the batch's
/// transaction: the card deletions' balance clearing. Deletions are rare,
/// so each keeps statements of its own.
macro_rules! deletions {
    ($conn:expr, $writes:expr) => {{
        let w: &Writes = $writes;
        for (account, mode, card, at) in &w.deleted {
            clear_deleted_balance!($conn, account, *mode, card.as_str(), *at)?;
        }
    }};
}

/// The batch's cards, in id order.
fn card_ids<'a>(batch: &[&'a Waiting]) -> Vec<&'a str> {
    let mut ids: Vec<&str> = batch.iter().map(|w| w.attempt.card_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

fn balance_ids(ids: &[&str]) -> Vec<String> {
    ids.iter()
        .map(|id| card_ledger_account_id(id, CardLedger::Balance))
        .collect()
}

unnest_statement!(
    InsertTransactions of TransactionRow,
    "INSERT INTO card_transactions (id, account_id, livemode, card_id, cardholder_id, client_reference, status, \
     decline_reason, amount, currency, description, merchant_category_code, enriched_data, merchant_name, \
     created_at, approved_seq, kind, authorization_id) SELECT * FROM",
    [
        id: &'a str => Text as "text" = |r| r.id.as_str(),
        account_id: &'a str => Text as "text" = |r| r.account_id.as_str(),
        livemode: bool => Bool as "boolean" = |r| r.livemode,
        card_id: &'a str => Text as "text" = |r| r.card_id.as_str(),
        cardholder_id: &'a str => Text as "text" = |r| r.cardholder_id.as_str(),
        client_reference: &'a str => Text as "text" = |r| r.client_reference.as_str(),
        status: &'a str => Text as "text" = |r| r.status.as_str(),
        decline_reason: Option<&'a str> => Nullable<Text> as "text" = |r| r.decline_reason.as_deref(),
        amount: i64 => BigInt as "bigint" = |r| r.amount,
        currency: &'a str => Text as "text" = |r| r.currency.as_str(),
        description: &'a str => Text as "text" = |r| r.description.as_str(),
        merchant_category_code: Option<&'a str> => Nullable<Text> as "text" = |r| r.merchant_category_code.as_deref(),
        enriched_data: &'a str => Text as "text" = |r| r.enriched_data.as_str(),
        merchant_name: &'a str => Text as "text" = |r| r.merchant_name.as_str(),
        created_at: i64 => BigInt as "bigint" = |r| r.created_at,
        approved_seq: Option<i64> => Nullable<BigInt> as "bigint" = |r| r.approved_seq,
        kind: &'a str => Text as "text" = |r| r.kind.as_str(),
        authorization_id: Option<&'a str> => Nullable<Text> as "text" = |r| r.authorization_id.as_deref(),
    ],
    ""
);

unnest_statement!(
    UpsertSpending of (String, String, Windows),
    "INSERT INTO card_spending (account_id, card_id, day_key, day_spend, week_key, week_spend, lifetime_spend) \
     SELECT * FROM",
    [
        account_id: &'a str => Text as "text" = |(account, _, _)| account.as_str(),
        card_id: &'a str => Text as "text" = |(_, id, _)| id.as_str(),
        day_key: i32 => Integer as "integer" = |(_, _, s)| s.day.key,
        day_spend: i64 => BigInt as "bigint" = |(_, _, s)| s.day.spend,
        week_key: i32 => Integer as "integer" = |(_, _, s)| s.week.key,
        week_spend: i64 => BigInt as "bigint" = |(_, _, s)| s.week.spend,
        lifetime_spend: i64 => BigInt as "bigint" = |(_, _, s)| s.lifetime,
    ],
    "AS d WHERE true ON CONFLICT (account_id, card_id) DO UPDATE SET day_key = excluded.day_key, \
     day_spend = excluded.day_spend, week_key = excluded.week_key, week_spend = excluded.week_spend, \
     lifetime_spend = excluded.lifetime_spend"
);

unnest_statement!(
    UpdateCards of CardWrite,
    "UPDATE cards SET approved_count = d.approved_count, consecutive_declines = d.consecutive_declines, \
     spend_month = d.spend_month, month_spend = d.month_spend, \
     last_activity_at = COALESCE(d.last_activity_at, cards.last_activity_at), \
     deleted_at = d.deleted_at, deleted_reason = d.deleted_reason FROM",
    [
        id: &'a str => Text as "text" = |r| r.id.as_str(),
        approved_count: i64 => BigInt as "bigint" = |r| r.approved_count,
        consecutive_declines: i32 => Integer as "integer" = |r| r.consecutive_declines,
        spend_month: i32 => Integer as "integer" = |r| r.spend.month.key,
        month_spend: i64 => BigInt as "bigint" = |r| r.spend.month.spend,
        last_activity_at: Option<i64> => Nullable<BigInt> as "bigint" = |r| r.last_activity_at,
        deleted_at: Option<i64> => Nullable<BigInt> as "bigint" = |r| r.deleted_at,
        deleted_reason: Option<&'a str> => Nullable<Text> as "text" = |r| r.deleted_reason,
    ],
    "AS d(id, approved_count, consecutive_declines, spend_month, month_spend, last_activity_at, deleted_at, \
     deleted_reason) WHERE cards.id = ANY($1) AND cards.id = d.id AND cards.deleted_at IS NULL"
);

/// PostgreSQL: a batch in four round trips whatever its size, each
/// statement prepared once per connection ([`crate::db::money::unnest`]). After
/// `BEGIN`, one pipelined round trip takes the references, locks the cards
/// in id order and reads their balances (the server runs them in that
/// order), with their spending and their accounts' controls; one more
/// writes every table; then `COMMIT`.
async fn record_pg(conn: &mut AsyncPgConnection, batch: &[&Waiting]) -> Result<Vec<Answer>, TxError<()>> {
    let ids = card_ids(batch);
    let balance_ids = balance_ids(&ids);
    let stamps = stamps(batch);
    let c: &AsyncPgConnection = conn;
    let take = take_references_pg(c, batch);
    let lock = lock_cards!(pg, &mut &*c, &ids, LockedCard);
    let read = balances_of!(&mut &*c, &balance_ids);
    let clocks = clock_offsets!(&mut &*c, &stamps);
    let spending = spending_of!(&mut &*c, &ids);
    let accounts = account_ids(batch);
    let controls = account_controls!(&mut &*c, &accounts);
    let raised = raised(batch);
    let pending = unless_empty(raised.is_empty(), pending_of!(&mut &*c, &raised));
    let released = unless_empty(raised.is_empty(), released_of!(&mut &*c, &raised));
    let (taken, locked, balances, offsets, spending, controls, (pending, released)) =
        tokio::try_join!(take, lock, read, clocks, spending, controls, async {
            tokio::try_join!(pending, released)
        })?;
    let moved = clocks_moved(&stamps, &offsets);
    let balances = balances.into_iter().collect();
    let controls = parsed_controls(controls)?;
    let (answers, w) = decide(
        batch,
        (&taken, &moved),
        locked,
        &balances,
        (spending, &controls),
        authorizations(pending, released),
    )?;

    let release = async { release_references!(&mut &*c, &w.released) };
    let t = &w.transactions;
    let transactions = unless_empty(t.is_empty(), InsertTransactions::of(t).execute(&mut &*c));
    let ledger = w.ledger.write_pg(c);
    let k = &w.cards;
    let cards = unless_empty(k.is_empty(), UpdateCards::of(k).execute(&mut &*c));
    let p = &w.spending;
    let spending = unless_empty(p.is_empty(), UpsertSpending::of(p).execute(&mut &*c));
    // An event for every debit (its approval or decline): one statement
    // for the batch's events, one for their deliveries.
    let (events, deliveries): (Vec<&EventRow>, Vec<&JobRow>) = w.events.iter().map(|(e, j)| (e, j)).unzip();
    let events = unless_empty(events.is_empty(), InsertEvents::of(&events).execute(&mut &*c));
    let deliveries = unless_empty(
        deliveries.is_empty(),
        InsertDeliveries::of(&deliveries).execute(&mut &*c),
    );
    let expiries = unless_empty(w.jobs.is_empty(), InsertJobs::of(&w.jobs).execute(&mut &*c));
    let (_, _, moved, updated, _, _, _, _) = tokio::try_join!(
        release,
        transactions,
        ledger,
        cards,
        spending,
        events,
        deliveries,
        expiries
    )?;
    // Each balance landed where the decisions put it, and each card
    // changed: or the batch fails.
    if !moved || updated != k.len() {
        return Err(TxError::Db(DbError::Refused));
    }
    deletions!(conn, &w);
    Ok(answers)
}

/// SQLite: the same plan row by row, inside the one transaction (one
/// writer at a time; statements are calls into the process, and
/// diesel-async does not batch-insert there).
async fn record_sqlite(conn: &mut SqliteAsync, batch: &[&Waiting]) -> Result<Vec<Answer>, TxError<()>> {
    let taken = take_references_sqlite(conn, batch).await?;
    let ids = card_ids(batch);
    // One writer at a time: the no-op update takes the write lock.
    let locked = lock_cards!(sqlite, conn, &ids, LockedCard).await?;
    let balances: BTreeMap<String, i64> = balances_of!(conn, balance_ids(&ids)).await?.into_iter().collect();
    let stamps = stamps(batch);
    let offsets = clock_offsets!(conn, &stamps).await?;
    let spending = spending_of!(conn, &ids).await?;
    let controls = parsed_controls(account_controls!(conn, account_ids(batch)).await?)?;
    let raised = raised(batch);
    // Not even made when there are none: a SQLite statement made and
    // dropped unrun blocks its thread.
    let (pending, released) = match raised.is_empty() {
        true => (Vec::new(), Vec::new()),
        false => (pending_of!(conn, &raised).await?, released_of!(conn, &raised).await?),
    };
    let (answers, w) = decide(
        batch,
        (&taken, &clocks_moved(&stamps, &offsets)),
        locked,
        &balances,
        (spending, &controls),
        authorizations(pending, released),
    )?;
    release_references!(conn, &w.released)?;
    for row in &w.transactions {
        diesel::insert_into(card_transactions::table)
            .values(row)
            .execute(conn)
            .await?;
    }
    w.ledger.write_sqlite(conn).await?;
    for c in &w.cards {
        diesel::update(cards::table.filter(cards::id.eq(&c.id)))
            .set((
                cards::approved_count.eq(c.approved_count),
                cards::consecutive_declines.eq(c.consecutive_declines),
                cards::spend_month.eq(c.spend.month.key),
                cards::month_spend.eq(c.spend.month.spend),
                c.last_activity_at.map(|at| cards::last_activity_at.eq(at)),
                cards::deleted_at.eq(c.deleted_at),
                cards::deleted_reason.eq(c.deleted_reason),
            ))
            .execute(conn)
            .await?;
    }
    for (account, id, s) in &w.spending {
        let values = (
            card_spending::day_key.eq(s.day.key),
            card_spending::day_spend.eq(s.day.spend),
            card_spending::week_key.eq(s.week.key),
            card_spending::week_spend.eq(s.week.spend),
            card_spending::lifetime_spend.eq(s.lifetime),
        );
        diesel::insert_into(card_spending::table)
            .values((
                card_spending::account_id.eq(account),
                card_spending::card_id.eq(id),
                values,
            ))
            .on_conflict((card_spending::account_id, card_spending::card_id))
            .do_update()
            .set(values)
            .execute(conn)
            .await?;
    }
    deletions!(conn, &w);
    for (event, job) in &w.events {
        store_event!(conn, event, [job]);
    }
    for job in &w.jobs {
        diesel::insert_into(jobs::table).values(job).execute(conn).await?;
    }
    Ok(answers)
}

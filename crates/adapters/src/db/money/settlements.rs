//! Settlements of reserved fundings and unloadings, a batch of them as one
//! transaction whose statements do not grow with its size
//! ([`crate::db::money::batches`]): it locks every card in id order (deleted ones
//! too: a settlement still moves their transit), reads the transfers (only
//! a settlement changes a transfer's state, and it holds the card's lock
//! first, so a transfer read after its card's lock holds still; the state
//! update is guarded anyway), locks the wallets it credits, decides each
//! settlement in order with the domain's [`SettlingCard::settle`] against
//! that locked state, and writes the outcome, with the event reporting
//! each, one statement per table. If the database fails the batch, each
//! settlement is recorded alone.

use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::money::batches::{
    self, Batched, LedgerWrites, Made, balances_of, lock_wallets, plans_of_this_module, unless_empty,
};
use crate::db::money::ledger::{CardLedger, balance_and_transit, card_ledger_account_id, transfer_rows};
use crate::db::money::steps::{Places, TxError, wallet};
use crate::db::money::unnest::{InsertDeliveries, InsertEvents, unnest_statement};
use crate::db::schema::{card_transfers, cards, ledger_accounts};
use crate::db::{DbError, DbPool, SqliteAsync};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::Timestamp;
use domain::cards::product::Product;
use domain::cards::settle_run::{SettlingCard, Unsettled};
use domain::cards::transfer::{Settlement, TransferKind, TransferState};
use ports::StoreError;
use ports::cards::{Settled, SettlementItem, Transfer};
use std::collections::{BTreeMap, BTreeSet};

/// One settlement of a batch, as the store writes it.
pub(in crate::db) struct Settling {
    transfer: Transfer,
    settlement: Settlement,
    event: EventRow,
    delivery: JobRow,
    now: Timestamp,
}

impl Settling {
    pub(in crate::db) fn of(item: SettlementItem) -> Self {
        let t = &item.transfer;
        Settling {
            delivery: JobRow::new(item.delivery, &t.account_id, t.mode),
            event: EventRow::new(item.event),
            transfer: item.transfer,
            settlement: item.settlement,
            now: item.now,
        }
    }
}

/// Records `batch` (see the module's comment): one outcome per item, in
/// order.
pub(in crate::db) async fn settle(pool: &DbPool, batch: Vec<SettlementItem>) -> Vec<Settled> {
    let batch: Vec<Settling> = batch.into_iter().map(Settling::of).collect();
    batches::record(pool, &batch, None).await
}

impl Batched for Settling {
    type Answer = Settled;
    const NAME: &'static str = "settlements";

    fn made(&self) -> Option<Made<'_>> {
        None
    }

    fn failed(e: StoreError) -> Settled {
        Settled::Failed(e.to_string())
    }

    plans_of_this_module!();
}

/// What a batch locks and reads, each sorted: its cards, its transfers,
/// the cards' balance and transit accounts, and the wallets it may credit
/// (any settlement but a completed funding).
struct Locks {
    cards: Vec<String>,
    transfers: Vec<String>,
    card_accounts: Vec<String>,
    wallets: Vec<String>,
}

fn locks(batch: &[&Settling]) -> Locks {
    let sorted = |ids: BTreeSet<String>| ids.into_iter().collect::<Vec<_>>();
    let cards: BTreeSet<String> = batch.iter().map(|s| s.transfer.card_id.to_string()).collect();
    let card_accounts = balance_and_transit(cards.iter().map(String::as_str)).collect();
    let transfers = batch.iter().map(|s| s.transfer.id.to_string()).collect();
    let wallets = batch
        .iter()
        .filter(|s| (s.transfer.kind, s.settlement) != (TransferKind::Fund, Settlement::Complete))
        .map(|s| wallet(&s.transfer.account_id, s.transfer.mode, s.transfer.currency))
        .collect();
    Locks {
        cards: sorted(cards),
        transfers: sorted(transfers),
        card_accounts: sorted(card_accounts),
        wallets: sorted(wallets),
    }
}

/// The changes of a batch, one list per table.
#[derive(Default)]
struct Writes<'a> {
    /// Transfer id, its new state, when.
    transfers: Vec<(String, &'static str, i64)>,
    /// Cards whose consecutive declines a completed funding resets.
    resets: BTreeSet<String>,
    events: Vec<&'a EventRow>,
    deliveries: Vec<&'a JobRow>,
    ledger: LedgerWrites,
}

/// What both plans read: each card locked (id, not deleted) and each
/// transfer's state (id, state).
type Read = (Vec<(String, bool)>, Vec<(String, String)>);

/// The decisions of a batch against what it read and its balances.
fn decide<'a>(
    batch: &[&'a Settling],
    (cards, states): Read,
    balances: &BTreeMap<String, i64>,
) -> Result<(Vec<Settled>, Writes<'a>), StoreError> {
    let cards: BTreeMap<String, bool> = cards.into_iter().collect();
    let mut states: BTreeMap<String, String> = states.into_iter().collect();
    let balance = |id: &str| balances.get(id).copied().unwrap_or(0);
    // Each card as locked, and as the decisions leave it.
    let mut runs: BTreeMap<&str, (SettlingCard, SettlingCard)> = BTreeMap::new();
    let mut wallets: BTreeMap<String, i64> = BTreeMap::new();
    let mut writes = Writes::default();
    let mut answers = Vec::with_capacity(batch.len());
    for s in batch {
        let t = &s.transfer;
        let pending = TransferState::Pending.as_str();
        if states.get(t.id.as_str()).map(String::as_str) != Some(pending) {
            answers.push(Settled::AlreadySettled);
            continue;
        }
        let Some(&live) = cards.get(t.card_id.as_str()) else {
            return Err(StoreError::new(format!(
                "transfer {}: its card {} does not exist",
                t.id, t.card_id
            )));
        };
        let (_, card) = runs.entry(t.card_id.as_str()).or_insert_with(|| {
            let start = SettlingCard {
                product: Product::of(t.currency),
                live,
                balance: balance(&card_ledger_account_id(t.card_id.as_str(), CardLedger::Balance)),
                transit: balance(&card_ledger_account_id(t.card_id.as_str(), CardLedger::Transit)),
            };
            (start, start)
        });
        let places = Places::of(&t.account_id, t.mode, t.card_id.as_str(), t.currency);
        let drawn = wallets
            .entry(places.wallet.clone())
            .or_insert_with_key(|id| balance(id));
        let plan = match card.settle(drawn, t.kind, s.settlement, t.amount) {
            Ok(plan) => plan,
            Err(Unsettled::Refused) => {
                answers.push(Settled::Refused);
                continue;
            }
            Err(Unsettled::Broken) => {
                return Err(StoreError::new(format!(
                    "transfer {}: settling it would break the books (transit lacks the amount, or a balance \
                     would overflow)",
                    t.id
                )));
            }
        };
        let (from, to) = (places.id(plan.from), places.id(plan.to));
        writes.ledger.post(transfer_rows(
            &t.account_id,
            t.mode,
            "card_transfer_settle",
            (from, to),
            t.currency,
            plan.amount,
            s.now.unix(),
        )?);
        let state = s.settlement.state().as_str();
        writes.transfers.push((t.id.to_string(), state, s.now.unix()));
        states.insert(t.id.to_string(), state.to_string());
        if plan.resets_declines {
            writes.resets.insert(t.card_id.to_string());
        }
        writes.events.push(&s.event);
        writes.deliveries.push(&s.delivery);
        answers.push(Settled::Done);
    }
    // Each balance lands exactly where the decisions put it: it held still
    // under the locks, or the batch fails.
    for (id, (start, card)) in runs {
        writes
            .ledger
            .land_card(id, (start.balance, start.transit), (card.balance, card.transit))?;
    }
    for (id, after) in wallets {
        let before = balance(&id);
        writes.ledger.land(id, before, after)?;
    }
    Ok((answers, writes))
}

/// The cards among `ids` with consecutive declines to reset: a card with
/// none is not rewritten (most completed fundings).
#[diesel::dsl::auto_type]
fn declining<'a>(ids: &'a BTreeSet<String>) -> _ {
    cards::table
        .filter(cards::id.eq_any(ids))
        .filter(cards::consecutive_declines.ne(0_i32))
}

unnest_statement!(
    /// Moves pending transfers to their settled state.
    SettleTransfers of (String, &'static str, i64),
    "UPDATE card_transfers SET state = d.state, settled_at = d.settled_at FROM",
    [
        id: &'a str => Text as "text" = |r| r.0.as_str(),
        state: &'a str => Text as "text" = |r| r.1,
        settled_at: i64 => BigInt as "bigint" = |r| r.2,
    ],
    "AS d(id, state, settled_at) WHERE card_transfers.id = ANY($1) AND card_transfers.id = d.id \
     AND card_transfers.state = 'pending'"
);

/// PostgreSQL: after `BEGIN`, one pipelined round trip locks the cards,
/// reads the transfers, locks the wallets and reads the cards' balances
/// (in that order: each statement sees what committed before it); one more
/// writes every table; then `COMMIT`.
async fn record_pg(conn: &mut AsyncPgConnection, batch: &[&Settling]) -> Result<Vec<Settled>, TxError<()>> {
    let p = locks(batch);
    let c: &AsyncPgConnection = conn;
    let lock_cards = cards::table
        .filter(cards::id.eq_any(&p.cards))
        .order(cards::id)
        .for_update()
        .select((cards::id, cards::deleted_at.is_null()))
        .load::<(String, bool)>(&mut &*c);
    let read_transfers = card_transfers::table
        .filter(card_transfers::id.eq_any(&p.transfers))
        .order(card_transfers::id)
        .select((card_transfers::id, card_transfers::state))
        .load::<(String, String)>(&mut &*c);
    let lock_wallets = lock_wallets!(&mut &*c, &p.wallets);
    let read = balances_of!(&mut &*c, &p.card_accounts);
    let (cards, states, wallets, on_cards) = tokio::try_join!(lock_cards, read_transfers, lock_wallets, read)?;
    let balances = wallets.into_iter().chain(on_cards).collect();
    let (answers, w) = decide(batch, (cards, states), &balances)?;

    let t = &w.transfers;
    let transfers = unless_empty(t.is_empty(), SettleTransfers::of(t).execute(&mut &*c));
    let resets = unless_empty(
        w.resets.is_empty(),
        diesel::update(declining(&w.resets))
            .set(cards::consecutive_declines.eq(0))
            .execute(&mut &*c),
    );
    let events = unless_empty(w.events.is_empty(), InsertEvents::of(&w.events).execute(&mut &*c));
    let deliveries = unless_empty(
        w.deliveries.is_empty(),
        InsertDeliveries::of(&w.deliveries).execute(&mut &*c),
    );
    let ledger = w.ledger.write_pg(c);
    let (settled, _, _, _, moved) = tokio::try_join!(transfers, resets, events, deliveries, ledger)?;
    if settled != t.len() || !moved {
        return Err(TxError::Db(DbError::Refused));
    }
    Ok(answers)
}

/// SQLite: the same plan row by row, inside the one transaction.
async fn record_sqlite(conn: &mut SqliteAsync, batch: &[&Settling]) -> Result<Vec<Settled>, TxError<()>> {
    let p = locks(batch);
    // One writer at a time: the no-op update takes the write lock.
    let cards = diesel::update(cards::table.filter(cards::id.eq_any(&p.cards)))
        .set(cards::consecutive_declines.eq(cards::consecutive_declines))
        .returning((cards::id, cards::deleted_at.is_null()))
        .get_results::<(String, bool)>(conn)
        .await?;
    let states = card_transfers::table
        .filter(card_transfers::id.eq_any(&p.transfers))
        .select((card_transfers::id, card_transfers::state))
        .load::<(String, String)>(conn)
        .await?;
    let balances: BTreeMap<String, i64> = balances_of!(conn, p.card_accounts.iter().chain(&p.wallets))
        .await?
        .into_iter()
        .collect();
    let (answers, w) = decide(batch, (cards, states), &balances)?;
    for (id, state, at) in &w.transfers {
        let pending = card_transfers::table
            .filter(card_transfers::id.eq(id))
            .filter(card_transfers::state.eq(TransferState::Pending.as_str()));
        let settled = diesel::update(pending)
            .set((card_transfers::state.eq(*state), card_transfers::settled_at.eq(at)))
            .execute(conn)
            .await?;
        if settled != 1 {
            return Err(TxError::Db(DbError::Refused));
        }
    }
    diesel::update(declining(&w.resets))
        .set(cards::consecutive_declines.eq(0))
        .execute(conn)
        .await?;
    for (event, delivery) in w.events.iter().zip(&w.deliveries) {
        store_event!(conn, event, [*delivery]);
    }
    w.ledger.write_sqlite(conn).await?;
    Ok(answers)
}

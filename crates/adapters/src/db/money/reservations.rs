//! Fundings and unloadings reserved into transit, recorded by group commit
//! ([`crate::db::money::batches`]): a batch is one transaction whose statements do
//! not grow with its size. It takes every client reference at once, locks
//! every card in id order and then every wallet it draws on in id order
//! (the global lock order), decides each reservation in order with the
//! domain's [`ReservingCard::reserve`] against that locked state (so a
//! wallet is drawn down by each funding before the next, and a card's
//! window is taken by the first), and writes the outcome with one
//! statement per table. The hot wallet is locked once per batch.

use crate::db::SqliteAsync;
use crate::db::jobs::queue::JobRow;
use crate::db::money::batches::{
    Batched, CardOwner, LedgerWrites, Made, Reference, balances_of, clock_offsets, clocks_moved, lock_cards,
    lock_wallets, plans_of_this_module, release_references, stamps, take_references_pg, take_references_sqlite,
    unless_empty,
};
use crate::db::money::committer::Committer;
use crate::db::money::ledger::{CardLedger, balance_and_transit, card_ledger_account_id, transfer_rows};
use crate::db::money::steps::{Places, TxError, wallet};
use crate::db::money::unnest::{InsertJobs, unnest_statement};
use crate::db::rows::TransferRow;
use crate::db::schema::{card_transfers, cards, jobs, ledger_accounts};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use domain::cards::product::Product;
use domain::cards::reserve_run::{Refusal, ReservingCard};
use domain::cards::transfer::{TransferKind, TransferState};
use domain::{Amount, Currency, Timestamp};
use ports::StoreError;
use ports::cards::{NewTransfer, ReserveError};
use ports::jobs::NewJob;
use std::collections::BTreeMap;

/// A reservation waiting for its batch, with its settlement job.
pub(in crate::db) struct Waiting {
    pub(in crate::db) transfer: NewTransfer,
    pub(in crate::db) settle: NewJob,
}

pub(in crate::db) type Answer = Result<(), ReserveError>;

pub(in crate::db) type ReserveCommitter = Committer<Waiting, Answer>;

impl Batched for Waiting {
    type Answer = Answer;
    const NAME: &'static str = "reservations";

    fn made(&self) -> Option<Made<'_>> {
        let t = &self.transfer;
        Some(Made::new(
            (&t.account_id, t.mode),
            &t.transaction_reference,
            t.created_at,
            false,
            t.clock_ahead_secs,
        ))
    }

    plans_of_this_module!(failed: ReserveError::Store);
}

/// The locked card's state the decisions read.
#[derive(Queryable, Selectable)]
#[diesel(table_name = cards)]
struct LockedCard {
    #[diesel(embed)]
    owner: CardOwner,
    currency: String,
    fee_hold: i64,
    last_funded_at: Option<i64>,
    last_unloaded_at: Option<i64>,
}

/// The changes of a batch, one list per table.
#[derive(Default)]
struct Writes {
    transfers: Vec<TransferRow>,
    jobs: Vec<JobRow>,
    released: Vec<Reference>,
    ledger: LedgerWrites,
    /// Cards whose windows moved: id, funded at, unloaded at.
    windows: Vec<(String, Option<i64>, Option<i64>)>,
}

/// The batch's cards, in id order; and the ledger accounts the decisions
/// read: each card's balance and transit, and the wallets fundings draw on.
fn places<'a>(batch: &[&'a Waiting]) -> (Vec<&'a str>, Vec<String>, Vec<String>) {
    let mut ids: Vec<&str> = batch.iter().map(|w| w.transfer.card_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let cards = balance_and_transit(ids.iter().copied()).collect();
    let mut wallets: Vec<String> = batch
        .iter()
        .filter(|w| w.transfer.kind == TransferKind::Fund)
        .map(|w| wallet(&w.transfer.account_id, w.transfer.mode, w.transfer.currency))
        .collect();
    wallets.sort_unstable();
    wallets.dedup();
    (ids, cards, wallets)
}

/// The decisions of a batch against its locked cards and wallets; a
/// reservation stamped with a clock advanced since is sent back.
fn decide(
    batch: &[&Waiting],
    (taken, moved): (&[bool], &[bool]),
    locked: Vec<LockedCard>,
    balances: &BTreeMap<String, i64>,
) -> Result<(Vec<Answer>, Writes), StoreError> {
    let mut runs: BTreeMap<String, (LockedCard, ReservingCard)> = BTreeMap::new();
    for l in locked {
        let currency = Currency::parse("currency", &l.currency)
            .map_err(|_| StoreError::new(format!("card {} has an unreadable currency", l.owner.id)))?;
        let balance = |which| {
            balances
                .get(&card_ledger_account_id(&l.owner.id, which))
                .copied()
                .unwrap_or(0)
        };
        let card = ReservingCard {
            product: Product::of(currency),
            balance: balance(CardLedger::Balance),
            transit: balance(CardLedger::Transit),
            fee_hold: Amount::from_minor(l.fee_hold).unwrap_or(Amount::ZERO),
            last_funded_at: l.last_funded_at.map(Timestamp::from_unix),
            last_unloaded_at: l.last_unloaded_at.map(Timestamp::from_unix),
        };
        runs.insert(l.owner.id.clone(), (l, card));
    }
    let start: BTreeMap<String, ReservingCard> = runs.iter().map(|(id, (_, c))| (id.clone(), *c)).collect();
    let mut wallets: BTreeMap<String, i64> = BTreeMap::new();
    let mut writes = Writes::default();
    let mut answers = Vec::with_capacity(batch.len());
    for ((w, &taken), &moved) in batch.iter().zip(taken).zip(moved) {
        let t = &w.transfer;
        if !taken {
            answers.push(Err(ReserveError::ReferenceUsed));
            continue;
        }
        let run = runs
            .get_mut(t.card_id.as_str())
            .filter(|(l, card)| l.owner.is(&t.account_id, t.mode) && card.product.currency == t.currency);
        let decided = match run {
            _ if moved => Err(ReserveError::ClockMoved),
            None => Err(ReserveError::CardNotFound),
            Some((locked, card)) => {
                // Only a funding draws on the wallet (locked and read).
                let mut untouched = 0;
                let drawn = match t.kind {
                    TransferKind::Fund => wallets
                        .entry(wallet(&t.account_id, t.mode, t.currency))
                        .or_insert_with_key(|id| balances.get(id).copied().unwrap_or(0)),
                    TransferKind::Unload => &mut untouched,
                };
                match card.reserve(drawn, t.kind, t.amount, t.created_at) {
                    Ok(()) => Ok(locked.owner.cardholder_id.clone()),
                    Err(refusal) => Err(match refusal {
                        Refusal::TooSoon(wait) => ReserveError::TooSoon(t.kind, wait),
                        Refusal::OverMaxBalance => ReserveError::OverMaxBalance,
                        Refusal::WalletTooLow => ReserveError::WalletTooLow,
                        Refusal::CardTooLow => ReserveError::CardTooLow,
                    }),
                }
            }
        };
        let cardholder_id = match decided {
            Ok(holder) => holder,
            Err(refusal) => {
                writes.released.push((
                    t.account_id.to_string(),
                    t.mode.is_live(),
                    t.transaction_reference.clone(),
                ));
                answers.push(Err(refusal));
                continue;
            }
        };
        let places = Places::of(&t.account_id, t.mode, t.card_id.as_str(), t.currency);
        let from = match t.kind {
            TransferKind::Fund => &places.wallet,
            TransferKind::Unload => &places.card,
        };
        writes.ledger.post(transfer_rows(
            &t.account_id,
            t.mode,
            "card_transfer_reserve",
            (from, &places.transit),
            t.currency,
            t.amount,
            t.created_at.unix(),
        )?);
        writes.transfers.push(TransferRow {
            id: t.id.to_string(),
            account_id: t.account_id.to_string(),
            livemode: t.mode.is_live(),
            card_id: t.card_id.to_string(),
            cardholder_id,
            kind: t.kind.as_str().to_string(),
            amount: t.amount.minor(),
            transaction_reference: t.transaction_reference.clone(),
            state: TransferState::Pending.as_str().to_string(),
            created_at: t.created_at.unix(),
            currency: t.currency.code().to_string(),
        });
        writes.jobs.push(JobRow::new(w.settle.clone(), &t.account_id, t.mode));
        answers.push(Ok(()));
    }
    // Each balance lands exactly where the decisions put it: it held still
    // under the locks, or the batch fails.
    for (id, (_, card)) in &runs {
        let before = start[id];
        writes
            .ledger
            .land_card(id, (before.balance, before.transit), (card.balance, card.transit))?;
        if (card.last_funded_at, card.last_unloaded_at) != (before.last_funded_at, before.last_unloaded_at) {
            let at = |t: Option<Timestamp>| t.map(Timestamp::unix);
            writes
                .windows
                .push((id.clone(), at(card.last_funded_at), at(card.last_unloaded_at)));
        }
    }
    for (id, after) in wallets {
        let before = balances.get(&id).copied().unwrap_or(0);
        writes.ledger.land(id, before, after)?;
    }
    Ok((answers, writes))
}

unnest_statement!(
    InsertTransfers of TransferRow,
    "INSERT INTO card_transfers (id, account_id, livemode, card_id, cardholder_id, kind, amount, \
     transaction_reference, state, created_at, currency) SELECT * FROM",
    [
        id: &'a str => Text as "text" = |r| r.id.as_str(),
        account_id: &'a str => Text as "text" = |r| r.account_id.as_str(),
        livemode: bool => Bool as "boolean" = |r| r.livemode,
        card_id: &'a str => Text as "text" = |r| r.card_id.as_str(),
        cardholder_id: &'a str => Text as "text" = |r| r.cardholder_id.as_str(),
        kind: &'a str => Text as "text" = |r| r.kind.as_str(),
        amount: i64 => BigInt as "bigint" = |r| r.amount,
        transaction_reference: &'a str => Text as "text" = |r| r.transaction_reference.as_str(),
        state: &'a str => Text as "text" = |r| r.state.as_str(),
        created_at: i64 => BigInt as "bigint" = |r| r.created_at,
        currency: &'a str => Text as "text" = |r| r.currency.as_str(),
    ],
    ""
);

unnest_statement!(
    UpdateWindows of (String, Option<i64>, Option<i64>),
    "UPDATE cards SET last_funded_at = d.funded, last_unloaded_at = d.unloaded FROM",
    [
        id: &'a str => Text as "text" = |r| r.0.as_str(),
        funded: Option<i64> => Nullable<BigInt> as "bigint" = |r| r.1,
        unloaded: Option<i64> => Nullable<BigInt> as "bigint" = |r| r.2,
    ],
    "AS d(id, funded, unloaded) WHERE cards.id = ANY($1) AND cards.id = d.id AND cards.deleted_at IS NULL"
);

/// PostgreSQL: after `BEGIN`, one pipelined round trip takes the
/// references, locks the cards, then the wallets, and reads the cards'
/// balances and the sandbox clocks; one more writes every table; then
/// `COMMIT`.
async fn record_pg(conn: &mut AsyncPgConnection, batch: &[&Waiting]) -> Result<Vec<Answer>, TxError<()>> {
    let (ids, card_accounts, wallet_ids) = places(batch);
    let stamps = stamps(batch);
    let c: &AsyncPgConnection = conn;
    let take = take_references_pg(c, batch);
    let lock = lock_cards!(pg, &mut &*c, &ids, LockedCard);
    let lock_wallets = lock_wallets!(&mut &*c, &wallet_ids);
    let read = balances_of!(&mut &*c, &card_accounts);
    let clocks = clock_offsets!(&mut &*c, &stamps);
    let (taken, locked, wallets, on_cards, offsets) = tokio::try_join!(take, lock, lock_wallets, read, clocks)?;
    let balances = wallets.into_iter().chain(on_cards).collect();
    let moved = clocks_moved(&stamps, &offsets);
    let (answers, w) = decide(batch, (&taken, &moved), locked, &balances)?;

    let release = async { release_references!(&mut &*c, &w.released) };
    let t = &w.transfers;
    let transfers = unless_empty(t.is_empty(), InsertTransfers::of(t).execute(&mut &*c));
    let j = &w.jobs;
    let jobs = unless_empty(j.is_empty(), InsertJobs::of(j).execute(&mut &*c));
    let ledger = w.ledger.write_pg(c);
    let k = &w.windows;
    let windows = unless_empty(k.is_empty(), UpdateWindows::of(k).execute(&mut &*c));
    let (_, _, _, moved, updated) = tokio::try_join!(release, transfers, jobs, ledger, windows)?;
    if !moved || updated != k.len() {
        return Err(TxError::Db(crate::db::DbError::Refused));
    }
    Ok(answers)
}

/// SQLite: the same plan row by row, inside the one transaction.
async fn record_sqlite(conn: &mut SqliteAsync, batch: &[&Waiting]) -> Result<Vec<Answer>, TxError<()>> {
    let taken = take_references_sqlite(conn, batch).await?;
    let (ids, card_accounts, wallet_ids) = places(batch);
    // One writer at a time: the no-op update takes the write lock.
    let locked = lock_cards!(sqlite, conn, &ids, LockedCard).await?;
    let balances: BTreeMap<String, i64> = balances_of!(conn, card_accounts.iter().chain(&wallet_ids))
        .await?
        .into_iter()
        .collect();
    let stamps = stamps(batch);
    let offsets = clock_offsets!(conn, &stamps).await?;
    let (answers, w) = decide(batch, (&taken, &clocks_moved(&stamps, &offsets)), locked, &balances)?;
    release_references!(conn, &w.released)?;
    for row in &w.transfers {
        diesel::insert_into(card_transfers::table)
            .values(row)
            .execute(conn)
            .await?;
    }
    for row in &w.jobs {
        diesel::insert_into(jobs::table).values(row).execute(conn).await?;
    }
    w.ledger.write_sqlite(conn).await?;
    for (id, funded, unloaded) in &w.windows {
        diesel::update(cards::table.filter(cards::id.eq(id)))
            .set((cards::last_funded_at.eq(funded), cards::last_unloaded_at.eq(unloaded)))
            .execute(conn)
            .await?;
    }
    Ok(answers)
}

//! The steps of an authorization after its hold: captures, reversals,
//! expiry ([`ports::card_transactions::CardTransactionStore::settle_hold`]).
//! The hold itself is placed by the debit engine ([`crate::db::money::debits`]).

use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::money::ledger::{CardLedger, card_ledger_account_id, post_transfer, transfer_rows};
use crate::db::money::reversals::{ReversalRow, record_reversal};
use crate::db::money::steps::{TxError, outcome_or_failed, violates, wallet};
use crate::db::rows::TransactionRow;
use crate::db::schema::{card_reversals, card_transactions, cards, ledger_accounts};
use crate::db::{DbError, DbPool, with_conn};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::Amount;
use domain::cards::hold::{HoldCard, HoldState, HoldStep, TransactionKind, TransactionStatus, settle as decide};
use domain::cards::product::Product;
use domain::cards::reversal::{CardRoom, CreditTo, ReversalKind};
use ports::StoreError;
use ports::card_transactions::{HoldNotices, HoldOutcome, HoldRequest, HoldSettled};

/// The authorization `$id` and the increments that raised it.
macro_rules! hold_rows {
    ($id:expr) => {
        card_transactions::table
            .filter(
                card_transactions::id
                    .eq($id)
                    .or(card_transactions::authorization_id.eq($id)),
            )
            .filter(card_transactions::kind.eq_any([
                TransactionKind::Authorization.as_str(),
                TransactionKind::Increment.as_str(),
            ]))
    };
}

pub(in crate::db) async fn settle(
    pool: &DbPool,
    r: &HoldRequest,
    notices: &HoldNotices,
) -> Result<HoldOutcome, StoreError> {
    let (account, mode) = (&r.account_id, r.mode);
    let result = with_conn!(pool, |conn| {
        let mine = card_transactions::table
            .filter(card_transactions::id.eq(&r.authorization_id))
            .filter(card_transactions::account_id.eq(account.as_str()))
            .filter(card_transactions::livemode.eq(mode.is_live()))
            .filter(card_transactions::kind.eq(TransactionKind::Authorization.as_str()));
        // Its card, which never changes, read before the transaction: in
        // it, the card's lock comes first.
        let card = mine
            .select(card_transactions::card_id)
            .first::<String>(conn)
            .await
            .optional()?;
        let Some(card) = card else {
            return Ok(Ok(HoldOutcome::NoSuchAuthorization));
        };
        let result = conn
            .transaction::<_, TxError<HoldOutcome>, _>(async |conn| {
                // The card's lock first, as every money step of a card takes
                // it (a write: SQLite's one writer): the engine's increments,
                // other steps and deletions wait for this one, or went first
                // and are seen.
                let (deleted_at, fee_hold) = diesel::update(cards::table.filter(cards::id.eq(&card)))
                    .set(cards::consecutive_declines.eq(cards::consecutive_declines))
                    .returning((cards::deleted_at, cards::fee_hold))
                    .get_result::<(Option<i64>, i64)>(conn)
                    .await?;
                let root_row = mine
                    .select(TransactionRow::as_select())
                    .first::<TransactionRow>(conn)
                    .await?;
                let root = root_row.clone().record()?;
                // A declined authorization never held anything.
                let TransactionStatus::Hold(state) = root.status else {
                    return Err(TxError::Refused(HoldOutcome::NoSuchAuthorization));
                };
                // Few rows per authorization: summed here, checked.
                let holds = hold_rows!(&r.authorization_id)
                    .filter(card_transactions::status.eq(HoldState::Pending.as_str()))
                    .select(card_transactions::amount)
                    .load::<i64>(conn)
                    .await?;
                let released = card_reversals::table
                    .filter(card_reversals::transaction_id.eq(&r.authorization_id))
                    .select(card_reversals::amount)
                    .load::<i64>(conn)
                    .await?;
                // An ended authorization holds nothing, whatever its
                // partial reversals released while it was pending.
                let held = match state {
                    HoldState::Pending => holds
                        .into_iter()
                        .try_fold(0i64, i64::checked_add)
                        .zip(released.into_iter().try_fold(0i64, i64::checked_add))
                        .and_then(|(held, released)| held.checked_sub(released))
                        .and_then(Amount::from_minor)
                        .ok_or(TxError::Db(DbError::Refused))?,
                    _ => Amount::ZERO,
                };
                let card_account = card_ledger_account_id(&card, CardLedger::Balance);
                let balance = ledger_accounts::table
                    .filter(ledger_accounts::id.eq(&card_account))
                    .select(ledger_accounts::balance)
                    .first::<i64>(conn)
                    .await?;
                let product = Product::of(root.currency);
                let on_card = HoldCard {
                    room: CardRoom {
                        deleted: deleted_at.is_some(),
                        balance,
                        max_balance: product.max_balance,
                    },
                    fee_hold: Amount::from_minor(fee_hold).unwrap_or(Amount::ZERO),
                };
                let movement =
                    decide(state, held, r.step, on_card).map_err(|e| TxError::Refused(HoldOutcome::Refused(e)))?;
                let now = r.now.unix();
                if let HoldStep::Reverse(_) = r.step {
                    // A reversal is recorded (once by its reference); a
                    // capture's remainder and the expiry are in the state.
                    let (id, reference) = &r.reversal;
                    record_reversal!(
                        conn,
                        ReversalRow {
                            id,
                            account_id: account.as_str(),
                            livemode: mode.is_live(),
                            card_id: &card,
                            transaction_id: &root.id,
                            reference,
                            kind: ReversalKind::Reversal.as_str(),
                            amount: movement.released.minor(),
                            credited_to: movement.released_to.as_str(),
                            created_at: now,
                        },
                        HoldOutcome::AlreadyApplied
                    );
                }
                let (held_account, spend) = (
                    card_ledger_account_id(&card, CardLedger::Held),
                    card_ledger_account_id(&card, CardLedger::Spend),
                );
                let (target, cap) = match movement.released_to {
                    CreditTo::Card => (card_account.clone(), product.max_balance.minor()),
                    // Money back from the account's own card is always taken.
                    CreditTo::IssuingWallet => (wallet(account, mode, root.currency), Amount::MAX.minor()),
                };
                let steps = [
                    ("card_capture", &held_account, &spend, movement.captured_from_hold, 0),
                    (
                        "card_capture",
                        &card_account,
                        &spend,
                        movement.captured_from_card,
                        fee_hold,
                    ),
                    ("card_hold_release", &held_account, &target, movement.released, 0),
                ];
                for (kind, from, to, amount, keep) in steps {
                    if amount == Amount::ZERO {
                        continue;
                    }
                    let cap = if to == &target { cap } else { Amount::MAX.minor() };
                    let rows = &transfer_rows(account, mode, kind, (from, to), root.currency, amount, now)?;
                    if !post_transfer!(conn, rows, from, to, amount, keep = keep, cap = cap)? {
                        return Err(TxError::Db(DbError::Refused));
                    }
                }
                let capture = match r.step {
                    HoldStep::Capture(_) => {
                        // The capture is the card's next approved
                        // transaction: its spend, numbered as debits are.
                        let seq = diesel::update(cards::table.filter(cards::id.eq(&card)))
                            .set(cards::approved_count.eq(cards::approved_count + 1))
                            .returning(cards::approved_count)
                            .get_result::<i64>(conn)
                            .await?;
                        let row = TransactionRow {
                            id: r.capture_id.clone(),
                            status: TransactionStatus::Approved.as_str().to_string(),
                            amount: movement.captured().minor(),
                            created_at: now,
                            approved_seq: Some(seq),
                            kind: TransactionKind::Capture.as_str().to_string(),
                            authorization_id: Some(root.id.clone()),
                            ..root_row
                        };
                        diesel::insert_into(card_transactions::table)
                            .values(&row)
                            .execute(conn)
                            .await?;
                        Some(row.record()?)
                    }
                    _ => None,
                };
                if movement.state != state {
                    diesel::update(
                        hold_rows!(&root.id).filter(card_transactions::status.eq(HoldState::Pending.as_str())),
                    )
                    .set(card_transactions::status.eq(movement.state.as_str()))
                    .execute(conn)
                    .await?;
                }
                let left = match movement.state {
                    HoldState::Pending => Amount::from_minor(held.minor() - movement.released.minor()),
                    _ => Some(Amount::ZERO),
                }
                .ok_or(TxError::Db(DbError::Refused))?;
                let settled = HoldSettled {
                    authorization: ports::card_transactions::CardTransaction {
                        status: TransactionStatus::Hold(movement.state),
                        ..root
                    },
                    movement,
                    held: left,
                    capture,
                };
                for (event, job) in notices(&settled) {
                    let job = JobRow::new(job, account, mode);
                    store_event!(conn, &EventRow::new(event), [&job]);
                }
                Ok(HoldOutcome::Settled(Box::new(settled)))
            })
            .await;
        Ok::<_, DbError>(result)
    })?;
    outcome_or_failed(result)
}

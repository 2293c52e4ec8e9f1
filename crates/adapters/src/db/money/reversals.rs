//! Money a card processor gives back of an approved debit (refunds,
//! reversals): [`ports::card_transactions::CardTransactionStore::reverse`].

use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::money::ledger::{CardLedger, card_ledger_account_id, post_transfer, transfer_rows};
use crate::db::money::steps::{TxError, outcome_or_failed, violates, wallet};
use crate::db::rows::{APPROVED, MAINTENANCE_FEE_ENRICHMENT, TransactionRow};
use crate::db::schema::{
    card_reversals, card_transactions, cards, ledger_accounts, reversal_references, transaction_references,
};
use crate::db::{DbError, DbPool, with_conn};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::Amount;
use domain::cards::product::Product;
use domain::cards::reversal::{CardRoom, CreditTo, credit_back};
use ports::StoreError;
use ports::card_transactions::{NewReversal, ReversalNotices, ReversalOutcome, Reversed};

/// A `card_reversals` row: what was given back of a transaction (or
/// released of a hold), once by the processor's reference.
#[derive(Insertable)]
#[diesel(table_name = card_reversals)]
pub(in crate::db) struct ReversalRow<'a> {
    pub id: &'a str,
    pub account_id: &'a str,
    pub livemode: bool,
    pub card_id: &'a str,
    pub transaction_id: &'a str,
    pub reference: &'a str,
    pub kind: &'a str,
    pub amount: i64,
    pub credited_to: &'a str,
    pub created_at: i64,
}

/// Inside a transaction: records `$row`, a [`ReversalRow`], once by its
/// reference in its mode (across accounts: the processor's name its own
/// transactions); `$refusal` when the reference was applied before.
macro_rules! record_reversal {
    ($conn:expr, $row:expr, $refusal:expr) => {{
        use $crate::db::schema::{card_reversals, reversal_references};
        let row: ReversalRow = $row;
        let already =
            |e: diesel::result::Error| match violates(&e, "reversal_references") || violates(&e, "card_reversals") {
                true => TxError::Refused($refusal),
                false => TxError::from(e),
            };
        diesel::insert_into(reversal_references::table)
            .values((
                reversal_references::livemode.eq(row.livemode),
                reversal_references::reference.eq(row.reference),
                reversal_references::account_id.eq(row.account_id),
            ))
            .execute($conn)
            .await
            .map_err(already)?;
        diesel::insert_into(card_reversals::table)
            .values(row)
            .execute($conn)
            .await
            .map_err(already)?;
    }};
}
pub(in crate::db) use record_reversal;

pub(in crate::db) async fn reverse(
    pool: &DbPool,
    r: &NewReversal,
    notices: &ReversalNotices,
) -> Result<ReversalOutcome, StoreError> {
    let (account, mode, card) = (&r.account_id, r.mode, r.card_id.as_str());
    let result = with_conn!(pool, |conn| {
        let result = conn
            .transaction::<_, TxError<ReversalOutcome>, _>(async |conn| {
                // A void claims its debit's reference before the card's
                // lock, in the order every debit batch claims references
                // (docs/architecture.md, "Lock order"): a debit of that
                // reference being recorded now holds the claim, and this
                // waits for it without holding the card it needs. Claimed
                // here, no debit of it was recorded nor ever will be.
                let claimed = match r.void {
                    true => {
                        diesel::insert_into(transaction_references::table)
                            .values((
                                transaction_references::account_id.eq(account.as_str()),
                                transaction_references::livemode.eq(mode.is_live()),
                                transaction_references::reference.eq(&r.debit_reference),
                                transaction_references::created_at.eq(r.now.unix()),
                            ))
                            .on_conflict_do_nothing()
                            .execute(conn)
                            .await?
                            == 1
                    }
                    false => false,
                };
                // The card's lock next, as every money step of a card
                // takes it (a write: SQLite's one writer). A deletion
                // waits for this credit, or went first and is seen. A
                // refusal rolls the claim back.
                let deleted_at = diesel::update(
                    cards::table
                        .filter(cards::id.eq(card))
                        .filter(cards::account_id.eq(account.as_str()))
                        .filter(cards::livemode.eq(mode.is_live())),
                )
                .set(cards::consecutive_declines.eq(cards::consecutive_declines))
                .returning(cards::deleted_at)
                .get_result::<Option<i64>>(conn)
                .await
                .optional()?
                .ok_or(TxError::Refused(ReversalOutcome::NoSuchDebit))?;
                let debit = card_transactions::table
                    .filter(card_transactions::account_id.eq(account.as_str()))
                    .filter(card_transactions::livemode.eq(mode.is_live()))
                    .filter(card_transactions::card_id.eq(card))
                    .filter(card_transactions::client_reference.eq(&r.debit_reference))
                    .filter(card_transactions::status.eq(APPROVED))
                    // A fee never went to the processor: nothing of it comes back.
                    .filter(card_transactions::enriched_data.ne(MAINTENANCE_FEE_ENRICHMENT))
                    .select(TransactionRow::as_select())
                    .first::<TransactionRow>(conn)
                    .await
                    .optional()?;
                let Some(debit) = debit else {
                    if !claimed {
                        return Err(TxError::Refused(ReversalOutcome::NoSuchDebit));
                    }
                    // A fee of that reference (fees take none): nothing to void.
                    let recorded = diesel::dsl::select(diesel::dsl::exists(
                        card_transactions::table
                            .filter(card_transactions::account_id.eq(account.as_str()))
                            .filter(card_transactions::livemode.eq(mode.is_live()))
                            .filter(card_transactions::card_id.eq(card))
                            .filter(card_transactions::client_reference.eq(&r.debit_reference)),
                    ))
                    .get_result::<bool>(conn)
                    .await?;
                    // Voided before its debit was recorded: the reference
                    // is taken, and the debit, when it comes, is a repeat.
                    return match recorded {
                        false => Ok(ReversalOutcome::Voided),
                        true => Err(TxError::Refused(ReversalOutcome::NoSuchDebit)),
                    };
                };
                let debit = debit.record()?;
                let applied = reversal_references::table
                    .find((mode.is_live(), &r.reference))
                    .count()
                    .get_result::<i64>(conn)
                    .await?;
                if applied > 0 {
                    return Err(TxError::Refused(ReversalOutcome::AlreadyApplied));
                }
                // Few per debit: summed here, checked.
                let earlier = card_reversals::table
                    .filter(card_reversals::transaction_id.eq(&debit.id))
                    .select(card_reversals::amount)
                    .load::<i64>(conn)
                    .await?;
                let reversed = earlier
                    .into_iter()
                    .try_fold(0i64, i64::checked_add)
                    .and_then(Amount::from_minor)
                    .ok_or(TxError::Db(DbError::Refused))?;
                let card_account = card_ledger_account_id(card, CardLedger::Balance);
                let balance = ledger_accounts::table
                    .filter(ledger_accounts::id.eq(&card_account))
                    .select(ledger_accounts::balance)
                    .first::<i64>(conn)
                    .await?;
                let product = Product::of(debit.currency);
                let room = CardRoom {
                    deleted: deleted_at.is_some(),
                    balance,
                    max_balance: product.max_balance,
                };
                let (amount, to) = credit_back(debit.amount, reversed, r.asked, room)
                    .ok_or(TxError::Refused(ReversalOutcome::NothingLeft))?;
                record_reversal!(
                    conn,
                    ReversalRow {
                        id: &r.id,
                        account_id: account.as_str(),
                        livemode: mode.is_live(),
                        card_id: card,
                        transaction_id: &debit.id,
                        reference: &r.reference,
                        kind: r.kind.as_str(),
                        amount: amount.minor(),
                        credited_to: to.as_str(),
                        created_at: r.now.unix(),
                    },
                    ReversalOutcome::AlreadyApplied
                );
                let spend = card_ledger_account_id(card, CardLedger::Spend);
                let (target, cap) = match to {
                    CreditTo::Card => (card_account, product.max_balance.minor()),
                    // Money back from the account's own card is always taken.
                    CreditTo::IssuingWallet => (wallet(account, mode, debit.currency), Amount::MAX.minor()),
                };
                let now = r.now.unix();
                let rows = &transfer_rows(
                    account,
                    mode,
                    "card_reversal",
                    (&spend, &target),
                    debit.currency,
                    amount,
                    now,
                )?;
                if !post_transfer!(conn, rows, &spend, &target, amount, keep = 0, cap = cap)? {
                    return Err(TxError::Db(DbError::Refused));
                }
                let reversed = Reversed { amount, to, debit };
                for (event, job) in notices(&reversed) {
                    let job = JobRow::new(job, account, mode);
                    store_event!(conn, &EventRow::new(event), [&job]);
                }
                Ok(ReversalOutcome::Credited(Box::new(reversed)))
            })
            .await;
        Ok::<_, DbError>(result)
    })?;
    outcome_or_failed(result)
}

pub(in crate::db) async fn given_back(pool: &DbPool, transaction: &str) -> Result<bool, StoreError> {
    let any = card_reversals::table.filter(card_reversals::transaction_id.eq(transaction));
    Ok(with_conn!(pool, |conn| diesel::select(diesel::dsl::exists(any))
        .get_result::<bool>(conn)
        .await)?)
}

//! Reconciliation with a processor that keeps books: the debits of the
//! cards it keeps, as recorded here, and each run with its audit trail
//! ([`ports::reconciliation::ReconciliationStore`]).

use crate::db::schema::{
    card_reversals, card_transactions, gateway_authorizations, processor_cards, reconciliation_repairs,
    reconciliation_runs,
};
use crate::db::{Db, DbError, with_conn};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::cards::hold::{TransactionKind, TransactionStatus};
use domain::ids::{AccountId, CardId};
use domain::{Amount, Currency, Mode, Timestamp};
use ports::StoreError;
use ports::reconciliation::{DebitHere, ReconciliationStore, RepairRecord, Run};
use std::collections::HashMap;

/// References or ids asked for at once: well inside SQLite's bound on a
/// statement's parameters.
const CHUNK: usize = 500;

type DebitRow = (String, String, String, String, String, i64, String, i64, String);

type RunRow = (String, bool, i64, i64, Option<i64>, i64, i64, i64, i64, Option<String>);

fn unreadable(what: &str) -> DbError {
    DbError::Store(StoreError::new(format!("a stored {what} is unreadable")))
}

fn amount(minor: i64) -> Result<Amount, DbError> {
    Amount::from_minor(minor).ok_or_else(|| unreadable("amount"))
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or_default()
}

fn run_of(row: RunRow) -> Run {
    let (id, live, since, started, finished, compared, differences, repaired, unresolved, error) = row;
    Run {
        id,
        mode: Mode::from_live(live),
        since: Timestamp::from_unix(since),
        started_at: Timestamp::from_unix(started),
        finished_at: finished.map(Timestamp::from_unix),
        compared: count(compared),
        differences: count(differences),
        repaired: count(repaired),
        unresolved: count(unresolved),
        error,
    }
}

fn whole(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[async_trait::async_trait]
impl ReconciliationStore for Db {
    async fn debits_at_processor(
        &self,
        mode: Mode,
        since: Timestamp,
        references: &[String],
    ) -> Result<Vec<DebitHere>, StoreError> {
        let live = mode.is_live();
        // Another debit of such a card (a sandbox mock debit, a fee) is
        // none of the processor's, whatever its reference.
        let asked = || {
            gateway_authorizations::table
                .filter(gateway_authorizations::livemode.eq(live))
                .filter(gateway_authorizations::reference.eq(card_transactions::client_reference))
                .filter(gateway_authorizations::card.eq(processor_cards::processor_card_id))
        };
        let repaired = || {
            reconciliation_repairs::table
                .filter(reconciliation_repairs::livemode.eq(live))
                .filter(reconciliation_repairs::repair.eq("debit"))
                .filter(reconciliation_repairs::applied_as.eq(card_transactions::client_reference.nullable()))
                .filter(reconciliation_repairs::card_id.eq(card_transactions::card_id.nullable()))
        };
        let debits = || {
            card_transactions::table
                .inner_join(
                    processor_cards::table.on(processor_cards::account_id
                        .eq(card_transactions::account_id)
                        .and(processor_cards::card_id.eq(card_transactions::card_id))),
                )
                .filter(card_transactions::livemode.eq(live))
                .filter(card_transactions::kind.eq(TransactionKind::Debit.as_str()))
                .filter(diesel::dsl::exists(asked()).or(diesel::dsl::exists(repaired())))
                .select((
                    card_transactions::id,
                    card_transactions::account_id,
                    card_transactions::card_id,
                    processor_cards::processor_card_id,
                    card_transactions::client_reference,
                    card_transactions::amount,
                    card_transactions::currency,
                    card_transactions::created_at,
                    card_transactions::status,
                ))
        };
        let mut rows: Vec<DebitRow> = with_conn!(self.pool(), |conn| {
            debits()
                .filter(card_transactions::created_at.ge(since.unix()))
                .load::<DebitRow>(conn)
                .await
        })?;
        for chunk in references.chunks(CHUNK) {
            let more: Vec<DebitRow> = with_conn!(self.pool(), |conn| {
                debits()
                    .filter(card_transactions::client_reference.eq_any(chunk))
                    .load::<DebitRow>(conn)
                    .await
            })?;
            rows.extend(more);
        }
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        rows.dedup_by(|a, b| a.0 == b.0);
        let ids: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let mut given_back: HashMap<String, Vec<(String, Amount)>> = HashMap::new();
        for chunk in ids.chunks(CHUNK) {
            let back: Vec<(String, String, i64)> = with_conn!(self.pool(), |conn| {
                card_reversals::table
                    .filter(card_reversals::livemode.eq(live))
                    .filter(card_reversals::transaction_id.eq_any(chunk))
                    .select((
                        card_reversals::transaction_id,
                        card_reversals::reference,
                        card_reversals::amount,
                    ))
                    .load(conn)
                    .await
            })?;
            for (debit, reference, minor) in back {
                given_back.entry(debit).or_default().push((reference, amount(minor)?));
            }
        }
        let debit = |row: DebitRow| -> Result<DebitHere, DbError> {
            let (id, account, card, processor_card, reference, minor, currency, created_at, status) = row;
            Ok(DebitHere {
                account_id: AccountId::new(account),
                card_id: CardId::new(card),
                processor_card,
                reference,
                approved: status == TransactionStatus::Approved.as_str(),
                amount: amount(minor)?,
                currency: Currency::parse("currency", &currency).map_err(|_| unreadable("currency"))?,
                created_at: Timestamp::from_unix(created_at),
                given_back: given_back.remove(&id).unwrap_or_default(),
            })
        };
        Ok(rows.into_iter().map(debit).collect::<Result<_, _>>()?)
    }

    async fn gateway_asked(&self, mode: Mode, reference: &str, card: &str, at: Timestamp) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::insert_into(gateway_authorizations::table)
                .values((
                    gateway_authorizations::livemode.eq(mode.is_live()),
                    gateway_authorizations::reference.eq(reference),
                    gateway_authorizations::card.eq(card),
                    gateway_authorizations::created_at.eq(at.unix()),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn start_run(&self, run: &Run) -> Result<bool, StoreError> {
        let started = with_conn!(self.pool(), |conn| {
            diesel::insert_into(reconciliation_runs::table)
                .values((
                    reconciliation_runs::id.eq(&run.id),
                    reconciliation_runs::livemode.eq(run.mode.is_live()),
                    reconciliation_runs::since.eq(run.since.unix()),
                    reconciliation_runs::started_at.eq(run.started_at.unix()),
                    reconciliation_runs::compared.eq(0),
                    reconciliation_runs::differences.eq(0),
                    reconciliation_runs::repaired.eq(0),
                    reconciliation_runs::unresolved.eq(0),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await
        })?;
        Ok(started == 1)
    }

    async fn record_repair(&self, repair: &RepairRecord) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::insert_into(reconciliation_repairs::table)
                .values((
                    reconciliation_repairs::run_id.eq(&repair.run_id),
                    reconciliation_repairs::livemode.eq(repair.mode.is_live()),
                    reconciliation_repairs::authorization_id.eq(&repair.authorization),
                    reconciliation_repairs::class.eq(repair.class),
                    reconciliation_repairs::repair.eq(repair.repair),
                    reconciliation_repairs::applied_as.eq(&repair.applied_as),
                    reconciliation_repairs::account_id.eq(repair.account_id.as_ref().map(AccountId::as_str)),
                    reconciliation_repairs::card_id.eq(repair.card_id.as_ref().map(CardId::as_str)),
                    reconciliation_repairs::amount.eq(repair.amount.minor()),
                    reconciliation_repairs::outcome.eq(&repair.outcome),
                    reconciliation_repairs::created_at.eq(repair.created_at.unix()),
                ))
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn finish_run(&self, run: &Run) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::update(reconciliation_runs::table.find(&run.id))
                .set((
                    reconciliation_runs::finished_at.eq(run.finished_at.map(Timestamp::unix)),
                    reconciliation_runs::compared.eq(whole(run.compared)),
                    reconciliation_runs::differences.eq(whole(run.differences)),
                    reconciliation_runs::repaired.eq(whole(run.repaired)),
                    reconciliation_runs::unresolved.eq(whole(run.unresolved)),
                    reconciliation_runs::error.eq(&run.error),
                ))
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn last_runs(&self) -> Result<Vec<Run>, StoreError> {
        let mut runs = vec![];
        for live in [true, false] {
            let newest: Option<RunRow> = with_conn!(self.pool(), |conn| {
                reconciliation_runs::table
                    .filter(reconciliation_runs::livemode.eq(live))
                    .order((reconciliation_runs::started_at.desc(), reconciliation_runs::id.desc()))
                    .first::<RunRow>(conn)
                    .await
                    .optional()
            })?;
            runs.extend(newest.map(run_of));
        }
        Ok(runs)
    }
}

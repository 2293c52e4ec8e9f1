//! `issuing reconcile transactions`, and its scheduled runs: the money of
//! a processor that keeps books (Sudo) against this service's. Its
//! authorizations and transactions of a period are matched to the debits
//! recorded here by its ids; [`domain::cards::reconciliation::compare`]
//! classes each difference and names its repair; each repair is applied
//! once, by its id, through the same money steps the processor's own
//! calls take (a forced debit, a give-back), and written to the audit
//! trail with what became of it.

use super::CardError;
use super::give_back::GiveBack;
use super::processor::{AuthorizationRequest, Verdict};
use crate::App;
use domain::cards::hold::{TransactionKind, TransactionStatus};
use domain::cards::reconciliation::{
    Class, Difference, Here, Repair, There, authorization_of, compare, repair_reference,
};
use domain::cards::reversal::ReversalKind;
use domain::ids::CardId;
use domain::{Amount, Currency, Mode, Timestamp};
use ports::card_network::{BookedAuthorization, BookedKind, BookedTransaction};
use ports::card_transactions::{CardTransaction, Reference, ReversalOutcome};
use ports::cards::{ReserveError, RuleState};
use ports::reconciliation::{DebitHere, RepairRecord, Run};
use std::collections::{BTreeMap, BTreeSet};

/// What a run of reconciliation did.
#[derive(Debug)]
pub enum Reconciled {
    /// The mode's processor keeps no books of its own (the simulator).
    NoBooks,
    /// Another process runs this scheduled period.
    Taken,
    Ran {
        run: Run,
        repairs: Vec<RepairRecord>,
    },
}

/// One authorization's two sides and its card, as matched.
#[derive(Default)]
struct Matched {
    booked: Option<BookedAuthorization>,
    transactions: Vec<BookedTransaction>,
    here: Vec<DebitHere>,
}

impl Matched {
    /// The newest time the processor says any of it was made.
    fn made_there(&self) -> Option<Timestamp> {
        let there = self.booked.as_ref().and_then(|b| b.created_at);
        there
            .into_iter()
            .chain(self.transactions.iter().filter_map(|t| t.created_at))
            .max()
    }

    /// The processor's id of the card, as the processor says.
    fn card_there(&self) -> Option<&str> {
        let booked = self.booked.as_ref().map(|b| b.card.as_str());
        booked.or(self.transactions.first().map(|t| t.card.as_str()))
    }

    /// The processor's id of the card.
    fn processor_card(&self) -> Option<&str> {
        let here = self.here.first().map(|d| d.processor_card.as_str());
        here.or(self.card_there())
    }
}

/// The approved debit of `reference` with the most left to give back.
fn debit_to_give_back(here: &[DebitHere]) -> Option<&DebitHere> {
    let left = |d: &DebitHere| {
        let back: i64 = d.given_back.iter().map(|(_, a)| a.minor()).sum();
        d.amount.minor().saturating_sub(back)
    };
    here.iter().filter(|d| d.approved).max_by_key(|d| left(d))
}

impl App {
    /// Reconciles `mode`'s money with its processor's books from `since`;
    /// an authorization made less than `grace_secs` ago on either side is
    /// left to the next run (its calls may be in flight). A scheduled run
    /// names its period `slot`: one process runs it.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn reconcile_transactions(
        &self,
        mode: Mode,
        since: Timestamp,
        grace_secs: i64,
        slot: Option<String>,
    ) -> Result<Reconciled, CardError> {
        let now = self.ports.clock.now();
        let Some(books) = self.ports.network.books(mode, since, now).await.transpose() else {
            return Ok(Reconciled::NoBooks);
        };
        let mut run = Run {
            id: slot.unwrap_or_else(|| format!("{}:run:{}", mode.as_str(), self.ports.ids.unique())),
            mode,
            since,
            started_at: now,
            finished_at: None,
            compared: 0,
            differences: 0,
            repaired: 0,
            unresolved: 0,
            error: None,
        };
        let store = &self.ports.reconciliation;
        if !store.start_run(&run).await? {
            return Ok(Reconciled::Taken);
        }
        let books = match books {
            Ok(books) => books,
            Err(e) => {
                run.error = Some(e.to_string());
                run.finished_at = Some(self.ports.clock.now());
                store.finish_run(&run).await?;
                return Err(e.into());
            }
        };
        let mut ids: BTreeSet<String> = books.authorizations.iter().map(|a| a.id.clone()).collect();
        ids.extend(books.transactions.iter().filter_map(|t| t.authorization.clone()));
        let references: Vec<String> = ids.iter().flat_map(|id| [id.clone(), repair_reference(id)]).collect();
        let debits = store.debits_at_processor(mode, since, &references).await?;
        let mut matched: BTreeMap<String, Matched> = BTreeMap::new();
        for booked in books.authorizations {
            let id = booked.id.clone();
            matched.entry(id).or_default().booked = Some(booked);
        }
        let mut seen = BTreeSet::new();
        for transaction in books.transactions {
            // A listing that shifted between pages shows one twice.
            if !seen.insert(transaction.id.clone()) {
                continue;
            }
            match transaction.authorization.clone() {
                Some(id) => matched.entry(id).or_default().transactions.push(transaction),
                None => {
                    tracing::warn!(processor_transaction = %transaction.id, "the processor's books hold a transaction of no authorization: not reconciled")
                }
            }
        }
        for debit in debits {
            let id = authorization_of(&debit.reference);
            let sides = matched.entry(id.to_string()).or_default();
            // A debit of another card than the processor's authorization
            // is not that authorization's (a sandbox reference that
            // happens to be the processor's id).
            match sides.card_there() {
                Some(there) if there != debit.processor_card => {}
                _ => sides.here.push(debit),
            }
        }
        let mut repairs = vec![];
        let mut clocks = BTreeMap::new();
        for (id, mut sides) in matched {
            if self.in_flight(mode, &sides, &mut clocks, grace_secs).await? {
                continue;
            }
            run.compared += 1;
            let found = match &sides.booked {
                // Not in the listing (made before the period, or a gap in
                // it): the processor is asked for it by its id.
                None => match self.ports.network.booked(mode, &id).await {
                    Ok(booked) => {
                        sides.booked = booked;
                        let there = sides.card_there().map(str::to_string);
                        sides
                            .here
                            .retain(|d| there.as_ref().is_none_or(|c| *c == d.processor_card));
                        self.reconcile_one(&run, &id, &sides).await?
                    }
                    Err(e) => vec![self.unresolved(&run, &id, &sides, format!("the processor could not tell: {e}"))],
                },
                Some(_) => self.reconcile_one(&run, &id, &sides).await?,
            };
            // Each kept as soon as it is made: the audit trail never
            // lags the money.
            for repair in found {
                store.record_repair(&repair).await?;
                metrics::counter!("issuing_reconciliation_differences_total", "mode" => mode.as_str(), "class" => repair.class)
                    .increment(1);
                repairs.push(repair);
            }
        }
        run.differences = repairs.len() as u64;
        // Applied by another run meanwhile is repaired too.
        let done = |r: &&RepairRecord| matches!(r.outcome.as_str(), "applied" | "already_applied");
        run.repaired = repairs.iter().filter(done).count() as u64;
        run.unresolved = run.differences - run.repaired;
        run.finished_at = Some(self.ports.clock.now());
        store.finish_run(&run).await?;
        if run.repaired > 0 {
            self.work_queued();
        }
        Ok(Reconciled::Ran { run, repairs })
    }

    /// Whether either side of an authorization was made less than `grace`
    /// seconds ago, each by its own clock: the processor's, and the
    /// account's here (a sandbox test clock).
    async fn in_flight(
        &self,
        mode: Mode,
        sides: &Matched,
        clocks: &mut BTreeMap<String, Timestamp>,
        grace: i64,
    ) -> Result<bool, CardError> {
        if sides.made_there() > Some(self.ports.clock.now().minus(grace)) {
            return Ok(true);
        }
        for debit in &sides.here {
            let account = debit.account_id.as_str();
            let now = match clocks.get(account) {
                Some(now) => *now,
                None => {
                    let now = self.now_for(&debit.account_id, mode).await?;
                    *clocks.entry(account.to_string()).or_insert(now)
                }
            };
            if debit.created_at > now.minus(grace) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A difference nothing here may repair, for an operator (and what
    /// every repair's record starts from).
    fn unresolved(&self, run: &Run, id: &str, sides: &Matched, outcome: String) -> RepairRecord {
        let here = sides.here.first();
        RepairRecord {
            run_id: run.id.clone(),
            mode: run.mode,
            authorization: id.to_string(),
            class: Class::Unresolved.as_str(),
            repair: "none",
            applied_as: None,
            account_id: here.map(|d| d.account_id.clone()),
            card_id: here.map(|d| d.card_id.clone()),
            amount: Amount::ZERO,
            outcome,
            created_at: self.ports.clock.now(),
        }
    }

    /// Compares one authorization's two sides and applies the repairs.
    async fn reconcile_one(&self, run: &Run, id: &str, sides: &Matched) -> Result<Vec<RepairRecord>, CardError> {
        let mode = run.mode;
        let Some(processor_card) = sides.processor_card() else {
            return Ok(vec![]);
        };
        let card = match sides.here.first() {
            Some(debit) => Some(debit.card_id.clone()),
            None => self.ports.cards.by_processor_card(mode, processor_card).await?,
        };
        let state = match &card {
            Some(card) => self.ports.cards.rule_state(card).await?,
            None => None,
        };
        let (Some(card), Some(state)) = (card, state) else {
            let outcome = format!("the processor's card {processor_card} is not known here");
            return Ok(vec![self.unresolved(run, id, sides, outcome)]);
        };
        let Some((here, there)) = self.sides_in(state.currency, id, sides) else {
            let outcome = "the processor's books hold no readable amount of it in the card's currency".to_string();
            return Ok(vec![self.unresolved(run, id, sides, outcome)]);
        };
        // Made before the period, its captures may be out of it: only
        // its refunds are applied.
        let partial = sides
            .booked
            .as_ref()
            .and_then(|b| b.created_at)
            .is_some_and(|at| at < run.since);
        let differences = compare(id, &here, &there)
            .into_iter()
            .filter(|d| !partial || d.class == Class::RefundNotApplied);
        let mut repairs = vec![];
        for Difference { class, repair } in differences {
            let (kind, amount, applied_as, outcome) = match repair {
                Repair::Debit(amount) => {
                    let reference = match sides.here.iter().any(|d| d.reference == id) {
                        true => repair_reference(id),
                        false => id.to_string(),
                    };
                    let outcome = self.repair_debit(mode, (&card, &state), &reference, amount).await?;
                    ("debit", amount, Some(reference), outcome)
                }
                Repair::GiveBack(amount) => {
                    let given = repair_reference(id);
                    let outcome = self
                        .repair_give_back(mode, (&card, &state), sides, (&given, ReversalKind::Reversal), amount)
                        .await?;
                    ("give_back", amount, Some(given), outcome)
                }
                Repair::Refund { id: refund, amount } => {
                    let outcome = self
                        .repair_give_back(mode, (&card, &state), sides, (&refund, ReversalKind::Refund), amount)
                        .await?;
                    ("refund", amount, Some(refund), outcome)
                }
                Repair::None => (
                    "none",
                    Amount::ZERO,
                    None,
                    "a repair was made before: an operator decides".into(),
                ),
            };
            repairs.push(RepairRecord {
                class: class.as_str(),
                repair: kind,
                applied_as,
                account_id: Some(state.account_id.clone()),
                card_id: Some(card.clone()),
                amount,
                ..self.unresolved(run, id, sides, outcome)
            });
        }
        Ok(repairs)
    }

    /// Both sides in the card's minor units; `None` when the processor's
    /// are in another currency, or it holds no readable amount of an
    /// approval nor of a capture, or only refunds of an authorization it
    /// does not hold.
    fn sides_in(&self, currency: Currency, id: &str, sides: &Matched) -> Option<(Here, There)> {
        let mut here = Here::default();
        for debit in &sides.here {
            let amount = if debit.approved { debit.amount } else { Amount::ZERO };
            match debit.reference == id {
                true => here.debited = amount,
                false => here.repair_debited = amount,
            }
            here.given_back.extend(debit.given_back.iter().cloned());
        }
        let ours = |c: Currency| (c == currency).then_some(());
        let mut there = There::default();
        let mut captured = Amount::ZERO;
        for transaction in &sides.transactions {
            ours(transaction.currency)?;
            match transaction.kind {
                BookedKind::Capture => captured = captured.checked_add(transaction.amount)?,
                BookedKind::Refund => there.refunds.push((transaction.id.clone(), transaction.amount)),
            }
        }
        there.moved = match &sides.booked {
            _ if captured > Amount::ZERO => captured,
            Some(BookedAuthorization {
                approved: true, amount, ..
            }) => {
                let (amount, booked_in) = (*amount)?;
                ours(booked_in)?;
                amount
            }
            None if !sides.transactions.is_empty() => return None,
            _ => Amount::ZERO,
        };
        Some((here, there))
    }

    /// Records what the processor took beyond the books here: a forced
    /// post, applied once by its reference. A reference another record
    /// holds (a client may send any) is left to an operator.
    async fn repair_debit(
        &self,
        mode: Mode,
        (card, state): (&CardId, &RuleState),
        reference: &str,
        amount: Amount,
    ) -> Result<String, CardError> {
        let request = AuthorizationRequest {
            card_id: card.to_string(),
            amount: amount.minor().to_string(),
            merchant: "Card transaction (reconciled with the processor)".into(),
            merchant_category_code: None,
            channel: None,
            merchant_country: None,
            transaction_reference: reference.to_string(),
            force: true,
            three_ds: false,
            hold: false,
            deadline: None,
        };
        Ok(match self.authorize(mode, request).await {
            Ok(answer) if answer.verdict == Verdict::Approve => "applied".into(),
            Ok(answer) => format!("declined: {}", answer.reason_code),
            Err(CardError::Reserve(ReserveError::ReferenceUsed)) => {
                let held = Reference::Client(reference.to_string());
                let transactions = &self.ports.card_transactions;
                let holder = transactions.transaction(&state.account_id, mode, card, held).await?;
                let ours = |t: &CardTransaction| {
                    t.kind == TransactionKind::Debit && t.status == TransactionStatus::Approved && t.amount == amount
                };
                match holder {
                    Some(t) if ours(&t) => "already_applied".into(),
                    // This repair's own earlier attempt, which the card
                    // declined: a reference is taken once.
                    Some(t) if t.kind == TransactionKind::Debit && t.amount == amount => {
                        format!("an earlier attempt under {reference} was declined: an operator decides")
                    }
                    _ => format!("the reference {reference} is another record's: an operator decides"),
                }
            }
            Err(CardError::Invalid(e)) => format!("refused: {e}"),
            Err(e) => return Err(e),
        })
    }

    /// Gives back of the debit with the most left, once by `given`.
    async fn repair_give_back(
        &self,
        mode: Mode,
        (card, state): (&CardId, &RuleState),
        sides: &Matched,
        (given, kind): (&str, ReversalKind),
        amount: Amount,
    ) -> Result<String, CardError> {
        let Some(debit) = debit_to_give_back(&sides.here) else {
            return Ok("no approved debit here to give back from".into());
        };
        let back = GiveBack {
            id: given.to_string(),
            told: given.to_string(),
            authorization: debit.reference.clone(),
            kind,
            amount: Some(amount),
        };
        let outcome = self.give_back(mode, (card.clone(), state.clone()), back).await?;
        Ok(match outcome {
            ReversalOutcome::Credited(_) => "applied".into(),
            // Applied by another run meanwhile, to this debit; or the id
            // is another give-back's.
            ReversalOutcome::AlreadyApplied => {
                let store = &self.ports.reconciliation;
                let now = store.debits_at_processor(mode, Timestamp::NEVER, std::slice::from_ref(&debit.reference));
                let given_here = now
                    .await?
                    .iter()
                    .any(|d| d.given_back.iter().any(|(id, _)| id == given));
                match given_here {
                    true => "already_applied".into(),
                    false => format!("the id {given} is another give-back's: an operator decides"),
                }
            }
            ReversalOutcome::NothingLeft => "nothing_left".into(),
            ReversalOutcome::NoSuchDebit => "no_such_debit".into(),
            ReversalOutcome::Voided => "voided".into(),
        })
    }

    /// The newest reconciliation run of each mode.
    pub async fn last_reconciliations(&self) -> Result<Vec<Run>, CardError> {
        Ok(self.ports.reconciliation.last_runs().await?)
    }
}

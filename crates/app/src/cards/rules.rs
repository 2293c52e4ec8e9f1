//! The time rules of USD cards, run as scheduled jobs: the monthly
//! maintenance fee on each anniversary of the card, and deletion after
//! three months without a transaction, with a reminder a week before.
//! Times are the mode's (the sandbox's test clock); a job's `run_at` is on
//! real time, so it is the mode's due time less the sandbox's offset.

use crate::App;
use domain::Currency;
use domain::Mode;
use domain::Timestamp;
use domain::cards::state::DeletionReason;
use domain::cards::{INACTIVITY_NOTICE_SECS, first_fee_due, inactivity_deadline, next_anniversary};
use domain::events::payloads::{CardDebit, CardDeleteNotice, CardMovement, Event};
use domain::ids::{AccountId, CardId, JobId};
use ports::StoreError;
use ports::cards::{FeeCharge, RuleState};
use ports::jobs::{JobKind, NewJob};

impl App {
    /// The first runs of a new card's time rules; its fee anniversaries
    /// count from `fee_anchor_at`, and `charged` is the last month charged
    /// (of the card it replaces).
    pub(crate) async fn first_rule_jobs(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        created_at: Timestamp,
        (fee_anchor_at, charged): (Timestamp, Option<i32>),
    ) -> Result<Vec<NewJob>, StoreError> {
        let deadline = inactivity_deadline(created_at);
        Ok(vec![
            self.inactivity_job(account, mode, card, deadline.minus(INACTIVITY_NOTICE_SECS))
                .await?,
            self.fee_job(account, mode, card, first_fee_due(fee_anchor_at, charged))
                .await?,
        ])
    }

    /// The inactivity job of `card`, due at `due` in the mode's time.
    async fn inactivity_job(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        due: Timestamp,
    ) -> Result<NewJob, StoreError> {
        self.rule_job(account, mode, JobKind::CardInactivity, card.to_string(), due)
            .await
    }

    /// The fee job of `card` for the anniversary `due`: the subject names
    /// both, so a job that runs late charges the month it was for, and
    /// each missed month is caught up in turn. Its id is fixed by both
    /// too, so planning it twice stores it once.
    async fn fee_job(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        due: Timestamp,
    ) -> Result<NewJob, StoreError> {
        let subject = format!("{card} {}", due.unix());
        let job = self
            .rule_job(account, mode, JobKind::CardMaintenanceFee, subject, due)
            .await?;
        Ok(NewJob {
            id: JobId::new(format!("{}fee_{card}_{}", JobId::PREFIX, due.unix())),
            ..job
        })
    }

    /// A job of `kind` about `subject`, due at `due` in the mode's time.
    async fn rule_job(
        &self,
        account: &AccountId,
        mode: Mode,
        kind: JobKind,
        subject: String,
        due: Timestamp,
    ) -> Result<NewJob, StoreError> {
        let clock = self.clock_for(account, mode).await?;
        Ok(self.job_at(kind, subject, clock, due))
    }

    /// Reminds, deletes, or looks again later. `Err` carries why the
    /// attempt failed, for the job to retry on.
    pub(crate) async fn run_inactivity_rule(&self, card: &CardId) -> Result<(), String> {
        let Some(state) = self.ports.cards.rule_state(card).await.map_err(|e| e.to_string())? else {
            return Ok(());
        };
        if state.deleted.is_some() {
            return Ok(());
        }
        self.inactivity(card, &state).await.map_err(|e| e.to_string())
    }

    async fn inactivity(&self, card: &CardId, state: &RuleState) -> Result<(), StoreError> {
        let (account, mode) = (&state.account_id, state.mode);
        let now = self.now_for(account, mode).await?;
        let deadline = inactivity_deadline(state.last_activity_at.unwrap_or(state.created_at));
        let (card_id, cardholder_id) = (card.to_string(), state.cardholder_id.to_string());
        let issuing_app_id = account.to_string();
        if now >= deadline {
            let whose = (&state.cardholder_id, Currency::Usd);
            self.delete_told((account, mode), card, whose, DeletionReason::Inactivity)
                .await?;
            return Ok(());
        }
        let next = if now >= deadline.minus(INACTIVITY_NOTICE_SECS) {
            deadline
        } else {
            deadline.minus(INACTIVITY_NOTICE_SECS)
        };
        let next = self.inactivity_job(account, mode, card, next).await?;
        if now >= deadline.minus(INACTIVITY_NOTICE_SECS) {
            let notice = Event::CardDeleteNotification(CardDeleteNotice {
                card_id,
                cardholder_id,
                currency: state.currency.code(),
                livemode: mode.is_live(),
                issuing_app_id,
                potential_delete_date: deadline.gmt(),
                potential_delete_timestamp: deadline.unix(),
            });
            let event = self.new_event(account, mode, notice).await?;
            let delivery = self.delivery_job(&event.id);
            self.ports.events.emit_with(event, vec![delivery, next]).await
        } else {
            // Used since: look again a week before the new deadline.
            self.ports.jobs.schedule(next, account, mode).await
        }
    }

    /// Charges the fee of the anniversary the job is for and plans the
    /// next; `subject` is `<card id> <anniversary>` (just the card id: its
    /// first anniversary). `Err` carries why the attempt failed, for the
    /// job to retry on.
    pub(crate) async fn charge_maintenance_fee(&self, subject: &str) -> Result<(), String> {
        let (card, due) = match subject.split_once(' ') {
            Some((card, due)) => (CardId::new(card), due.parse().ok().map(Timestamp::from_unix)),
            None => (CardId::new(subject), None),
        };
        let Some(state) = self.ports.cards.rule_state(&card).await.map_err(|e| e.to_string())? else {
            return Ok(());
        };
        if state.deleted.is_some() {
            return Ok(());
        }
        let due = due.unwrap_or_else(|| next_anniversary(state.fee_anchor_at, state.created_at));
        self.maintenance_fee(&card, &state, due)
            .await
            .map_err(|e| e.to_string())
    }

    async fn maintenance_fee(&self, card: &CardId, state: &RuleState, due: Timestamp) -> Result<(), StoreError> {
        let (account, mode) = (&state.account_id, state.mode);
        let now = self.now_for(account, mode).await?;
        let next = self
            .fee_job(account, mode, card, next_anniversary(state.fee_anchor_at, due))
            .await?;
        let id = format!("ctx_{}", self.ports.ids.unique());
        let reference = format!("fee_{card}_{}", due.month_key());
        let fee = Event::CardMaintenanceFeeSuccessful(CardDebit {
            movement: CardMovement {
                card_id: card.to_string(),
                cardholder_id: state.cardholder_id.to_string(),
                amount: state.fee_hold.to_string(),
                currency: Currency::Usd.code(),
                transaction_reference: reference.clone(),
                livemode: mode.is_live(),
                issuing_app_id: account.to_string(),
                card_transaction_type: "DEBIT",
                transaction_date: now.gmt(),
                transaction_timestamp: now.unix(),
            },
            issuer_transaction_reference: id.clone(),
            description: None,
            merchant_category_code: None,
            enriched_data: None,
            decline_reason: None,
            decline_code: None,
        });
        let event = self.new_event(account, mode, fee).await?;
        let delivery = self.delivery_job(&event.id);
        let charge = FeeCharge {
            id,
            card_id: card.clone(),
            month: due.month_key(),
            reference,
            fee: state.fee_hold,
            now,
        };
        self.ports.cards.charge_fee(charge, event, vec![delivery, next]).await?;
        Ok(())
    }
}

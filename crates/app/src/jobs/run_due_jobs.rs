//! Workers call this in a loop: lease due jobs, run each, then finish,
//! reschedule (with backoff and jitter) or park it.

use crate::App;
use domain::ids::{CardId, CardholderId, EventId, JobId, TransferId};
use ports::StoreError;
use ports::jobs::{Job, JobKind, Queue};

/// How long a claimed job is leased: a worker that dies mid-job leaves it
/// to be claimed again after this.
const LEASE_SECS: i64 = 300;

impl App {
    /// Runs up to `limit` due jobs of `queue`; returns how many were
    /// claimed. The settlements among them run as one batch (one
    /// transaction); webhook deliveries run all at once, so a slow
    /// endpoint holds only its own; the jobs that succeeded leave the
    /// queue together.
    pub async fn run_due_jobs(&self, queue: Queue, limit: u32) -> Result<usize, StoreError> {
        let jobs = self
            .ports
            .jobs
            .claim(queue, self.ports.clock.now(), LEASE_SECS, limit)
            .await?;
        let claimed = jobs.len();
        let transfers: Vec<TransferId> = jobs
            .iter()
            .filter(|job| job.kind == JobKind::SettleCardTransfer)
            .map(|job| TransferId::new(&job.subject))
            .collect();
        let mut settled = self.settle_card_transfers(&transfers).await.into_iter();
        let mut done = vec![];
        let mut deliveries = vec![];
        for job in jobs {
            let outcome = match job.kind {
                JobKind::DeliverWebhook => {
                    deliveries.push(job);
                    continue;
                }
                JobKind::VerifyCardholder => self.verify_cardholder(&CardholderId::new(&job.subject)).await,
                JobKind::CardInactivity => self.run_inactivity_rule(&CardId::new(&job.subject)).await,
                JobKind::CardMaintenanceFee => self.charge_maintenance_fee(&job.subject).await,
                JobKind::ExpireChallenge => self.expire_challenge((&job.account_id, job.mode), &job.subject).await,
                JobKind::RewardRules => self.run_reward_rules((&job.account_id, job.mode), &job.subject).await,
                JobKind::SettleCardTransfer => settled.next().unwrap_or(Err("not in the settled batch".into())),
            };
            done.extend(self.done_or_retried(job, outcome).await?);
        }
        // Each delivery is retried as soon as it failed, as a lone one would.
        let delivered = deliveries.into_iter().map(|job| async move {
            let last_attempt = job.attempts >= job.max_attempts;
            let outcome = self.deliver_webhook(&EventId::new(&job.subject), last_attempt).await;
            self.done_or_retried(job, outcome).await
        });
        for finished in futures::future::join_all(delivered).await {
            done.extend(finished?);
        }
        if !done.is_empty() {
            self.ports.jobs.complete(&done).await?;
        }
        Ok(claimed)
    }

    /// A job that succeeded, to complete with the batch; or, failed,
    /// rescheduled or parked at once.
    async fn done_or_retried(&self, job: Job, outcome: Result<(), String>) -> Result<Option<JobId>, StoreError> {
        match outcome {
            Ok(()) => Ok(Some(job.id)),
            Err(error) => self.retry_later(job, &error).await.map(|()| None),
        }
    }

    /// Reschedules a failed job (with backoff and jitter), or parks it
    /// after its last attempt.
    async fn retry_later(&self, job: Job, error: &str) -> Result<(), StoreError> {
        let now = self.ports.clock.now();
        tracing::warn!(job = %job.id, kind = job.kind.as_str(), attempts = job.attempts, %error, "job attempt failed");
        let last_attempt = job.attempts >= job.max_attempts;
        let delay = (!last_attempt)
            .then(|| job.kind.retry_schedule().delay(job.attempts, self.ports.ids.fraction()))
            .flatten();
        match delay {
            Some(delay) => self.ports.jobs.reschedule(&job.id, error, now.plus(delay), now).await,
            None => self.ports.jobs.park(&job.id, error, now).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::Mocks;
    use domain::Mode;
    use domain::ids::{AccountId, JobId};
    use ports::jobs::{Job, JobKind, Queue};

    fn job(attempts: u32) -> Job {
        Job {
            id: JobId::new("job_1"),
            account_id: AccountId::new("acct_1"),
            mode: Mode::Test,
            kind: JobKind::DeliverWebhook,
            subject: "evt_1".into(),
            attempts,
            max_attempts: 10,
        }
    }

    /// A job whose delivery finds an event with nowhere to go fails
    /// nothing; one whose event lookup fails is retried or parked.
    fn mocks(attempts: u32, lookup_fails: bool) -> Mocks {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.ids.expect_fraction().return_const(0.5);
        m.jobs.expect_claim().times(1).returning(move |_, _, lease, _| {
            assert_eq!(lease, 300);
            Ok(vec![job(attempts)])
        });
        m.events.expect_delivery_target().returning(move |_| {
            if lookup_fails {
                Err(ports::StoreError::new("down"))
            } else {
                Ok(None)
            }
        });
        m
    }

    #[tokio::test]
    async fn a_finished_job_is_completed() {
        let mut m = mocks(1, false);
        m.jobs
            .expect_complete()
            .withf(|ids| ids == [JobId::new("job_1")])
            .times(1)
            .returning(|_| Ok(()));
        assert_eq!(m.app().run_due_jobs(Queue::Webhooks, 8).await.unwrap(), 1);
    }

    #[tokio::test]
    async fn a_failed_attempt_is_rescheduled_on_the_retry_schedule() {
        let mut m = mocks(2, true);
        m.jobs
            .expect_reschedule()
            .times(1)
            .withf(|_, error, run_at, _| error.contains("down") && run_at.unix() == 1_000 + 300)
            .returning(|_, _, _, _| Ok(()));
        m.app().run_due_jobs(Queue::Webhooks, 8).await.unwrap();
    }

    #[tokio::test]
    async fn a_settlement_is_retried_on_the_money_schedule_within_seconds() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.ids.expect_fraction().return_const(0.5);
        m.jobs.expect_claim().returning(|queue, _, _, _| {
            assert_eq!(queue, Queue::Work);
            Ok(vec![Job {
                kind: JobKind::SettleCardTransfer,
                subject: "tr_1".into(),
                ..job(1)
            }])
        });
        m.cards
            .expect_transfer()
            .returning(|_| Err(ports::StoreError::new("down")));
        m.jobs
            .expect_reschedule()
            .times(1)
            .withf(|_, _, run_at, _| run_at.unix() == 1_000 + 5)
            .returning(|_, _, _, _| Ok(()));
        m.app().run_due_jobs(Queue::Work, 8).await.unwrap();
    }

    #[tokio::test]
    async fn the_last_failed_attempt_parks_the_job() {
        let mut m = mocks(10, true);
        m.jobs.expect_park().times(1).returning(|_, _, _| Ok(()));
        m.app().run_due_jobs(Queue::Webhooks, 8).await.unwrap();
    }
}

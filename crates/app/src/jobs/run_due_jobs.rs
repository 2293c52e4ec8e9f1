//! Workers call these in a loop: claim due jobs under a lease, run them
//! while heartbeating the lease, then finish, reschedule (with backoff and
//! jitter) or park each.

use crate::App;
use crate::events::{Slot, Undelivered};
use domain::ids::{AccountId, CardId, CardholderId, EventId, JobId, TransferId};
use ports::StoreError;
use ports::jobs::{Job, JobKind, Lease, Queue};

/// How long a claim holds its jobs unless its runner extends the lease.
/// A runner heartbeats every `HEARTBEAT_SECS` while it works, so a job is
/// never claimed twice while running; a dead runner's jobs are due again
/// within this many seconds.
pub const LEASE_SECS: i64 = 15;
pub const HEARTBEAT_SECS: u64 = 5;

/// How long a delivery waits, untried, when its account's share of the
/// deliveries in flight was taken between its claim and its start.
const BUSY_ACCOUNT_SECS: i64 = 1;

/// Jobs claimed together under one lease.
#[derive(Debug)]
pub struct Claim {
    pub lease: String,
    pub jobs: Vec<Job>,
}

/// Webhook deliveries claimed together under one lease, each holding its
/// place among the deliveries in flight until it ends.
pub struct Deliveries {
    pub lease: String,
    /// How many jobs the claim leased, those put back untried included.
    pub claimed: usize,
    admitted: Vec<(Job, Slot)>,
}

impl App {
    /// Leases up to `limit` due jobs of the work queue (all but webhook
    /// deliveries).
    pub async fn claim_jobs(&self, limit: u32) -> Result<Claim, StoreError> {
        self.lease_jobs(Queue::Work, limit, &[]).await
    }

    async fn lease_jobs(&self, queue: Queue, limit: u32, skip: &[AccountId]) -> Result<Claim, StoreError> {
        let lease = Lease {
            token: self.ports.ids.unique(),
            secs: LEASE_SECS,
        };
        let jobs = self
            .ports
            .jobs
            .claim(queue, &lease, self.ports.clock.now(), limit, skip)
            .await?;
        Ok(Claim {
            lease: lease.token,
            jobs,
        })
    }

    /// How many more webhook deliveries this process may have in flight.
    pub fn delivery_room(&self) -> u32 {
        self.delivery_gate.room().0
    }

    /// Waits until a delivery in flight ends.
    pub async fn delivery_freed(&self) {
        self.delivery_gate.freed().await;
    }

    /// Leases up to `limit` due webhook deliveries (fewer when this
    /// process has less room), none of an account whose share is taken, and
    /// gives each its place in flight; one whose account's share was taken
    /// meanwhile is put back untried.
    pub async fn claim_deliveries(&self, limit: u32) -> Result<Deliveries, StoreError> {
        let (room, full) = self.delivery_gate.room();
        let claim = self.lease_jobs(Queue::Webhooks, room.min(limit), &full).await?;
        let claimed = claim.jobs.len();
        let mut admitted = Vec::with_capacity(claimed);
        let now = self.ports.clock.now();
        for job in claim.jobs {
            match self.delivery_gate.slot(&job.account_id) {
                Some(slot) => admitted.push((job, slot)),
                None => self.ports.jobs.postpone(&job, now.plus(BUSY_ACCOUNT_SECS), now).await?,
            }
        }
        Ok(Deliveries {
            lease: claim.lease,
            claimed,
            admitted,
        })
    }

    /// Makes a claim's deliveries, all at once; those delivered leave the
    /// queue together.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn run_deliveries(&self, deliveries: Deliveries) -> Result<(), StoreError> {
        let running = deliveries
            .admitted
            .into_iter()
            .map(|(job, slot)| self.run_delivery(job, slot));
        let mut done = vec![];
        for finished in futures::future::join_all(running).await {
            done.extend(finished?);
        }
        if !done.is_empty() {
            self.ports.jobs.complete(&deliveries.lease, &done).await?;
        }
        Ok(())
    }

    /// Keeps a claim's jobs leased: the runner's heartbeat. `false` when
    /// the claim holds none any more.
    pub async fn extend_lease(&self, lease: &str) -> Result<bool, StoreError> {
        let until = self.ports.clock.now().plus(LEASE_SECS);
        self.ports.jobs.extend(lease, until).await
    }

    /// Runs a claim of work. The settlements among them run as one batch
    /// (one transaction); the jobs that succeeded leave the queue together.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn run_jobs(&self, claim: Claim) -> Result<(), StoreError> {
        let transfers: Vec<TransferId> = claim
            .jobs
            .iter()
            .filter(|job| job.kind == JobKind::SettleCardTransfer)
            .map(|job| TransferId::new(&job.subject))
            .collect();
        let mut settled = self.settle_card_transfers(&transfers).await.into_iter();
        let mut done = vec![];
        for job in claim.jobs {
            let outcome = match job.kind {
                // Never in the work queue: `claim_deliveries` leases them.
                JobKind::DeliverWebhook => Err("a delivery is made from the webhook queue".into()),
                JobKind::VerifyCardholder => self.verify_cardholder(&CardholderId::new(&job.subject)).await,
                JobKind::CardInactivity => self.run_inactivity_rule(&CardId::new(&job.subject)).await,
                JobKind::CardMaintenanceFee => self.charge_maintenance_fee(&job.subject).await,
                JobKind::ExpireChallenge => self.expire_challenge((&job.account_id, job.mode), &job.subject).await,
                JobKind::ExpireAuthorization => {
                    self.expire_authorization((&job.account_id, job.mode), &job.subject)
                        .await
                }
                JobKind::RewardRules => self.run_reward_rules((&job.account_id, job.mode), &job.subject).await,
                JobKind::DeleteCardholderCards => self
                    .delete_cards_of((&job.account_id, job.mode), &CardholderId::new(&job.subject))
                    .await
                    .map_err(|e| e.to_string()),
                JobKind::SyncProcessorCard => {
                    self.sync_processor_card((&job.account_id, job.mode), &CardId::new(&job.subject))
                        .await
                }
                JobKind::SettleCardTransfer => settled.next().unwrap_or(Err("not in the settled batch".into())),
            };
            done.extend(self.done_or_retried(job, outcome).await?);
        }
        if !done.is_empty() {
            self.ports.jobs.complete(&claim.lease, &done).await?;
        }
        Ok(())
    }

    /// One delivery job, holding its place in flight (`_slot`) until it
    /// ends: tried when its endpoint is not resting, else put back
    /// untried; a failed one is retried as soon as it failed, as a lone one
    /// would be.
    async fn run_delivery(&self, job: Job, _slot: Slot) -> Result<Option<JobId>, StoreError> {
        let now = self.ports.clock.now();
        let last_attempt = job.attempts >= job.max_attempts;
        match self.deliver_webhook(&EventId::new(&job.subject), last_attempt).await {
            Ok(()) => Ok(Some(ran(job, "done").id)),
            Err(Undelivered::Resting(until)) => {
                let job = ran(job, "postponed");
                self.ports.jobs.postpone(&job, until, now).await.map(|()| None)
            }
            Err(Undelivered::Failed(error)) => self.retry_later(job, &error).await.map(|()| None),
        }
    }

    /// A job that succeeded, to complete with the batch; or, failed,
    /// rescheduled or parked at once.
    async fn done_or_retried(&self, job: Job, outcome: Result<(), String>) -> Result<Option<JobId>, StoreError> {
        match outcome {
            Ok(()) => Ok(Some(ran(job, "done").id)),
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
            Some(delay) => {
                let job = ran(job, "retried");
                self.ports.jobs.reschedule(&job, error, now.plus(delay), now).await
            }
            None => self.ports.jobs.park(&ran(job, "parked"), error, now).await,
        }
    }
}

/// Counts a job's run by kind and `outcome` (`issuing_job_runs_total`:
/// settlements and webhook deliveries among them): `done`, `retried`,
/// `parked`, or `postponed` untried.
fn ran(job: Job, outcome: &'static str) -> Job {
    metrics::counter!("issuing_job_runs_total", "kind" => job.kind.as_str(), "outcome" => outcome).increment(1);
    job
}

#[cfg(test)]
mod tests {
    use super::Claim;
    use crate::testing::Mocks;
    use domain::Mode;
    use domain::ids::{AccountId, JobId};
    use ports::jobs::{Job, JobKind, Queue};

    fn job(attempts: u32) -> Job {
        Job {
            id: JobId::new("job_1"),
            lease: "lease_1".into(),
            account_id: AccountId::new("acct_1"),
            mode: Mode::Test,
            kind: JobKind::DeliverWebhook,
            subject: "evt_1".into(),
            attempts,
            max_attempts: 10,
        }
    }

    fn claim(jobs: Vec<Job>) -> Claim {
        Claim {
            lease: "lease_1".into(),
            jobs,
        }
    }

    /// A delivery job whose event has nowhere to go fails nothing; one
    /// whose event lookup fails is retried or parked.
    fn mocks(lookup_fails: bool) -> Mocks {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.ids.expect_fraction().return_const(0.5);
        m.events.expect_delivery_target().returning(move |_| {
            if lookup_fails {
                Err(ports::StoreError::new("down"))
            } else {
                Ok(None)
            }
        });
        m
    }

    /// Claims `jobs` as webhook deliveries, under `lease_1`, and makes them.
    async fn deliver(mut m: Mocks, jobs: Vec<Job>) {
        m.ids.expect_unique().return_const("lease_1".to_string());
        m.jobs.expect_claim().return_once(move |queue, _, _, limit, skip| {
            assert_eq!((queue, limit, skip), (Queue::Webhooks, 16, &[][..]));
            Ok(jobs)
        });
        let app = m.app();
        let deliveries = app.claim_deliveries(16).await.unwrap();
        assert_eq!(deliveries.claimed, 1);
        app.run_deliveries(deliveries).await.unwrap();
    }

    #[tokio::test]
    async fn a_claim_leases_its_jobs_under_a_fresh_token_for_a_short_lease() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.ids.expect_unique().return_const("tok".to_string());
        m.jobs
            .expect_claim()
            .times(1)
            .returning(|queue, lease, _, limit, skip| {
                assert_eq!(
                    (queue, lease.token.as_str(), lease.secs, limit, skip),
                    (Queue::Work, "tok", 15, 8, &[][..])
                );
                Ok(vec![job(1)])
            });
        m.jobs
            .expect_extend()
            .withf(|lease, until| lease == "tok" && until.unix() == 1_015)
            .times(1)
            .returning(|_, _| Ok(true));
        let app = m.app();
        let claimed = app.claim_jobs(8).await.unwrap();
        assert_eq!((claimed.lease.as_str(), claimed.jobs.len()), ("tok", 1));
        assert!(app.extend_lease(&claimed.lease).await.unwrap());
    }

    #[tokio::test]
    async fn a_finished_job_is_completed_under_its_lease() {
        let mut m = mocks(false);
        m.jobs
            .expect_complete()
            .withf(|lease, ids| lease == "lease_1" && ids == [JobId::new("job_1")])
            .times(1)
            .returning(|_, _| Ok(()));
        deliver(m, vec![job(1)]).await;
    }

    #[tokio::test]
    async fn a_failed_attempt_is_rescheduled_on_the_retry_schedule() {
        let mut m = mocks(true);
        m.jobs
            .expect_reschedule()
            .times(1)
            .withf(|_, error, run_at, _| error.contains("down") && run_at.unix() == 1_000 + 300)
            .returning(|_, _, _, _| Ok(()));
        deliver(m, vec![job(2)]).await;
    }

    #[tokio::test]
    async fn a_settlement_is_retried_on_the_money_schedule_within_seconds() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.ids.expect_fraction().return_const(0.5);
        m.cards
            .expect_transfers()
            .returning(|_| Err(ports::StoreError::new("down")));
        m.jobs
            .expect_reschedule()
            .times(1)
            .withf(|_, _, run_at, _| run_at.unix() == 1_000 + 5)
            .returning(|_, _, _, _| Ok(()));
        let settlement = Job {
            kind: JobKind::SettleCardTransfer,
            subject: "tr_1".into(),
            ..job(1)
        };
        m.app().run_jobs(claim(vec![settlement])).await.unwrap();
    }

    #[tokio::test]
    async fn the_last_failed_attempt_parks_the_job() {
        let mut m = mocks(true);
        m.jobs.expect_park().times(1).returning(|_, _, _| Ok(()));
        deliver(m, vec![job(10)]).await;
    }
}

use crate::StoreError;
use domain::ids::{AccountId, JobId};
use domain::retry::RetrySchedule;
use domain::{Mode, Timestamp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// POST an event to the account's webhook URL; subject: the event id.
    DeliverWebhook,
    /// Verify a cardholder registered asynchronously; subject: its id.
    VerifyCardholder,
    /// Settle a card funding or unloading; subject: the transfer id.
    SettleCardTransfer,
    /// Remind of, or carry out, the deletion of an inactive card; subject:
    /// the card id.
    CardInactivity,
    /// Charge a card's monthly maintenance fee; subject: the card id.
    CardMaintenanceFee,
    /// Decline a 3-D Secure challenge left unanswered; subject: the card
    /// id and the challenge's reference, space-separated.
    ExpireChallenge,
    /// Apply an account's reward rules to a cardholder; subject: its id
    /// (after a debit), or its id and the debit time an inactivity check
    /// counts from, space-separated.
    RewardRules,
    /// Delete what cards a deleted cardholder still has, returning their
    /// money: stored with the cardholder's deletion, so a deletion cut
    /// short (a crash, a refused step) is finished; subject: its id.
    DeleteCardholderCards,
    /// Set a processor-kept card's status at the processor to the
    /// card's own (active, frozen, or terminated once deleted); subject:
    /// the card id.
    SyncProcessorCard,
    /// Release an authorization's hold left uncaptured; subject: its
    /// issuer reference.
    ExpireAuthorization,
}

/// The runners a job waits for. Money, checks and rules never queue
/// behind webhook deliveries, which may wait on slow or dead endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    Work,
    Webhooks,
}

impl Queue {
    /// The kinds of job this queue runs.
    pub fn kinds(self) -> Vec<&'static str> {
        JobKind::ALL
            .into_iter()
            .filter(|k| k.queue() == self)
            .map(JobKind::as_str)
            .collect()
    }
}

impl JobKind {
    pub fn queue(self) -> Queue {
        match self {
            JobKind::DeliverWebhook => Queue::Webhooks,
            _ => Queue::Work,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::DeliverWebhook => "deliver_webhook",
            JobKind::VerifyCardholder => "verify_cardholder",
            JobKind::SettleCardTransfer => "settle_card_transfer",
            JobKind::CardInactivity => "card_inactivity",
            JobKind::CardMaintenanceFee => "card_maintenance_fee",
            JobKind::ExpireChallenge => "expire_challenge",
            JobKind::RewardRules => "reward_rules",
            JobKind::DeleteCardholderCards => "delete_cardholder_cards",
            JobKind::SyncProcessorCard => "sync_processor_card",
            JobKind::ExpireAuthorization => "expire_authorization",
        }
    }

    /// How a failed job of this kind is retried before it is parked.
    pub fn retry_schedule(self) -> RetrySchedule {
        match self {
            JobKind::DeliverWebhook => RetrySchedule::WEBHOOKS,
            JobKind::SettleCardTransfer
            | JobKind::CardMaintenanceFee
            | JobKind::DeleteCardholderCards
            | JobKind::ExpireAuthorization => RetrySchedule::MONEY,
            JobKind::VerifyCardholder
            | JobKind::CardInactivity
            | JobKind::ExpireChallenge
            | JobKind::RewardRules
            | JobKind::SyncProcessorCard => RetrySchedule::CHECKS,
        }
    }

    /// Whether a parked job of this kind leaves money where it should not
    /// stay (in transit, a fee uncharged, on a deleted cardholder's card,
    /// or held past its expiry): `issuing ledger check` reports it.
    pub fn moves_money(self) -> bool {
        matches!(
            self,
            JobKind::SettleCardTransfer
                | JobKind::CardMaintenanceFee
                | JobKind::DeleteCardholderCards
                | JobKind::ExpireAuthorization
        )
    }

    pub const ALL: [JobKind; 10] = [
        JobKind::DeliverWebhook,
        JobKind::VerifyCardholder,
        JobKind::SettleCardTransfer,
        JobKind::CardInactivity,
        JobKind::CardMaintenanceFee,
        JobKind::ExpireChallenge,
        JobKind::RewardRules,
        JobKind::DeleteCardholderCards,
        JobKind::SyncProcessorCard,
        JobKind::ExpireAuthorization,
    ];

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == value)
    }
}

/// A job to insert, in the same transaction as the change that promised it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJob {
    pub id: JobId,
    pub kind: JobKind,
    pub subject: String,
    pub max_attempts: u32,
    pub run_at: Timestamp,
}

/// One claim's hold on its jobs: a token unique to the claim, and how
/// long the hold lasts unless extended. Finishing, rescheduling and
/// extending go through the token, so a runner whose lease ran out (and
/// whose jobs another runner claimed) changes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub token: String,
    pub secs: i64,
}

/// A job a worker has claimed (leased) and must finish, reschedule or park.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: JobId,
    /// The token of the claim that leased it.
    pub lease: String,
    pub account_id: AccountId,
    pub mode: Mode,
    pub kind: JobKind,
    pub subject: String,
    /// Attempts so far, this one included.
    pub attempts: u32,
    pub max_attempts: u32,
}

/// A job as operators see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSummary {
    pub id: String,
    pub account_id: String,
    pub mode: Mode,
    pub kind: String,
    pub subject: String,
    pub state: String,
    pub attempts: u32,
    pub max_attempts: u32,
    pub run_at: Timestamp,
    pub last_error: Option<String>,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait JobStore: Send + Sync {
    /// Leases up to `limit` due jobs of `queue` (pending and due, or
    /// running with an expired lease) under `lease`, none of the accounts
    /// in `skip`. No job is leased twice at once, in any number of
    /// processes.
    async fn claim(
        &self,
        queue: Queue,
        lease: &Lease,
        now: Timestamp,
        limit: u32,
        skip: &[AccountId],
    ) -> Result<Vec<Job>, StoreError>;

    /// The jobs still held under `lease` are held until `until`: the
    /// heartbeat of a runner that is still working on them. `false` when
    /// none is held any more (the lease ran out and another runner took
    /// them, or all are finished).
    async fn extend(&self, lease: &str, until: Timestamp) -> Result<bool, StoreError>;

    /// Stores a job that no other change goes with (a time rule's next run).
    async fn schedule(&self, job: NewJob, account: &AccountId, mode: Mode) -> Result<(), StoreError>;

    /// The jobs, still held under `lease`, are done: they leave the queue
    /// (in one statement).
    async fn complete(&self, lease: &str, ids: &[JobId]) -> Result<(), StoreError>;

    /// Back to pending, due at `run_at`, keeping `error`.
    async fn reschedule(&self, job: &Job, error: &str, run_at: Timestamp, now: Timestamp) -> Result<(), StoreError>;

    /// Back to pending, due at `run_at`, without counting this claim as an
    /// attempt: the job was not tried (its endpoint is resting, or its
    /// account has as many deliveries in flight as it may).
    async fn postpone(&self, job: &Job, run_at: Timestamp, now: Timestamp) -> Result<(), StoreError>;

    /// Gives up: the job is kept as failed with its last error.
    async fn park(&self, job: &Job, error: &str, now: Timestamp) -> Result<(), StoreError>;

    /// Pending, running and failed jobs (only failed ones with
    /// `failed_only`), oldest first.
    async fn list(&self, failed_only: bool, limit: u32) -> Result<Vec<JobSummary>, StoreError>;

    /// A parked job back to pending, due now, with a fresh set of attempts.
    /// `false` when no parked job has this id.
    async fn retry(&self, id: &JobId, now: Timestamp) -> Result<bool, StoreError>;
}

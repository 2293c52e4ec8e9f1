//! The job queue. Claiming leases due jobs with one UPDATE; on PostgreSQL
//! its candidate rows are locked `FOR UPDATE SKIP LOCKED`, so any number of
//! worker processes share the queue without waiting on each other or
//! taking a job twice. SQLite has one writer at a time, so the same UPDATE
//! is already exclusive there. Every change to a claimed job goes through
//! its claim's lease token: a runner that outlived its lease changes nothing.

use crate::db::schema::jobs;
use crate::db::{Db, DbError, DbPool, with_conn};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ids::{AccountId, JobId};
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::jobs::{Job, JobKind, JobStore, JobSummary, Lease, NewJob, Queue};

pub(in crate::db) const PENDING: &str = "pending";
pub(in crate::db) const RUNNING: &str = "running";
pub(in crate::db) const FAILED: &str = "failed";

/// The stored kinds of the jobs that move money (`JobKind::moves_money`):
/// parked, each is a ledger-check breach.
pub(in crate::db) fn money_kinds() -> Vec<&'static str> {
    JobKind::ALL
        .into_iter()
        .filter(|k| k.moves_money())
        .map(JobKind::as_str)
        .collect()
}

#[derive(Insertable)]
#[diesel(table_name = jobs)]
pub struct JobRow {
    pub(in crate::db) id: String,
    pub(in crate::db) account_id: String,
    pub(in crate::db) livemode: bool,
    pub(in crate::db) kind: &'static str,
    pub(in crate::db) subject: String,
    pub(in crate::db) state: &'static str,
    pub(in crate::db) attempts: i32,
    pub(in crate::db) max_attempts: i32,
    pub(in crate::db) run_at: i64,
    pub(in crate::db) created_at: i64,
    pub(in crate::db) updated_at: i64,
}

impl JobRow {
    /// The row of `job`, for the account and mode whose change promised
    /// it. A job is made when it is first due, so that is its creation time.
    pub fn new(job: NewJob, account: &AccountId, mode: Mode) -> Self {
        JobRow {
            id: job.id.to_string(),
            account_id: account.to_string(),
            livemode: mode.is_live(),
            kind: job.kind.as_str(),
            subject: job.subject,
            state: PENDING,
            attempts: 0,
            max_attempts: i32::try_from(job.max_attempts).unwrap_or(i32::MAX),
            run_at: job.run_at.unix(),
            created_at: job.run_at.unix(),
            updated_at: job.run_at.unix(),
        }
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = jobs)]
struct ClaimedRow {
    id: String,
    lease: Option<String>,
    account_id: String,
    livemode: bool,
    kind: String,
    subject: String,
    attempts: i32,
    max_attempts: i32,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = jobs)]
struct SummaryRow {
    id: String,
    account_id: String,
    livemode: bool,
    kind: String,
    subject: String,
    state: String,
    attempts: i32,
    max_attempts: i32,
    run_at: i64,
    last_error: Option<String>,
}

/// A leased job handed back: due again at `run_at` (pending) or kept as
/// it is (parked), with its last error; a postponed one gives back the
/// attempt its claim counted.
#[derive(AsChangeset)]
#[diesel(table_name = jobs)]
struct Release<'a> {
    state: &'static str,
    run_at: Option<i64>,
    locked_until: Option<Option<i64>>,
    lease: Option<Option<String>>,
    last_error: Option<&'a str>,
    updated_at: i64,
}

impl<'a> Release<'a> {
    fn new(state: &'static str, run_at: Option<Timestamp>, last_error: Option<&'a str>, now: Timestamp) -> Self {
        Release {
            state,
            run_at: run_at.map(Timestamp::unix),
            locked_until: Some(None),
            lease: Some(None),
            last_error,
            updated_at: now.unix(),
        }
    }
}

/// The rows of `ids` that the claim `lease` still holds.
macro_rules! held {
    ($lease:expr, $ids:expr) => {
        jobs::table
            .filter(jobs::id.eq_any($ids))
            .filter(jobs::state.eq(RUNNING))
            .filter(jobs::lease.eq($lease))
    };
}

impl Db {
    async fn release(&self, job: &Job, release: Release<'_>, attempt_counts: bool) -> Result<(), StoreError> {
        let (release, ids) = (&release, [job.id.as_str()]);
        let given_back = i32::from(!attempt_counts);
        with_conn!(self.pool(), |conn| {
            diesel::update(held!(&job.lease, ids))
                .set((release, jobs::attempts.eq(jobs::attempts - given_back)))
                .execute(conn)
                .await
        })?;
        Ok(())
    }
}

fn count(n: i32) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

/// A queue's jobs in one state, as literal SQL: the partial indexes that
/// find a queue's due jobs (migration `job_claims`) state exactly these,
/// and a planner matches a query to a partial index only when it can see
/// the values (not `$1`, which PostgreSQL's generic plans and SQLite's
/// plans cannot read). Its text is fixed per queue and state, so
/// PostgreSQL still prepares each claim once per connection.
#[derive(Debug, Clone, Copy)]
struct InQueue {
    queue: Queue,
    /// Leased (`running`), rather than waiting (`pending`).
    leased: bool,
}

impl InQueue {
    fn sql(self) -> &'static str {
        match (self.queue, self.leased) {
            (Queue::Work, false) => "jobs.state = 'pending' AND jobs.kind <> 'deliver_webhook'",
            (Queue::Work, true) => "jobs.state = 'running' AND jobs.kind <> 'deliver_webhook'",
            (Queue::Webhooks, false) => "jobs.state = 'pending' AND jobs.kind = 'deliver_webhook'",
            (Queue::Webhooks, true) => "jobs.state = 'running' AND jobs.kind = 'deliver_webhook'",
        }
    }
}

impl diesel::Expression for InQueue {
    type SqlType = diesel::sql_types::Bool;
}

impl<DB: diesel::backend::Backend> diesel::query_builder::QueryFragment<DB> for InQueue {
    fn walk_ast<'b>(&'b self, mut out: diesel::query_builder::AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(self.sql());
        Ok(())
    }
}

/// No static id: diesel caches the statement by its text, one per queue.
impl diesel::query_builder::QueryId for InQueue {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl diesel::AppearsOnTable<jobs::table> for InQueue {}

impl diesel::expression::ValidGrouping<()> for InQueue {
    type IsAggregate = diesel::expression::is_aggregate::Never;
}

/// Leases up to `$limit` due jobs of `$queue` in one transaction: those
/// whose lease ran out (oldest first), then those waiting (by `run_at`),
/// each read from its partial index in order, so a claim reads the jobs
/// it leases and not the whole backlog (but for the jobs of accounts in
/// `$skip`, read past). Expanded once per backend;
/// `$lock` adds the row-locking clause.
macro_rules! claim_on {
    ($pool:expr, $queue:expr, $now:expr, $lease:expr, $limit:expr, $skip:expr, $($lock:tt)*) => {{
        let lease: &Lease = $lease;
        let (queue, now, limit): (Queue, i64, i64) = ($queue, $now, $limit);
        let skip: &[&str] = $skip;
        let mut conn = $pool.get().await.map_err(DbError::pool)?;
        conn.transaction::<_, diesel::result::Error, _>(async |conn| {
            let mut ids = jobs::table
                .filter(InQueue { queue, leased: true })
                .filter(jobs::locked_until.le(now))
                .filter(jobs::account_id.ne_all(skip))
                .order(jobs::locked_until)
                .limit(limit)
                .select(jobs::id)
                $($lock)*
                .load::<String>(conn)
                .await?;
            let waiting = jobs::table
                .filter(InQueue { queue, leased: false })
                .filter(jobs::run_at.le(now))
                .filter(jobs::account_id.ne_all(skip))
                .order(jobs::run_at)
                .limit(limit)
                .select(jobs::id)
                $($lock)*
                .load::<String>(conn)
                .await?;
            ids.extend(waiting);
            ids.truncate(usize::try_from(limit).unwrap_or(0));
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            diesel::update(jobs::table.filter(jobs::id.eq_any(&ids)))
                .set((
                    jobs::state.eq(RUNNING),
                    jobs::attempts.eq(jobs::attempts + 1),
                    jobs::locked_until.eq(now + lease.secs),
                    jobs::lease.eq(&lease.token),
                    jobs::updated_at.eq(now),
                ))
                .returning(ClaimedRow::as_returning())
                .get_results::<ClaimedRow>(conn)
                .await
        })
        .await
        .map_err(DbError::from)
    }};
}

#[async_trait::async_trait]
impl JobStore for Db {
    async fn schedule(&self, job: NewJob, account: &AccountId, mode: Mode) -> Result<(), StoreError> {
        let row = &JobRow::new(job, account, mode);
        with_conn!(self.pool(), |conn| diesel::insert_into(jobs::table)
            .values(row)
            .execute(conn)
            .await)?;
        Ok(())
    }

    async fn claim(
        &self,
        queue: Queue,
        lease: &Lease,
        now: Timestamp,
        limit: u32,
        skip: &[AccountId],
    ) -> Result<Vec<Job>, StoreError> {
        let now = now.unix();
        let limit = i64::from(limit);
        let skip: Vec<&str> = skip.iter().map(AccountId::as_str).collect();
        let rows = match self.pool() {
            DbPool::Pg(pool) => {
                claim_on!(pool, queue, now, lease, limit, &skip, .for_update().skip_locked())
            }
            DbPool::Sqlite(pool) => claim_on!(pool, queue, now, lease, limit, &skip,),
        }?;
        rows.into_iter()
            .map(|r| {
                let kind = JobKind::parse(&r.kind)
                    .ok_or_else(|| StoreError::new(format!("job {} has unknown kind {}", r.id, r.kind)))?;
                Ok(Job {
                    id: JobId::new(r.id),
                    lease: r.lease.unwrap_or_default(),
                    account_id: AccountId::new(r.account_id),
                    mode: Mode::from_live(r.livemode),
                    kind,
                    subject: r.subject,
                    attempts: count(r.attempts),
                    max_attempts: count(r.max_attempts),
                })
            })
            .collect()
    }

    async fn extend(&self, lease: &str, until: Timestamp) -> Result<bool, StoreError> {
        let held = with_conn!(self.pool(), |conn| {
            diesel::update(
                jobs::table
                    .filter(jobs::lease.eq(lease))
                    .filter(jobs::state.eq(RUNNING)),
            )
            .set(jobs::locked_until.eq(until.unix()))
            .execute(conn)
            .await
        })?;
        Ok(held > 0)
    }

    async fn complete(&self, lease: &str, ids: &[JobId]) -> Result<(), StoreError> {
        // Finished jobs leave the queue; what they did is in its own tables.
        let ids: Vec<&str> = ids.iter().map(JobId::as_str).collect();
        with_conn!(self.pool(), |conn| {
            diesel::delete(held!(lease, &ids)).execute(conn).await
        })?;
        Ok(())
    }

    async fn reschedule(&self, job: &Job, error: &str, run_at: Timestamp, now: Timestamp) -> Result<(), StoreError> {
        self.release(job, Release::new(PENDING, Some(run_at), Some(error), now), true)
            .await
    }

    async fn postpone(&self, job: &Job, run_at: Timestamp, now: Timestamp) -> Result<(), StoreError> {
        self.release(job, Release::new(PENDING, Some(run_at), None, now), false)
            .await
    }

    async fn park(&self, job: &Job, error: &str, now: Timestamp) -> Result<(), StoreError> {
        self.release(job, Release::new(FAILED, None, Some(error), now), true)
            .await
    }

    async fn list(&self, failed_only: bool, limit: u32) -> Result<Vec<JobSummary>, StoreError> {
        let states: &[&str] = if failed_only {
            &[FAILED]
        } else {
            &[PENDING, RUNNING, FAILED]
        };
        let rows = with_conn!(self.pool(), |conn| {
            jobs::table
                .filter(jobs::state.eq_any(states))
                .order((jobs::created_at, jobs::id))
                .limit(i64::from(limit))
                .select(SummaryRow::as_select())
                .load::<SummaryRow>(conn)
                .await
        })?;
        Ok(rows
            .into_iter()
            .map(|r| JobSummary {
                id: r.id,
                account_id: r.account_id,
                mode: Mode::from_live(r.livemode),
                kind: r.kind,
                subject: r.subject,
                state: r.state,
                attempts: count(r.attempts),
                max_attempts: count(r.max_attempts),
                run_at: Timestamp::from_unix(r.run_at),
                last_error: r.last_error,
            })
            .collect())
    }

    async fn retry(&self, id: &JobId, now: Timestamp) -> Result<bool, StoreError> {
        let now = now.unix();
        let updated = with_conn!(self.pool(), |conn| {
            diesel::update(
                jobs::table
                    .filter(jobs::id.eq(id.as_str()))
                    .filter(jobs::state.eq(FAILED)),
            )
            .set((
                jobs::state.eq(PENDING),
                jobs::attempts.eq(0),
                jobs::run_at.eq(now),
                jobs::updated_at.eq(now),
            ))
            .execute(conn)
            .await
        })?;
        Ok(updated == 1)
    }
}

//! What the metrics read at each scrape rather than count as it happens:
//! the pool's connections, and the job queue (due, running and parked
//! jobs by kind, the oldest due job's age, parked money jobs).

use crate::db::jobs::queue::{FAILED, PENDING, RUNNING};
use crate::db::schema::jobs;
use crate::db::{Db, DbPool, with_conn};
use diesel::dsl::{count_star, min};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::Timestamp;
use metrics::gauge;
use ports::StoreError;
use ports::jobs::JobKind;

impl Db {
    /// Sets the gauges to what the pool and the job queue hold at `now`.
    pub async fn record_gauges(&self, now: Timestamp) -> Result<(), StoreError> {
        let status = match self.pool() {
            DbPool::Pg(pool) => pool.status(),
            DbPool::Sqlite(pool) => pool.status(),
        };
        gauge!("issuing_db_pool_max_connections").set(status.max_size as f64);
        gauge!("issuing_db_pool_connections", "state" => "idle").set(status.available as f64);
        let in_use = status.size.saturating_sub(status.available);
        gauge!("issuing_db_pool_connections", "state" => "in_use").set(in_use as f64);
        gauge!("issuing_db_pool_waiting_requests").set(status.waiting as f64);

        let now = now.unix();
        let rows = with_conn!(self.pool(), |conn| {
            jobs::table
                .filter(
                    jobs::state
                        .eq(PENDING)
                        .and(jobs::run_at.le(now))
                        .or(jobs::state.eq_any([RUNNING, FAILED])),
                )
                .group_by((jobs::kind, jobs::state))
                .select((jobs::kind, jobs::state, count_star(), min(jobs::run_at)))
                .load::<(String, String, i64, Option<i64>)>(conn)
                .await
        })?;
        let mut parked_money = 0;
        // Every kind is set, so a queue emptied reads 0, not its last value.
        for kind in JobKind::ALL {
            let of = |state: &str| rows.iter().find(|r| r.0 == kind.as_str() && r.1 == state);
            let count = |state: &str| of(state).map_or(0, |r| r.2);
            let name = kind.as_str();
            gauge!("issuing_jobs", "kind" => name, "state" => "due").set(count(PENDING) as f64);
            gauge!("issuing_jobs", "kind" => name, "state" => "running").set(count(RUNNING) as f64);
            gauge!("issuing_jobs", "kind" => name, "state" => "parked").set(count(FAILED) as f64);
            let oldest = of(PENDING)
                .and_then(|r| r.3)
                .map_or(0, |due| now.saturating_sub(due).max(0));
            gauge!("issuing_job_oldest_due_seconds", "kind" => name).set(oldest as f64);
            if kind.moves_money() {
                parked_money += count(FAILED);
            }
        }
        gauge!("issuing_money_jobs_parked").set(parked_money as f64);
        Ok(())
    }
}

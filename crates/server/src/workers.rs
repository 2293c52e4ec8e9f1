//! Background job runners. Money, checks and rules have their own runners:
//! they never wait behind webhook deliveries, which may wait on slow
//! endpoints. A work runner claims a batch, runs it, and claims the next,
//! at once while its claims are full; otherwise it first lets this
//! process's money requests in flight be answered (a few seconds at most);
//! the webhook runner keeps claiming while it has room for more deliveries
//! in flight, so a batch of slow ones never holds the rest. Every claim's
//! lease is heartbeated while its jobs run: a job is never run twice at
//! once, and a dead process's jobs are due again within seconds.

use crate::cli::WorkerArgs;
use app::App;
use app::jobs::{Claim, HEARTBEAT_SECS};
use ports::jobs::Queue;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// How many jobs one claim of work leases at most on PostgreSQL.
/// Settlements among them share one transaction, whose statements do not
/// grow with its size: after a burst (see [`YIELD`]), the backlog drains
/// in few of them. Such a transaction locks only its cards.
const WORK_BATCH: u32 = 256;

/// The same on SQLite, where a transaction holds the one write lock: a
/// batch of 256 held the requests' writes back long enough to double the
/// fundings' p99 under load (97 and 109 ms against 54 and 60 ms for 64).
const SQLITE_WORK_BATCH: u32 = 64;

/// How long a runner whose claim was not full waits before claiming
/// again, so that under load the next batch gathers what arrived.
const GATHER: Duration = Duration::from_millis(50);

/// How long, at most, a runner leaves the CPU and the database to this
/// process's money requests in flight before it claims: under a burst a
/// funding is answered first and settled after it. A runner draining full
/// claims does not yield, so sustained load cannot starve the work.
const YIELD: Duration = Duration::from_secs(3);

/// How many deliveries one claim leases at most: a claim holds its
/// in-flight slots until its slowest delivery ends, so it must stay well
/// below `DELIVERIES_IN_FLIGHT`, or one account's hanging endpoint would
/// hold every slot.
const DELIVERY_BATCH: u32 = 16;

/// Webhook deliveries in flight at once per process (each account has at
/// most `app::events::PER_ACCOUNT` of them).
const DELIVERIES_IN_FLIGHT: usize = 64;

/// Starts the runners on the current runtime: for work, one on SQLite (it
/// has one writer at a time anyway) or `--workers`; for webhooks, one that
/// keeps up to `DELIVERIES_IN_FLIGHT` deliveries going.
pub fn spawn(app: Arc<App>, args: &WorkerArgs, sqlite: bool) {
    let (work, batch) = match sqlite {
        true => (1, SQLITE_WORK_BATCH),
        false => (args.workers.max(1), WORK_BATCH),
    };
    let poll = Duration::from_millis(args.worker_poll_ms);
    tracing::info!(work, webhooks = DELIVERIES_IN_FLIGHT, "background job runners started");
    for _ in 0..work {
        tokio::spawn(run_work(app.clone(), poll, batch));
    }
    tokio::spawn(run_webhooks(app, poll));
}

/// Claims and runs work; idle, it waits for its poll or for a request of
/// this process to queue work (another process's shows at the poll).
async fn run_work(app: Arc<App>, poll: Duration, batch: u32) {
    let mut draining = false;
    loop {
        if !draining {
            app.money_requests_answered(YIELD).await;
        }
        match app.claim_jobs(Queue::Work, batch).await {
            Ok(claim) if claim.jobs.is_empty() => {
                draining = false;
                tokio::select! {
                    () = tokio::time::sleep(poll) => {}
                    () = app.work_arrived() => {}
                }
            }
            Ok(claim) => {
                draining = claim.jobs.len() == batch as usize;
                run_leased(&app, claim, Lost::RunOn).await;
                if !draining {
                    tokio::time::sleep(GATHER).await;
                }
            }
            Err(e) => failed(&e, poll).await,
        }
    }
}

async fn run_webhooks(app: Arc<App>, poll: Duration) {
    let room = Arc::new(Semaphore::new(DELIVERIES_IN_FLIGHT));
    loop {
        // Wait for room for at least one more delivery.
        let Ok(first) = room.clone().acquire_owned().await else {
            return;
        };
        let free = u32::try_from(room.available_permits() + 1)
            .unwrap_or(DELIVERY_BATCH)
            .min(DELIVERY_BATCH);
        match app.claim_jobs(Queue::Webhooks, free).await {
            Ok(claim) if claim.jobs.is_empty() => {
                drop(first);
                tokio::time::sleep(poll).await;
            }
            Ok(claim) => {
                let more = u32::try_from(claim.jobs.len() - 1).unwrap_or(0);
                let Ok(rest) = room.clone().acquire_many_owned(more).await else {
                    return;
                };
                let app = app.clone();
                tokio::spawn(async move {
                    run_leased(&app, claim, Lost::Stop).await;
                    drop((first, rest));
                });
            }
            Err(e) => {
                drop(first);
                failed(&e, poll).await;
            }
        }
    }
}

/// What a runner does when its heartbeat finds the lease gone (it
/// stalled past it, and another runner took the jobs).
#[derive(Clone, Copy, PartialEq)]
enum Lost {
    /// Deliveries stop at once: the other runner is delivering them.
    Stop,
    /// Money and checks run to their end: each step is guarded in SQL, so
    /// a second run changes nothing, and an abandoned transaction would
    /// only delay the first.
    RunOn,
}

/// Runs a claim's jobs while heartbeating its lease.
async fn run_leased(app: &App, claim: Claim, lost: Lost) {
    let lease = claim.lease.clone();
    let heartbeat = async {
        loop {
            tokio::time::sleep(Duration::from_secs(HEARTBEAT_SECS)).await;
            match app.extend_lease(&lease).await {
                Ok(false) if lost == Lost::Stop => {
                    tracing::warn!("a job lease ran out under its runner: its deliveries stop here");
                    return;
                }
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "could not extend a job lease"),
            }
        }
    };
    tokio::select! {
        ran = app.run_jobs(claim) => if let Err(e) = ran {
            tracing::error!(error = %e, "could not finish background jobs");
        },
        () = heartbeat => {}
    }
}

async fn failed(e: &ports::StoreError, poll: Duration) {
    tracing::error!(error = %e, "could not claim background jobs");
    tokio::time::sleep(poll).await;
}

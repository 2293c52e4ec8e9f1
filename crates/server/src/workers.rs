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
use adapters::system::SystemClock;
use app::App;
use app::cards::Reconciled;
use app::jobs::HEARTBEAT_SECS;
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::clock::Clock;
use std::sync::Arc;
use std::time::Duration;

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

/// How many deliveries one claim leases at most (fewer when the process
/// has less room in flight: `domain::events::share`).
const DELIVERY_BATCH: u32 = 16;

/// Starts the runners on the current runtime: for work, one on SQLite (it
/// has one writer at a time anyway) or `--workers`; for webhooks, one that
/// keeps the process's deliveries in flight going, each account within its
/// share (`domain::events::share`).
pub fn spawn(app: Arc<App>, args: &WorkerArgs, sqlite: bool) {
    let (work, batch) = match sqlite {
        true => (1, SQLITE_WORK_BATCH),
        false => (args.workers.max(1), WORK_BATCH),
    };
    let poll = Duration::from_millis(args.worker_poll_ms);
    tracing::info!(
        work,
        webhooks = domain::events::share::IN_FLIGHT,
        "background job runners started"
    );
    for _ in 0..work {
        tokio::spawn(run_work(app.clone(), poll, batch));
    }
    if args.reconcile_every > 0 {
        // On a thread and a runtime of its own: the money steps' futures
        // are not all provably `Send` (rustc's higher-ranked lifetimes;
        // requests run them where it is not asked), and this one runs
        // hourly. Its own runtime, not the process's: waiting on that one
        // from outside it panics once it shuts down, at every stop.
        let (app, every, grace) = (app.clone(), args.reconcile_every, args.reconcile_grace_secs.into());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
        match runtime {
            Ok(runtime) => {
                std::thread::spawn(move || runtime.block_on(run_reconciliations(app, every, grace)));
            }
            Err(e) => tracing::error!(error = %e, "scheduled reconciliations do not run: no runtime for them"),
        }
    }
    tokio::spawn(run_webhooks(app, poll));
}

/// Reconciles each mode with its processor's books once a period of
/// `every` seconds, over the last day (or two periods, if longer): the
/// run's id names the period, so one process of many runs it; what is
/// younger than `grace` seconds is left to the next.
async fn run_reconciliations(app: Arc<App>, every: u64, grace: i64) {
    let every = i64::try_from(every).unwrap_or(i64::MAX);
    loop {
        let now = SystemClock.now().unix();
        let slot = now / every;
        let since = Timestamp::from_unix(now).minus(every.saturating_mul(2).max(86_400));
        for mode in [Mode::Live, Mode::Test] {
            let id = format!("{}:every:{every}:{slot}", mode.as_str());
            match app.reconcile_transactions(mode, since, grace, Some(id)).await {
                Ok(Reconciled::Ran { run, .. }) => tracing::info!(
                    mode = mode.as_str(),
                    compared = run.compared,
                    differences = run.differences,
                    repaired = run.repaired,
                    unresolved = run.unresolved,
                    "reconciled with the card processor's books"
                ),
                Ok(Reconciled::NoBooks | Reconciled::Taken) => {}
                Err(e) => {
                    tracing::error!(mode = mode.as_str(), error = %e, "could not reconcile with the card processor's books")
                }
            }
        }
        let next = slot.saturating_add(1).saturating_mul(every);
        let wait = next.saturating_sub(SystemClock.now().unix()).max(1);
        tokio::time::sleep(Duration::from_secs(u64::try_from(wait).unwrap_or(1))).await;
    }
}

/// Claims and runs work; idle, it waits for its poll or for a request of
/// this process to queue work (another process's shows at the poll).
async fn run_work(app: Arc<App>, poll: Duration, batch: u32) {
    let mut draining = false;
    loop {
        if !draining {
            app.money_requests_answered(YIELD).await;
        }
        match app.claim_jobs(batch).await {
            Ok(claim) if claim.jobs.is_empty() => {
                draining = false;
                tokio::select! {
                    () = tokio::time::sleep(poll) => {}
                    () = app.work_arrived() => {}
                }
            }
            Ok(claim) => {
                draining = claim.jobs.len() == batch as usize;
                run_leased(&app, claim.lease.clone(), app.run_jobs(claim), Lost::RunOn).await;
                if !draining {
                    tokio::time::sleep(GATHER).await;
                }
            }
            Err(e) => failed(&e, poll).await,
        }
    }
}

/// Claims deliveries while the process has room for more in flight; each
/// holds its own place until it ends, so a claim's hanging delivery holds
/// no one else's.
async fn run_webhooks(app: Arc<App>, poll: Duration) {
    loop {
        if app.delivery_room() == 0 {
            tokio::select! {
                () = tokio::time::sleep(poll) => {}
                () = app.delivery_freed() => {}
            }
            continue;
        }
        match app.claim_deliveries(DELIVERY_BATCH).await {
            Ok(deliveries) if deliveries.claimed == 0 => tokio::time::sleep(poll).await,
            Ok(deliveries) => {
                let app = app.clone();
                tokio::spawn(async move {
                    let lease = deliveries.lease.clone();
                    run_leased(&app, lease, app.run_deliveries(deliveries), Lost::Stop).await;
                });
            }
            Err(e) => failed(&e, poll).await,
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

/// Runs a claim's jobs (`work`) while heartbeating its lease.
async fn run_leased(app: &App, lease: String, work: impl Future<Output = Result<(), StoreError>>, lost: Lost) {
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
        ran = work => if let Err(e) = ran {
            tracing::error!(error = %e, "could not finish background jobs");
        },
        () = heartbeat => {}
    }
}

async fn failed(e: &StoreError, poll: Duration) {
    tracing::error!(error = %e, "could not claim background jobs");
    tokio::time::sleep(poll).await;
}

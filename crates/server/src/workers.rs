//! Background job runners: each loops over `run_due_jobs` of its queue,
//! and waits a poll interval whenever it finds nothing due. Money, checks
//! and rules have their own runners: they never wait behind webhook
//! deliveries, which may wait on slow endpoints.

use crate::cli::WorkerArgs;
use app::App;
use ports::jobs::Queue;
use std::sync::Arc;
use std::time::Duration;

/// How many jobs one runner leases at a time. Settlements among them share
/// one transaction; webhook deliveries run all at once, so a batch (10 s
/// at most each) ends well within the 5-minute lease.
const BATCH: u32 = 16;

/// Starts the runners on the current runtime: for work, one on SQLite (it
/// has one writer at a time anyway) or `--workers`; for webhooks, one, or
/// half as many on PostgreSQL.
pub fn spawn(app: Arc<App>, args: &WorkerArgs, sqlite: bool) {
    let workers = args.workers.max(1);
    let (work, webhooks) = if sqlite { (1, 1) } else { (workers, workers.div_ceil(2)) };
    let poll = Duration::from_millis(args.worker_poll_ms);
    tracing::info!(work, webhooks, "background job runners started");
    for (queue, runners) in [(Queue::Work, work), (Queue::Webhooks, webhooks)] {
        for _ in 0..runners {
            tokio::spawn(run(app.clone(), queue, poll));
        }
    }
}

async fn run(app: Arc<App>, queue: Queue, poll: Duration) {
    loop {
        match app.run_due_jobs(queue, BATCH).await {
            Ok(0) => tokio::time::sleep(poll).await,
            Ok(_) => {}
            Err(e) => {
                tracing::error!(error = %e, "could not run background jobs");
                tokio::time::sleep(poll).await;
            }
        }
    }
}

//! Background job runners: each loops over `run_due_jobs`, and waits a
//! poll interval whenever it finds nothing due.

use crate::cli::WorkerArgs;
use app::App;
use std::sync::Arc;
use std::time::Duration;

/// How many jobs one runner leases at a time. Settlements among them share
/// one transaction; webhook deliveries run one after another, so all of
/// them (10 s at most each) end well within the 5-minute lease.
const BATCH: u32 = 16;

/// Starts the runners on the current runtime. SQLite gets one runner: it
/// has one writer at a time anyway.
pub fn spawn(app: Arc<App>, args: &WorkerArgs, sqlite: bool) {
    let runners = if sqlite { 1 } else { args.workers.max(1) };
    let poll = Duration::from_millis(args.worker_poll_ms);
    tracing::info!(runners, "background job runners started");
    for _ in 0..runners {
        tokio::spawn(run(app.clone(), poll));
    }
}

async fn run(app: Arc<App>, poll: Duration) {
    loop {
        match app.run_due_jobs(BATCH).await {
            Ok(0) => tokio::time::sleep(poll).await,
            Ok(_) => {}
            Err(e) => {
                tracing::error!(error = %e, "could not run background jobs");
                tokio::time::sleep(poll).await;
            }
        }
    }
}

//! `issuing jobs list [--failed]` and `issuing jobs retry <id>`.

use crate::App;
use domain::ids::JobId;
use ports::StoreError;
use ports::jobs::JobSummary;

/// The most jobs `issuing jobs list` shows (the oldest).
pub const LIST_LIMIT: u32 = 500;

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn list_jobs(&self, failed_only: bool) -> Result<Vec<JobSummary>, StoreError> {
        self.ports.jobs.list(failed_only, LIST_LIMIT).await
    }

    /// Puts a parked job back in the queue; `false` when there is none.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn retry_job(&self, id: &JobId) -> Result<bool, StoreError> {
        self.ports.jobs.retry(id, self.ports.clock.now()).await
    }
}

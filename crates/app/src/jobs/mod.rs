//! Running due background jobs, and the operators' view of them.

mod manage;
mod run_due_jobs;

use crate::App;
use domain::ids::JobId;
use ports::jobs::{JobKind, NewJob};

impl App {
    /// A job of `kind` on `subject`, due at `run_at` (real time), with as
    /// many attempts as its kind's retry schedule gives.
    pub(crate) fn new_job(&self, kind: JobKind, subject: String, run_at: i64) -> NewJob {
        NewJob {
            id: JobId::with_suffix(&self.ports.ids.unique()),
            kind,
            subject,
            max_attempts: kind.retry_schedule().max_attempts(),
            run_at,
        }
    }
}

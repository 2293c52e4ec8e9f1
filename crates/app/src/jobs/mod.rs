//! Running due background jobs, and the operators' view of them.

mod manage;
mod run_due_jobs;

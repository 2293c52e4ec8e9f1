//! Running due background jobs, and the operators' view of them.

mod manage;
pub use manage::LIST_LIMIT;
mod run_due_jobs;

pub use run_due_jobs::{Claim, HEARTBEAT_SECS, LEASE_SECS};

use crate::{App, ModeClock};
use domain::Timestamp;
use domain::ids::JobId;
use ports::jobs::{JobKind, NewJob};

impl App {
    /// A job of `kind` on `subject`, due at once.
    pub(crate) fn job_now(&self, kind: JobKind, subject: String) -> NewJob {
        self.new_job(kind, subject, self.ports.clock.now())
    }

    /// A job of `kind` on `subject`, due at `due` of a mode's clock.
    pub(crate) fn job_at(&self, kind: JobKind, subject: String, clock: ModeClock, due: Timestamp) -> NewJob {
        self.new_job(kind, subject, clock.real_time_of(due))
    }

    /// A job due at `run_at` of the real clock, which the runner reads,
    /// with as many attempts as its kind's retry schedule gives.
    fn new_job(&self, kind: JobKind, subject: String, run_at: Timestamp) -> NewJob {
        NewJob {
            id: JobId::with_suffix(&self.ports.ids.unique()),
            kind,
            subject,
            max_attempts: kind.retry_schedule().max_attempts(),
            run_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::Mocks;
    use domain::ids::AccountId;
    use domain::{Mode, Timestamp};
    use ports::jobs::JobKind;

    #[tokio::test]
    async fn a_sandbox_due_time_becomes_the_real_time_the_runner_reads() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.test_clocks.expect_offset().returning(|_| Ok(100));
        m.ids.expect_unique().returning(|| "1".into());
        let app = m.app();
        let account = AccountId::new("acct_a");
        let sandbox = app.clock_for(&account, Mode::Test).await.unwrap();
        assert_eq!(sandbox.now, Timestamp::from_unix(1_100));
        let job = app.job_at(
            JobKind::CardInactivity,
            "card".into(),
            sandbox,
            Timestamp::from_unix(1_500),
        );
        assert_eq!(
            job.run_at,
            Timestamp::from_unix(1_400),
            "100 s ahead: due 100 s earlier in real time"
        );
        let live = app.clock_for(&account, Mode::Live).await.unwrap();
        assert_eq!((live.now, live.ahead_secs), (Timestamp::from_unix(1_000), 0));
        let job = app.job_at(
            JobKind::CardInactivity,
            "card".into(),
            live,
            Timestamp::from_unix(1_500),
        );
        assert_eq!(job.run_at, Timestamp::from_unix(1_500));
    }
}

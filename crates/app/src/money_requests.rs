//! This process's money requests in flight (fundings, unloadings and
//! debits, from their start to their answer). Job runners yield to them:
//! when the CPU and the database are saturated, a request is answered
//! first and its background work (a funding's settlement) runs after it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::time::{Instant, sleep};

/// How often a yielding runner looks for a moment with none in flight.
const LOOK_EVERY: Duration = Duration::from_millis(5);

#[derive(Clone, Default)]
pub(crate) struct MoneyRequests(Arc<AtomicUsize>);

/// A money request in flight, counted until it drops.
pub(crate) struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl MoneyRequests {
    pub(crate) fn start(&self) -> InFlight<'_> {
        self.0.fetch_add(1, Ordering::Relaxed);
        InFlight(&self.0)
    }

    /// Waits, `at_most`, for a moment with none in flight.
    pub(crate) async fn none_in_flight(&self, at_most: Duration) {
        let until = Instant::now() + at_most;
        while self.0.load(Ordering::Relaxed) > 0 && Instant::now() < until {
            sleep(LOOK_EVERY).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_runner_goes_at_once_when_no_request_is_in_flight() {
        let requests = MoneyRequests::default();
        let started = Instant::now();
        requests.none_in_flight(Duration::from_secs(10)).await;
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn a_runner_waits_until_the_requests_in_flight_are_answered() {
        let requests = MoneyRequests::default();
        let (first, second) = (requests.clone(), requests.clone());
        let one = tokio::spawn(async move {
            let _in_flight = first.start();
            sleep(Duration::from_millis(100)).await;
        });
        let two = tokio::spawn(async move {
            let _in_flight = second.start();
            sleep(Duration::from_millis(200)).await;
        });
        sleep(Duration::from_millis(20)).await;
        let started = Instant::now();
        requests.none_in_flight(Duration::from_secs(10)).await;
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(150),
            "went while one was in flight: {waited:?}"
        );
        assert!(
            waited < Duration::from_secs(5),
            "waited on after both were answered: {waited:?}"
        );
        one.await.unwrap();
        two.await.unwrap();
    }

    #[tokio::test]
    async fn requests_that_never_stop_hold_a_runner_only_so_long() {
        let requests = MoneyRequests::default();
        let _in_flight = requests.start();
        let started = Instant::now();
        requests.none_in_flight(Duration::from_millis(100)).await;
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
    }
}

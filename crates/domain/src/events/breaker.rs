//! A circuit breaker for one account's webhook endpoint. After
//! `FAILURES_TO_REST` failed deliveries in a row the endpoint rests: no
//! delivery is tried (none uses up an attempt) until the rest ends. The
//! rest doubles with each further failure, up to `MAX_REST_SECS`. When it
//! ends, one delivery goes through as a probe while the others wait for
//! its answer: delivered closes the breaker, failed rests it again.

use crate::Timestamp;

/// Failed deliveries in a row that put an endpoint to rest.
pub const FAILURES_TO_REST: u32 = 5;
/// The first rest; each further failure doubles it.
pub const FIRST_REST_SECS: i64 = 30;
/// The longest rest.
pub const MAX_REST_SECS: i64 = 600;
/// How long the others wait for a probe's answer before another probe may
/// go (a probe whose runner died never answers).
pub const PROBE_SECS: i64 = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Breaker {
    /// Failed deliveries since the last delivered one.
    failures: u32,
    /// Until when nothing is tried: resting, or waiting for a probe.
    closed_until: Option<Timestamp>,
    /// Whether the wait is for a probe's answer (not a rest).
    probing: bool,
}

/// Whether a delivery may be tried now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Send,
    /// Not before this time.
    Wait(Timestamp),
}

impl Breaker {
    /// Decides one delivery at `now`; returns the breaker after it.
    pub fn admit(self, now: Timestamp) -> (Breaker, Admission) {
        match self.closed_until {
            Some(until) if now < until => (self, Admission::Wait(until)),
            // The rest is over: this delivery is the probe.
            Some(_) => (
                Breaker {
                    closed_until: Some(now.plus(PROBE_SECS)),
                    probing: true,
                    ..self
                },
                Admission::Send,
            ),
            None => (self, Admission::Send),
        }
    }

    /// The breaker after a delivery's answer at `now`.
    pub fn record(self, delivered: bool, now: Timestamp) -> Breaker {
        if delivered {
            return Breaker::default();
        }
        // A delivery sent before the rest began, failing during it, is
        // the same outage: it does not lengthen the rest.
        let resting = !self.probing && self.closed_until.is_some_and(|until| now < until);
        if resting {
            return self;
        }
        let failures = self.failures.saturating_add(1);
        let closed_until = (failures >= FAILURES_TO_REST).then(|| now.plus(rest_secs(failures)));
        Breaker {
            failures,
            closed_until,
            probing: false,
        }
    }

    /// Whether it holds nothing worth remembering (a closed breaker with
    /// no failure), so its place may be freed.
    pub fn is_clear(self) -> bool {
        self == Breaker::default()
    }
}

/// The rest after `failures` in a row (at least `FAILURES_TO_REST`).
fn rest_secs(failures: u32) -> i64 {
    let doublings = failures.saturating_sub(FAILURES_TO_REST).min(16);
    FIRST_REST_SECS.saturating_mul(1 << doublings).min(MAX_REST_SECS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_unix(secs)
    }

    fn failed(times: u32, now: Timestamp) -> Breaker {
        (0..times).fold(Breaker::default(), |b, _| b.record(false, now))
    }

    #[test]
    fn five_failures_in_a_row_rest_the_endpoint_and_a_delivery_resets_the_count() {
        assert_eq!(failed(4, at(0)).admit(at(0)).1, Admission::Send);
        assert_eq!(failed(5, at(0)).admit(at(1)).1, Admission::Wait(at(30)));
        let reset = failed(4, at(0)).record(true, at(0));
        assert!(reset.is_clear());
        assert_eq!(reset.record(false, at(0)).admit(at(0)).1, Admission::Send);
    }

    #[test]
    fn after_the_rest_one_probe_goes_and_the_others_wait_for_its_answer() {
        let (probing, first) = failed(5, at(0)).admit(at(30));
        assert_eq!(first, Admission::Send);
        assert_eq!(probing.admit(at(31)).1, Admission::Wait(at(90)));
        assert!(probing.record(true, at(32)).is_clear());
        assert_eq!(
            probing.record(false, at(32)).admit(at(33)).1,
            Admission::Wait(at(32 + 60)),
            "the sixth failure rests it twice as long"
        );
        let (_, unanswered) = probing.admit(at(90));
        assert_eq!(unanswered, Admission::Send, "a lost probe is replaced");
    }

    #[test]
    fn failures_of_deliveries_already_in_flight_do_not_lengthen_the_rest() {
        // Eight in flight fail together: the rest is the first one.
        let after_eight = failed(8, at(0));
        assert_eq!(after_eight.admit(at(1)).1, Admission::Wait(at(30)));
        let (probing, _) = after_eight.admit(at(30));
        assert_eq!(
            probing.record(false, at(31)).admit(at(32)).1,
            Admission::Wait(at(31 + 60)),
            "the failed probe doubles it"
        );
    }

    #[test]
    fn rests_double_up_to_ten_minutes() {
        assert_eq!(rest_secs(5), 30);
        assert_eq!(rest_secs(7), 120);
        assert_eq!(rest_secs(10), 600);
        assert_eq!(rest_secs(u32::MAX), 600);
    }

    proptest! {
        /// Whatever the answers, a resting endpoint is never tried, no
        /// rest is longer than the longest, and a delivery clears it.
        #[test]
        fn never_tried_while_resting(answers in proptest::collection::vec((any::<bool>(), 0i64..1_000), 0..200)) {
            let mut breaker = Breaker::default();
            let mut now = 1_000_000;
            for (delivered, step) in answers {
                now += step;
                let (admitted, admission) = breaker.admit(at(now));
                match admission {
                    Admission::Wait(until) => {
                        prop_assert!(until > at(now));
                        prop_assert!(until <= at(now + MAX_REST_SECS.max(PROBE_SECS)));
                        prop_assert_eq!(admitted, breaker);
                    }
                    Admission::Send => {
                        breaker = admitted.record(delivered, at(now));
                        prop_assert_eq!(breaker.is_clear(), delivered);
                        continue;
                    }
                }
                breaker = admitted;
            }
        }
    }
}

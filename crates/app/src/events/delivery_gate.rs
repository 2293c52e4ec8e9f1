//! What one process lets through to webhook endpoints: each account's
//! share of the deliveries in flight ([`domain::events::share`]: a busy
//! or troubled account never takes the places kept for quiet, healthy
//! ones), and each account's endpoint behind its own circuit breaker
//! ([`domain::events::breaker`]), so slow or dead endpoints, however many,
//! hold neither the runners nor a healthy account's deliveries for longer
//! than it takes to see them slow. Both live in memory: each process
//! learns on its own, and a restart forgets (the retry schedule still
//! bounds the attempts).

use domain::events::breaker::{Admission, Breaker};
use domain::events::share::{IN_FLIGHT, SLOW_SECS, TROUBLED_SECS, admits};
use domain::ids::AccountId;
use domain::{Mode, Timestamp};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// An account's endpoint in a mode: its breaker is its own, so another
/// account pointing at the same URL (and failing there) cannot rest it.
pub(crate) type Endpoint = (AccountId, Mode, String);

#[derive(Default)]
pub(crate) struct DeliveryGate {
    /// What the gate knows of each account with deliveries in flight or a
    /// failure lately (no entry: neither).
    accounts: Mutex<HashMap<AccountId, Flight>>,
    breakers: Mutex<HashMap<Endpoint, Breaker>>,
    /// Told when a place is freed.
    freed: Notify,
}

/// One account's deliveries in flight and its trouble.
#[derive(Default)]
struct Flight {
    /// When each delivery in flight started.
    started: Vec<Instant>,
    /// Until when a failed delivery leaves the account troubled.
    failing_until: Option<Instant>,
}

impl Flight {
    fn troubled(&self, now: Instant) -> bool {
        let slow = Duration::from_secs(SLOW_SECS);
        self.failing_until.is_some_and(|until| now < until) || self.started.iter().any(|s| now - *s > slow)
    }

    fn mine(&self) -> u32 {
        u32::try_from(self.started.len()).unwrap_or(u32::MAX)
    }

    fn forgettable(&self, now: Instant) -> bool {
        self.started.is_empty() && !self.troubled(now)
    }
}

/// A delivery's place among those in flight; freed when dropped.
pub(crate) struct Slot {
    gate: Arc<DeliveryGate>,
    account: AccountId,
    started: Instant,
}

impl DeliveryGate {
    /// A place for one more of `account`'s deliveries, or `None` when its
    /// share is taken.
    pub(crate) fn slot(self: &Arc<Self>, account: &AccountId) -> Option<Slot> {
        let now = Instant::now();
        let mut accounts = self.accounts.lock().unwrap_or_else(|e| e.into_inner());
        let total = accounts.values().map(Flight::mine).sum();
        let flight = accounts.entry(account.clone()).or_default();
        if !admits(flight.mine(), total, flight.troubled(now)) {
            if flight.forgettable(now) {
                accounts.remove(account);
            }
            return None;
        }
        flight.started.push(now);
        Some(Slot {
            gate: self.clone(),
            account: account.clone(),
            started: now,
        })
    }

    /// How many more deliveries may be in flight, and the accounts that
    /// may start none now (a claim skips their jobs).
    pub(crate) fn room(&self) -> (u32, Vec<AccountId>) {
        let now = Instant::now();
        let mut accounts = self.accounts.lock().unwrap_or_else(|e| e.into_inner());
        accounts.retain(|_, flight| !flight.forgettable(now));
        let total: u32 = accounts.values().map(Flight::mine).sum();
        let full = accounts
            .iter()
            .filter(|(_, flight)| !admits(flight.mine(), total, flight.troubled(now)))
            .map(|(account, _)| account.clone())
            .collect();
        (IN_FLIGHT.saturating_sub(total), full)
    }

    /// Waits until a place is freed.
    pub(crate) async fn freed(&self) {
        self.freed.notified().await;
    }

    pub(crate) fn admit(&self, endpoint: &Endpoint, now: Timestamp) -> Admission {
        let mut breakers = self.breakers.lock().unwrap_or_else(|e| e.into_inner());
        let breaker = breakers.get(endpoint).copied().unwrap_or_default();
        let (after, admission) = breaker.admit(now);
        if after != breaker {
            breakers.insert(endpoint.clone(), after);
        }
        admission
    }

    /// Records a delivery's outcome: on its endpoint's breaker, and a
    /// failure (or a success) on its account's trouble.
    pub(crate) fn record(&self, endpoint: &Endpoint, delivered: bool, now: Timestamp) {
        {
            let mut accounts = self.accounts.lock().unwrap_or_else(|e| e.into_inner());
            if !delivered {
                let until = Instant::now() + Duration::from_secs(TROUBLED_SECS);
                accounts.entry(endpoint.0.clone()).or_default().failing_until = Some(until);
            } else if let Some(flight) = accounts.get_mut(&endpoint.0) {
                flight.failing_until = None;
            }
        }
        let mut breakers = self.breakers.lock().unwrap_or_else(|e| e.into_inner());
        let after = breakers
            .get(endpoint)
            .copied()
            .unwrap_or_default()
            .record(delivered, now);
        if after.is_clear() {
            breakers.remove(endpoint);
        } else {
            breakers.insert(endpoint.clone(), after);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut accounts = self.gate.accounts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(flight) = accounts.get_mut(&self.account) {
            if let Some(at) = flight.started.iter().position(|s| *s == self.started) {
                flight.started.swap_remove(at);
            }
            if flight.forgettable(Instant::now()) {
                accounts.remove(&self.account);
            }
        }
        self.gate.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::events::share::PER_ACCOUNT;

    #[test]
    fn an_account_has_at_most_its_share_in_flight_and_gets_it_back() {
        let gate = Arc::new(DeliveryGate::default());
        let (a, b) = (AccountId::new("acct_a"), AccountId::new("acct_b"));
        let held: Vec<_> = (0..PER_ACCOUNT).map(|_| gate.slot(&a).unwrap()).collect();
        assert!(gate.slot(&a).is_none());
        assert_eq!(gate.room(), (IN_FLIGHT - PER_ACCOUNT, vec![a.clone()]));
        assert!(gate.slot(&b).is_some(), "another account is not held");
        drop(held);
        assert!(gate.slot(&a).is_some());
        assert!(gate.accounts.lock().unwrap().is_empty(), "freed places are forgotten");
    }

    #[test]
    fn a_dozen_accounts_with_hanging_deliveries_leave_a_place_for_a_quiet_one() {
        let gate = Arc::new(DeliveryGate::default());
        let mut held = vec![];
        for n in 0..12 {
            let account = AccountId::new(format!("acct_{n}"));
            held.extend(std::iter::from_fn(|| gate.slot(&account)).take(100));
        }
        let (room, full) = gate.room();
        assert!(room > 0 && full.len() == 12, "{room} {full:?}");
        assert!(gate.slot(&AccountId::new("acct_quiet")).is_some());
    }

    /// Slow and dead endpoints, however many, leave the kept places to
    /// healthy accounts once they are seen to be slow or failing.
    #[test]
    fn a_troubled_account_never_takes_the_places_kept_for_quiet_ones() {
        let gate = Arc::new(DeliveryGate::default());
        let mut held = vec![];
        for n in 0..6 {
            let account = AccountId::new(format!("acct_{n}"));
            held.extend(std::iter::from_fn(|| gate.slot(&account)).take(100));
        }
        assert_eq!(gate.room().0, domain::events::share::KEPT_FOR_QUIET);
        let failing = AccountId::new("acct_failing");
        gate.record(
            &(failing.clone(), Mode::Test, "https://x".into()),
            false,
            Timestamp::from_unix(1),
        );
        assert!(gate.slot(&failing).is_none(), "a failure lately");
        assert!(gate.room().1.contains(&failing), "a claim skips it");
        let slow = AccountId::new("acct_slow");
        let waited = Instant::now() - Duration::from_secs(SLOW_SECS + 1);
        gate.accounts
            .lock()
            .unwrap()
            .entry(slow.clone())
            .or_default()
            .started
            .push(waited);
        assert!(gate.slot(&slow).is_none(), "a delivery waiting past SLOW_SECS");
        assert!(gate.slot(&AccountId::new("acct_quiet")).is_some());
        // A success makes the failing account healthy again.
        gate.record(
            &(failing.clone(), Mode::Test, "https://x".into()),
            true,
            Timestamp::from_unix(2),
        );
        assert!(gate.slot(&failing).is_some());
    }

    #[test]
    fn each_accounts_endpoint_has_its_own_breaker() {
        let gate = DeliveryGate::default();
        let now = Timestamp::from_unix(1_000);
        let url = "https://hooks.example/x".to_string();
        let a = (AccountId::new("acct_a"), Mode::Test, url.clone());
        let b = (AccountId::new("acct_b"), Mode::Test, url);
        for _ in 0..domain::events::breaker::FAILURES_TO_REST {
            gate.record(&a, false, now);
        }
        assert!(matches!(gate.admit(&a, now), Admission::Wait(_)));
        assert_eq!(gate.admit(&b, now), Admission::Send);
        gate.record(&a, true, now);
        assert!(gate.breakers.lock().unwrap().is_empty());
    }
}

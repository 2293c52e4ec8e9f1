//! What one process lets through to webhook endpoints: each account's
//! share of the deliveries in flight ([`domain::events::share`]: a busy
//! account never takes the places kept for quiet ones), and each
//! account's endpoint behind its own circuit breaker
//! ([`domain::events::breaker`]), so one account's slow or dead endpoint,
//! or a dozen of them, holds neither the runners nor anyone else's
//! deliveries. Both live in memory: each process learns on its own, and a
//! restart forgets (the retry schedule still bounds the attempts).

use domain::events::breaker::{Admission, Breaker};
use domain::events::share::{IN_FLIGHT, admits};
use domain::ids::AccountId;
use domain::{Mode, Timestamp};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// An account's endpoint in a mode: its breaker is its own, so another
/// account pointing at the same URL (and failing there) cannot rest it.
pub(crate) type Endpoint = (AccountId, Mode, String);

#[derive(Default)]
pub(crate) struct DeliveryGate {
    /// Each account's deliveries in flight (none: no entry).
    in_flight: Mutex<HashMap<AccountId, u32>>,
    breakers: Mutex<HashMap<Endpoint, Breaker>>,
    /// Told when a place is freed.
    freed: Notify,
}

/// A delivery's place among those in flight; freed when dropped.
pub(crate) struct Slot {
    gate: Arc<DeliveryGate>,
    account: AccountId,
}

impl DeliveryGate {
    /// A place for one more of `account`'s deliveries, or `None` when its
    /// share is taken.
    pub(crate) fn slot(self: &Arc<Self>, account: &AccountId) -> Option<Slot> {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let total = in_flight.values().sum();
        let mine = in_flight.entry(account.clone()).or_default();
        if !admits(*mine, total) {
            if *mine == 0 {
                in_flight.remove(account);
            }
            return None;
        }
        *mine += 1;
        Some(Slot {
            gate: self.clone(),
            account: account.clone(),
        })
    }

    /// How many more deliveries may be in flight, and the accounts that
    /// may start none now (a claim skips their jobs).
    pub(crate) fn room(&self) -> (u32, Vec<AccountId>) {
        let in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let total: u32 = in_flight.values().sum();
        let full = in_flight
            .iter()
            .filter(|(_, mine)| !admits(**mine, total))
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

    pub(crate) fn record(&self, endpoint: &Endpoint, delivered: bool, now: Timestamp) {
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
        let mut in_flight = self.gate.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = in_flight.get_mut(&self.account) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                in_flight.remove(&self.account);
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
        assert!(gate.in_flight.lock().unwrap().is_empty(), "freed places are forgotten");
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

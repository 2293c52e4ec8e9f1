//! What one process lets through to webhook endpoints: at most
//! `PER_ACCOUNT` deliveries of one account in flight at once, and each
//! account's endpoint behind its own circuit breaker
//! ([`domain::events::breaker`]), so one account's slow or dead endpoint
//! holds neither the runners nor anyone else's deliveries. Both live in
//! memory: each process learns on its own, and a restart forgets (the
//! retry schedule still bounds the attempts).

use domain::events::breaker::{Admission, Breaker};
use domain::ids::AccountId;
use domain::{Mode, Timestamp};
use std::collections::HashMap;
use std::sync::Mutex;

/// One account's deliveries in flight at once, per process.
pub const PER_ACCOUNT: u32 = 8;

/// An account's endpoint in a mode: its breaker is its own, so another
/// account pointing at the same URL (and failing there) cannot rest it.
pub(crate) type Endpoint = (AccountId, Mode, String);

#[derive(Default)]
pub(crate) struct DeliveryGate {
    in_flight: Mutex<HashMap<AccountId, u32>>,
    breakers: Mutex<HashMap<Endpoint, Breaker>>,
}

/// A delivery's place among its account's; freed when dropped.
pub(crate) struct Slot<'a> {
    gate: &'a DeliveryGate,
    account: AccountId,
}

impl DeliveryGate {
    /// A place for one more of `account`'s deliveries, or `None` when it
    /// has `PER_ACCOUNT` in flight.
    pub(crate) fn slot(&self, account: &AccountId) -> Option<Slot<'_>> {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        let count = in_flight.entry(account.clone()).or_default();
        if *count >= PER_ACCOUNT {
            return None;
        }
        *count += 1;
        Some(Slot {
            gate: self,
            account: account.clone(),
        })
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

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut in_flight = self.gate.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = in_flight.get_mut(&self.account) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                in_flight.remove(&self.account);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_has_at_most_its_share_in_flight_and_gets_it_back() {
        let gate = DeliveryGate::default();
        let (a, b) = (AccountId::new("acct_a"), AccountId::new("acct_b"));
        let held: Vec<_> = (0..PER_ACCOUNT).map(|_| gate.slot(&a).unwrap()).collect();
        assert!(gate.slot(&a).is_none());
        assert!(gate.slot(&b).is_some(), "another account is not held");
        drop(held);
        assert!(gate.slot(&a).is_some());
        assert!(gate.in_flight.lock().unwrap().is_empty(), "freed places are forgotten");
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

//! What this process read from the database lately, kept for a few
//! seconds: the reward switch of an account, the owner of an API key.
//! A plain map behind a mutex: a handful of entries per account, looked
//! up once per request, where a cache crate's eviction policies would buy
//! nothing.

use domain::Timestamp;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// Entries read at a time, good for `ttl_secs` after it.
#[derive(Clone)]
pub(crate) struct TtlCache<K, V> {
    entries: Arc<Mutex<HashMap<K, (V, Timestamp)>>>,
    ttl_secs: i64,
}

impl<K: Eq + Hash + Clone, V: Clone> TtlCache<K, V> {
    pub(crate) fn new(ttl_secs: i64) -> Self {
        Self {
            entries: Arc::default(),
            ttl_secs,
        }
    }

    /// The value read less than `ttl_secs` before `now`.
    pub(crate) fn get(&self, key: &K, now: Timestamp) -> Option<V> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (value, read_at) = entries.get(key)?;
        (now.secs_since(*read_at) < self.ttl_secs).then(|| value.clone())
    }

    /// Keeps `value` as read at `now` (nothing when the time to live is
    /// 0), and drops what has expired.
    pub(crate) fn put(&self, key: K, value: V, now: Timestamp) {
        if self.ttl_secs <= 0 {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|_, (_, read_at)| now.secs_since(*read_at) < self.ttl_secs);
        entries.insert(key, (value, now));
    }

    pub(crate) fn forget(&self, key: &K) {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_lives_its_time_and_no_longer() {
        let cache = TtlCache::new(5);
        let at = Timestamp::from_unix;
        cache.put("k", 1, at(100));
        assert_eq!(cache.get(&"k", at(104)), Some(1));
        assert_eq!(cache.get(&"k", at(105)), None, "5 s after the read, it is read again");
        cache.forget(&"k");
        assert_eq!(cache.get(&"k", at(101)), None);
    }

    #[test]
    fn a_time_to_live_of_zero_keeps_nothing() {
        let cache = TtlCache::new(0);
        cache.put("k", 1, Timestamp::from_unix(100));
        assert_eq!(cache.get(&"k", Timestamp::from_unix(100)), None);
    }

    #[test]
    fn expired_entries_go_when_another_is_kept() {
        let cache = TtlCache::new(5);
        cache.put("old", 1, Timestamp::from_unix(100));
        cache.put("new", 2, Timestamp::from_unix(200));
        assert_eq!(cache.entries.lock().unwrap().len(), 1);
    }
}

//! Requests of this process that must not overlap when they share a key
//! (card creations under one `transaction_reference`): each waits for the
//! one before it. Written here because it is a map of `tokio` mutexes
//! whose entries go when the last holder drops: a few lines, where a
//! crate would bring a concurrent map for one use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::OwnedMutexGuard;

#[derive(Default)]
pub(crate) struct OneAtATime(Mutex<HashMap<String, Weak<tokio::sync::Mutex<()>>>>);

impl OneAtATime {
    /// Waits until no other holder of `key` in this process is running;
    /// the turn lasts as long as the guard.
    pub(crate) async fn turn(&self, key: String) -> OwnedMutexGuard<()> {
        let lock = {
            let mut held = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            held.retain(|_, lock| lock.strong_count() > 0);
            match held.get(&key).and_then(Weak::upgrade) {
                Some(lock) => lock,
                None => {
                    let lock = Arc::new(tokio::sync::Mutex::new(()));
                    held.insert(key, Arc::downgrade(&lock));
                    lock
                }
            }
        };
        lock.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn holders_of_one_key_run_one_at_a_time_and_other_keys_do_not_wait() {
        let turns = Arc::new(OneAtATime::default());
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let tasks = (0..20).map(|_| {
            let (turns, running, most) = (turns.clone(), running.clone(), most.clone());
            tokio::spawn(async move {
                let _turn = turns.turn("ref-1".into()).await;
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                running.fetch_sub(1, Ordering::SeqCst);
            })
        });
        let _held = turns.turn("ref-2".into()).await;
        futures::future::join_all(tasks).await;
        assert_eq!(most.load(Ordering::SeqCst), 1);
        // No entry outlives its holders.
        drop(_held);
        let _again = turns.turn("ref-3".into()).await;
        assert_eq!(turns.0.lock().unwrap().len(), 1);
    }
}

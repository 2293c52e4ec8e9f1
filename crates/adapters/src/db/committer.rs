//! Group commit: requests of one kind queue here, and a committer task
//! records what is waiting (up to [`BATCH`]) as one transaction, answering each
//! request only once that transaction committed (nothing is acknowledged
//! before it is durable). A lone request goes at once, so a quiet service
//! waits for nothing; under load a batch forms from what arrived while the
//! previous one committed, so one commit, and one set of statements,
//! serves many requests.
//!
//! Written here rather than taken from a crate: it is a channel, a loop
//! and a rule about which requests may share a batch.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use tokio::sync::{mpsc, oneshot};

/// The most requests one transaction records.
pub(super) const BATCH: usize = 64;

/// A request waiting for its batch, and where its answer goes.
type Waiting<I, A> = (I, oneshot::Sender<A>);

/// Records a batch in order, answering each item in the same order.
pub(super) type Record<I, A> = Box<dyn Fn(Vec<I>) -> Pin<Box<dyn Future<Output = Vec<A>> + Send>> + Send + Sync>;

/// The queue to the committer task.
pub(super) struct Committer<I, A> {
    queue: mpsc::UnboundedSender<Waiting<I, A>>,
}

/// What the task takes batches from.
struct Queue<I, A> {
    waiting: mpsc::UnboundedReceiver<Waiting<I, A>>,
    /// Items held back from a batch by a key already in it, in order.
    held: VecDeque<Waiting<I, A>>,
}

impl<I, A> Queue<I, A> {
    /// The next batch: the oldest item (waiting for one if there is
    /// none), then whatever else waits, up to [`BATCH`], but never two of
    /// one key. `None`: the committer was dropped.
    async fn next_batch(&mut self, key: fn(&I) -> String) -> Option<Vec<Waiting<I, A>>> {
        let first = match self.held.pop_front() {
            Some(item) => item,
            None => self.waiting.recv().await?,
        };
        let mut keys = vec![key(&first.0)];
        let mut batch = vec![first];
        let mut later = VecDeque::new();
        while batch.len() < BATCH {
            let Some(item) = self.held.pop_front().or_else(|| self.waiting.try_recv().ok()) else {
                break;
            };
            let k = key(&item.0);
            if keys.contains(&k) {
                later.push_back(item);
            } else {
                keys.push(k);
                batch.push(item);
            }
        }
        later.append(&mut self.held);
        self.held = later;
        Some(batch)
    }
}

impl<I: Send + 'static, A: Send + 'static> Committer<I, A> {
    /// Starts the committer task on the current runtime: while it records
    /// a batch, the next forms from what arrives. Two items with the same
    /// `key` never share a batch: the later one waits for the next, so it
    /// sees what the first did (a client reference is taken by the first
    /// and refused to the second, or free again if the first was refused).
    /// One task per kind: a second one for debits overlapped two batches
    /// but halved them at 8 clients, and each batch's fixed cost with them
    /// (docs/benchmarks.md). The task ends when the committer is dropped.
    pub(super) fn start(key: fn(&I) -> String, record: Record<I, A>) -> Self {
        let (queue, waiting) = mpsc::unbounded_channel::<Waiting<I, A>>();
        let mut pending = Queue {
            waiting,
            held: VecDeque::new(),
        };
        tokio::spawn(async move {
            while let Some(batch) = pending.next_batch(key).await {
                let (items, replies): (Vec<I>, Vec<oneshot::Sender<A>>) = batch.into_iter().unzip();
                for (answer, reply) in record(items).await.into_iter().zip(replies) {
                    // A caller that went away still had its request recorded.
                    let _ = reply.send(answer);
                }
            }
        });
        Committer { queue }
    }

    /// Whether the task is gone (its runtime ended).
    pub(super) fn is_closed(&self) -> bool {
        self.queue.is_closed()
    }

    /// Queues `item` at once, and gives the wait for its batch to commit.
    /// `None`: the task is gone (its runtime is shutting down).
    pub(super) fn submit(&self, item: I) -> impl Future<Output = Option<A>> + use<I, A> {
        let (reply, answer) = oneshot::channel();
        let queued = self.queue.send((item, reply)).is_ok();
        async move {
            match queued {
                true => answer.await.ok(),
                false => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[tokio::test]
    async fn waiting_requests_share_a_batch_but_never_with_their_own_key() {
        let batches = Arc::new(Mutex::new(Vec::<Vec<(u32, &str)>>::new()));
        let seen = batches.clone();
        let record: Record<(u32, &'static str), u32> = Box::new(move |items| {
            seen.lock().unwrap().push(items.clone());
            Box::pin(async move {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                items.into_iter().map(|(n, _)| n * 10).collect()
            })
        });
        let committer = Committer::start(|item| item.1.to_string(), record);
        let first = committer.submit((0, "a"));
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        // These arrive while the first batch commits.
        let rest: Vec<_> = [(1, "b"), (2, "a"), (3, "c"), (4, "b")]
            .into_iter()
            .map(|item| committer.submit(item))
            .collect();
        assert_eq!(first.await, Some(0));
        let answers = futures::future::join_all(rest).await;
        assert_eq!(answers, [Some(10), Some(20), Some(30), Some(40)]);
        let batches = batches.lock().unwrap().clone();
        assert_eq!(
            batches,
            [vec![(0, "a")], vec![(1, "b"), (2, "a"), (3, "c")], vec![(4, "b")]],
            "a lone request goes at once; the next batch takes all that waits but a second b"
        );
    }
}

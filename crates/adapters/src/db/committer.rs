//! Group commit: requests of one kind queue here, and a committer task
//! records what is waiting (up to [`BATCH`]) as one transaction, answering each
//! request only once that transaction committed (nothing is acknowledged
//! before it is durable). A lone request goes at once, so a quiet service
//! waits for nothing; under load a batch forms from what arrived while the
//! previous one ran, so one commit, and one set of statements, serves many
//! requests. The next batch starts while the previous one commits (two at
//! most in flight): its locks wait for that commit, as another process's
//! would, but its `BEGIN` and first round trip do not.
//!
//! The queue is bounded ([`QUEUE`]): a request that finds it full is
//! refused at once, before anything is written ([`StoreError::overloaded`],
//! a 503 with `Retry-After`), so overload sheds requests instead of growing
//! every request's wait without bound.
//!
//! Each batch's size, each request's wait for its batch to start and each
//! refusal go to the metrics (`issuing_commit_batch_size`,
//! `issuing_commit_wait_seconds`, `issuing_load_shed_total`).
//!
//! Written here rather than taken from a crate: it is a channel, a loop
//! and a rule about which requests may share a batch.

use ports::StoreError;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// The most requests one transaction records.
pub(super) const BATCH: usize = 64;

/// The most requests that may wait for a batch: sixteen batches' worth,
/// about 0.3 s of this machine's PostgreSQL debits at 32 clients
/// (docs/benchmarks.md, the overload row). Four batches' worth shed debits
/// in an open loop at 90% of capacity, when a stall of a tenth of a second
/// filled it.
pub(super) const QUEUE: usize = 16 * BATCH;

/// A request waiting for its batch, where its answer goes, and since when.
type Waiting<I, A> = (I, oneshot::Sender<A>, Instant);

/// Records a batch in order, answering each item in the same order; tells
/// `Written` once its last statement before `COMMIT` answered.
pub(super) type Record<I, A> =
    Box<dyn Fn(Vec<I>, Written) -> Pin<Box<dyn Future<Output = Vec<A>> + Send>> + Send + Sync>;

/// Sent (or dropped) when a batch has nothing left to send but `COMMIT`.
pub(super) type Written = oneshot::Sender<()>;

/// The queue to the committer task.
pub(super) struct Committer<I, A> {
    name: &'static str,
    queue: mpsc::Sender<Waiting<I, A>>,
}

/// What the task takes batches from.
struct Queue<I, A> {
    waiting: mpsc::Receiver<Waiting<I, A>>,
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
    /// a batch, the next forms from what arrives, and starts once the
    /// batch has only its `COMMIT` left (`Written`), the one before it
    /// being done. Two items with the same `key` never share a batch: the
    /// later one goes in a later one, so it sees what the first did (a
    /// client reference is taken by the first and refused to the second,
    /// or free again if the first was refused: its claim waits for the
    /// first's commit). One task per kind: a second one for debits
    /// overlapped whole batches but halved them at 8 clients, and each
    /// batch's fixed cost with them (docs/benchmarks.md). The task ends
    /// when the committer is dropped; batches in flight finish.
    pub(super) fn start(name: &'static str, key: fn(&I) -> String, record: Record<I, A>) -> Self {
        let (queue, waiting) = mpsc::channel::<Waiting<I, A>>(QUEUE);
        let mut pending = Queue {
            waiting,
            held: VecDeque::new(),
        };
        let record = std::sync::Arc::new(record);
        tokio::spawn(async move {
            let mut committing = None;
            while let Some(batch) = pending.next_batch(key).await {
                metrics::histogram!("issuing_commit_batch_size", "committer" => name).record(batch.len() as f64);
                let waits = metrics::histogram!("issuing_commit_wait_seconds", "committer" => name);
                let (items, replies): (Vec<I>, Vec<oneshot::Sender<A>>) = batch
                    .into_iter()
                    .map(|(item, reply, queued)| {
                        waits.record(queued.elapsed().as_secs_f64());
                        (item, reply)
                    })
                    .unzip();
                let (written, sent) = oneshot::channel();
                let record = record.clone();
                let recording = tokio::spawn(async move {
                    for (answer, reply) in record(items, written).await.into_iter().zip(replies) {
                        // A caller that went away still had its request recorded.
                        let _ = reply.send(answer);
                    }
                });
                // Only its COMMIT left (or done): the next may start, once
                // the one before it is done.
                let _ = sent.await;
                if let Some(before) = committing.replace(recording) {
                    let _ = before.await;
                }
            }
        });
        Committer { name, queue }
    }

    /// Whether the task is gone (its runtime ended).
    pub(super) fn is_closed(&self) -> bool {
        self.queue.is_closed()
    }

    /// Queues `item` at once, and gives the wait for its batch to commit.
    /// Refused at once when [`QUEUE`] requests wait already; an error too
    /// when the task is gone (its runtime is shutting down).
    pub(super) fn submit(&self, item: I) -> impl Future<Output = Result<A, StoreError>> + use<I, A> {
        let (reply, answer) = oneshot::channel();
        let name = self.name;
        let stopped = move || StoreError::new(format!("the {name} committer stopped"));
        let queued = match self.queue.try_send((item, reply, Instant::now())) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => {
                metrics::counter!("issuing_load_shed_total", "queue" => name).increment(1);
                Err(StoreError::overloaded(name))
            }
            Err(mpsc::error::TrySendError::Closed(_)) => Err(stopped()),
        };
        let waiting = tracing::debug_span!("group_commit", committer = name);
        tracing::Instrument::instrument(
            async move {
                queued?;
                answer.await.map_err(|_| stopped())
            },
            waiting,
        )
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
        let record: Record<(u32, &'static str), u32> = Box::new(move |items, _| {
            seen.lock().unwrap().push(items.clone());
            Box::pin(async move {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                items.into_iter().map(|(n, _)| n * 10).collect()
            })
        });
        let committer = Committer::start("test", |item| item.1.to_string(), record);
        let first = committer.submit((0, "a"));
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        // These arrive while the first batch commits.
        let rest: Vec<_> = [(1, "b"), (2, "a"), (3, "c"), (4, "b")]
            .into_iter()
            .map(|item| committer.submit(item))
            .collect();
        assert_eq!(first.await.ok(), Some(0));
        let answers: Vec<_> = futures::future::join_all(rest)
            .await
            .into_iter()
            .map(Result::ok)
            .collect();
        assert_eq!(answers, [Some(10), Some(20), Some(30), Some(40)]);
        let batches = batches.lock().unwrap().clone();
        assert_eq!(
            batches,
            [vec![(0, "a")], vec![(1, "b"), (2, "a"), (3, "c")], vec![(4, "b")]],
            "a lone request goes at once; the next batch takes all that waits but a second b"
        );
    }

    #[tokio::test]
    async fn the_next_batch_starts_while_the_last_commits_but_never_a_third() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (now, top) = (running.clone(), most.clone());
        // Each batch has only its COMMIT left at once, and commits for 30 ms.
        let record: Record<u32, u32> = Box::new(move |items, written| {
            let (now, top) = (now.clone(), top.clone());
            Box::pin(async move {
                top.fetch_max(now.fetch_add(1, SeqCst) + 1, SeqCst);
                drop(written);
                tokio::time::sleep(std::time::Duration::from_millis(30)).await;
                now.fetch_sub(1, SeqCst);
                items
            })
        });
        let committer = Committer::start("test", |n| n.to_string(), record);
        let mut answers = vec![];
        for n in 0..8 {
            answers.push(committer.submit(n));
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let answers: Vec<_> = futures::future::join_all(answers)
            .await
            .into_iter()
            .map(Result::ok)
            .collect();
        assert_eq!(answers, (0..8).map(Some).collect::<Vec<_>>());
        assert_eq!(most.load(SeqCst), 2, "two batches at once, one of them committing");
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once_and_what_it_holds_is_still_answered() {
        let release = Arc::new(tokio::sync::Notify::new());
        let gate = release.clone();
        let record: Record<usize, usize> = Box::new(move |items, _| {
            let gate = gate.clone();
            Box::pin(async move {
                gate.notified().await;
                items
            })
        });
        let committer = Committer::start("test", |n| n.to_string(), record);
        // The first batch takes 0 and waits at the gate; the queue fills behind it.
        let first = committer.submit(0);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let queued: Vec<_> = (1..=QUEUE).map(|n| committer.submit(n)).collect();
        let refused = committer.submit(QUEUE + 1).await.expect_err("refused without waiting");
        assert_eq!(domain::DomainError::code(&refused), "overloaded");
        release.notify_one();
        assert_eq!(first.await.ok(), Some(0));
        // Each later batch waits at the gate too.
        let answers = tokio::spawn(futures::future::join_all(queued));
        while !answers.is_finished() {
            release.notify_one();
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        let answers = answers.await.unwrap();
        assert_eq!(
            answers.into_iter().flat_map(Result::ok).collect::<Vec<_>>(),
            (1..=QUEUE).collect::<Vec<_>>()
        );
        release.notify_one();
        assert_eq!(committer.submit(7).await.ok(), Some(7), "room again");
    }
}

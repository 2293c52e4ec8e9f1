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
//! A request may carry a deadline ([`Committer::submit_by`]): if no batch
//! has taken it [`MARGIN`] before then, it is withdrawn (by the committer
//! or by its caller, whichever comes first, by one compare-and-set) and
//! never recorded; once a batch took it, its caller waits for the truth.
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
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// The most requests one transaction records.
pub(in crate::db) const BATCH: usize = 64;

/// The most requests that may wait for a batch: sixteen batches' worth,
/// about 0.3 s of this machine's PostgreSQL debits at 32 clients
/// (docs/benchmarks.md, the overload row). Four batches' worth shed debits
/// in an open loop at 90% of capacity, when a stall of a tenth of a second
/// filled it.
pub(in crate::db) const QUEUE: usize = 16 * BATCH;

/// How long before its deadline a request must be taken into a batch:
/// about what a batch takes from its start to its commit under load
/// (docs/benchmarks.md), so that what is taken commits within the
/// deadline.
pub(in crate::db) const MARGIN: Duration = Duration::from_millis(250);

/// Who has a request with a deadline: nobody yet, a batch (it will be
/// recorded), or its caller's deadline (it never will be).
const QUEUED: u8 = 0;
const TAKEN: u8 = 1;
const WITHDRAWN: u8 = 2;

/// A request's deadline, and who has it.
#[derive(Clone)]
struct Deadline {
    at: Instant,
    state: Arc<AtomicU8>,
}

impl Deadline {
    /// Moves the request from queued to `to`: whether this call did.
    fn settle(&self, to: u8) -> bool {
        self.state
            .compare_exchange(QUEUED, to, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// A request waiting for its batch, where its answer goes, since when,
/// and its deadline if it has one.
type Waiting<I, A> = (I, oneshot::Sender<A>, Instant, Option<Deadline>);

/// Whether a batch may take `item`: it has no deadline, or it is taken
/// now, [`MARGIN`] or more before it (else it is withdrawn, and its
/// caller told so by its dropped reply).
fn take<I, A>(item: &Waiting<I, A>) -> bool {
    match &item.3 {
        None => true,
        Some(deadline) if Instant::now() + MARGIN < deadline.at => deadline.settle(TAKEN),
        Some(deadline) => {
            deadline.settle(WITHDRAWN);
            false
        }
    }
}

/// Records a batch in order, answering each item in the same order; tells
/// `Written` once its last statement before `COMMIT` answered.
pub(in crate::db) type Record<I, A> =
    Box<dyn Fn(Vec<I>, Written) -> Pin<Box<dyn Future<Output = Vec<A>> + Send>> + Send + Sync>;

/// Sent (or dropped) when a batch has nothing left to send but `COMMIT`.
pub(in crate::db) type Written = oneshot::Sender<()>;

/// The queue to the committer task.
pub(in crate::db) struct Committer<I, A> {
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
        let first = loop {
            let item = match self.held.pop_front() {
                Some(item) => item,
                None => self.waiting.recv().await?,
            };
            if take(&item) {
                break item;
            }
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
            } else if take(&item) {
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
    pub(in crate::db) fn start(name: &'static str, key: fn(&I) -> String, record: Record<I, A>) -> Self {
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
                    .map(|(item, reply, queued, _)| {
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
    pub(in crate::db) fn is_closed(&self) -> bool {
        self.queue.is_closed()
    }

    /// Queues `item` at once, and gives the wait for its batch to commit.
    /// Refused at once when [`QUEUE`] requests wait already; an error too
    /// when the task is gone (its runtime is shutting down).
    pub(in crate::db) fn submit(&self, item: I) -> impl Future<Output = Result<A, StoreError>> + use<I, A> {
        self.submit_by(item, None)
    }

    /// [`Committer::submit`], withdrawn unrecorded
    /// ([`StoreError::deadline_missed`]) if no batch has taken it
    /// [`MARGIN`] before `deadline`; once taken, its answer is the
    /// batch's, however late.
    pub(in crate::db) fn submit_by(
        &self,
        item: I,
        deadline: Option<Instant>,
    ) -> impl Future<Output = Result<A, StoreError>> + use<I, A> {
        let (reply, mut answer) = oneshot::channel();
        let name = self.name;
        let stopped = move || StoreError::new(format!("the {name} committer stopped"));
        let deadline = deadline.map(|at| Deadline {
            at,
            state: Arc::new(AtomicU8::new(QUEUED)),
        });
        let mine = deadline.clone();
        let withdrawn = move |d: &Deadline| d.state.load(Ordering::Acquire) == WITHDRAWN;
        let queued = match self.queue.try_send((item, reply, Instant::now(), deadline)) {
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
                let Some(deadline) = mine else {
                    return answer.await.map_err(|_| stopped());
                };
                let late = deadline.at.checked_sub(MARGIN).unwrap_or(deadline.at);
                let answered = match tokio::time::timeout_at(late.into(), &mut answer).await {
                    Ok(answered) => answered,
                    // No batch took it in time: withdrawn, unless one just did.
                    Err(_) if deadline.settle(WITHDRAWN) => return Err(StoreError::deadline_missed(name)),
                    Err(_) => answer.await,
                };
                answered.map_err(|_| match withdrawn(&deadline) {
                    true => StoreError::deadline_missed(name),
                    false => stopped(),
                })
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

    /// Behind a batch that does not end, a request whose deadline comes is
    /// withdrawn and never recorded; one a batch took before its deadline
    /// is answered with what the batch did, however late.
    #[tokio::test]
    async fn a_request_no_batch_took_by_its_deadline_is_withdrawn_and_never_recorded() {
        let recorded = Arc::new(Mutex::new(Vec::<u32>::new()));
        let release = Arc::new(tokio::sync::Notify::new());
        let (seen, gate) = (recorded.clone(), release.clone());
        // A batch has more than its COMMIT left until the gate opens: the
        // next one waits.
        let record: Record<u32, u32> = Box::new(move |items, written| {
            let (seen, gate) = (seen.clone(), gate.clone());
            Box::pin(async move {
                gate.notified().await;
                drop(written);
                seen.lock().unwrap().extend(&items);
                items
            })
        });
        let committer = Committer::start("test", |n| n.to_string(), record);
        let soon = |ms| Some(Instant::now() + MARGIN + Duration::from_millis(ms));
        // Taken at once, then held up past its deadline.
        let taken = committer.submit_by(1, soon(50));
        tokio::time::sleep(Duration::from_millis(10)).await;
        let started = Instant::now();
        let withdrawn = committer.submit_by(2, soon(50)).await.expect_err("withdrawn");
        assert!(withdrawn.is_deadline_missed(), "{withdrawn}");
        assert!(started.elapsed() < Duration::from_millis(500));
        tokio::time::sleep(Duration::from_millis(100)).await;
        release.notify_one();
        assert_eq!(taken.await.ok(), Some(1), "the truth, late");
        // Without a deadline, a request waits for its batch.
        let patient = committer.submit(3);
        release.notify_one();
        assert_eq!(patient.await.ok(), Some(3));
        assert_eq!(*recorded.lock().unwrap(), [1, 3], "2 was never recorded");
    }
}

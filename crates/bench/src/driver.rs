//! The load driver. Closed loop: a set number of clients, each sending its
//! next request when the last one answered. Open loop: requests sent on a
//! fixed schedule whatever the server does, each timed from its intended
//! send time, so a server that falls behind shows its queueing in the
//! latencies instead of slowing the driver down.

use crate::cpu::{CpuTimes, Usage};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Builds request number `n` (unique across the run, for references).
pub type MakeRequest = Arc<dyn Fn(u64) -> reqwest::RequestBuilder + Send + Sync>;

/// One timed unit of work of several requests (a payment's authorization
/// and capture, say): its final status, 0 when one got no answer.
pub type Call = Pin<Box<dyn Future<Output = u16> + Send>>;

/// Builds call number `n`.
pub type MakeCall = Arc<dyn Fn(u64) -> Call + Send + Sync>;

/// When a closed-loop run ends.
#[derive(Clone, Copy, Debug)]
pub enum Until {
    /// After this long (requests in flight finish and count).
    Elapsed(Duration),
    /// After this many requests.
    Sent(u64),
}

#[derive(Clone, Copy, Debug)]
pub enum Load {
    Closed { concurrency: usize, until: Until },
    Open { per_second: u64, for_: Duration },
}

impl Load {
    pub fn closed(concurrency: usize, until: Until) -> Load {
        Load::Closed { concurrency, until }
    }
}

/// What a run measured.
#[derive(Debug)]
pub struct Outcome {
    /// Latencies in microseconds, of answered requests of every status.
    pub latency: Histogram<u64>,
    /// How many answers of each status; transport failures under 0.
    pub statuses: BTreeMap<u16, u64>,
    pub elapsed: Duration,
    /// The CPU the server and the database used over the run, when
    /// measured (not for other tools' baselines).
    pub cpu: Option<CpuTimes>,
    /// The statements the database ran over the run, where counted.
    pub statements: Option<u64>,
}

impl Outcome {
    /// Makes `used` the CPU and the statements this outcome's requests cost.
    pub fn charge(&mut self, used: Usage) {
        self.cpu = Some(used.cpu);
        self.statements = used.statements;
    }

    fn new() -> Outcome {
        Outcome {
            // 1 µs to 10 minutes: fixed bounds, as saturating_record
            // clamps to the bounds instead of growing them.
            latency: Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds"),
            statuses: BTreeMap::new(),
            elapsed: Duration::ZERO,
            cpu: None,
            statements: None,
        }
    }

    fn merge(&mut self, other: Outcome) {
        self.latency.add(&other.latency).expect("histograms of one shape");
        for (status, n) in other.statuses {
            *self.statuses.entry(status).or_default() += n;
        }
    }

    /// What another tool measured: latencies in microseconds of the
    /// transactions that succeeded (counted as 200s), and failures (0s).
    pub fn from_latencies(micros: &[u64], failed: u64, elapsed: Duration) -> Outcome {
        let mut outcome = Outcome::new();
        for &m in micros {
            outcome.latency.saturating_record(m.max(1));
        }
        outcome.statuses.insert(200, micros.len() as u64);
        if failed > 0 {
            outcome.statuses.insert(0, failed);
        }
        outcome.elapsed = elapsed;
        outcome
    }

    pub fn requests(&self) -> u64 {
        self.statuses.values().sum()
    }

    pub fn count(&self, status: u16) -> u64 {
        self.statuses.get(&status).copied().unwrap_or(0)
    }

    /// Answers that were not 2xx (transport failures included).
    pub fn errors(&self) -> u64 {
        self.statuses
            .iter()
            .filter(|(s, _)| !(200..300).contains(*s))
            .map(|(_, n)| n)
            .sum()
    }

    pub fn per_second(&self) -> f64 {
        self.requests() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The latency at `quantile` (0.99 for p99), in milliseconds.
    /// Database statements (round trips) per request, where counted.
    pub fn statements_per_request(&self) -> Option<f64> {
        Some(self.statements? as f64 / self.requests().max(1) as f64)
    }

    /// Server (when it ran) and database CPU microseconds per request.
    pub fn cpu_per_request(&self) -> Option<(Option<f64>, f64)> {
        let (cpu, requests) = (self.cpu?, self.requests().max(1) as f64);
        let per = |d: Duration| d.as_micros() as f64 / requests;
        Some((cpu.server.map(per), per(cpu.database)))
    }

    pub fn ms(&self, quantile: f64) -> f64 {
        self.latency.value_at_quantile(quantile) as f64 / 1000.0
    }

    /// `413 x2, 420 x7`, or `0` when every answer was 2xx.
    pub fn error_summary(&self) -> String {
        let errors: Vec<String> = self
            .statuses
            .iter()
            .filter(|(s, _)| !(200..300).contains(*s))
            .map(|(s, n)| match s {
                0 => format!("transport x{n}"),
                s => format!("{s} x{n}"),
            })
            .collect();
        if errors.is_empty() {
            "0".into()
        } else {
            errors.join(", ")
        }
    }

    fn record(&mut self, started: Instant, status: u16) {
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.latency.saturating_record(micros.max(1));
        *self.statuses.entry(status).or_default() += 1;
    }
}

/// Sends one request and reads its whole answer: its status, 0 when it
/// never got one.
pub async fn send(request: reqwest::RequestBuilder) -> u16 {
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            match response.bytes().await {
                Ok(_) => status,
                Err(_) => 0,
            }
        }
        Err(_) => 0,
    }
}

/// Runs `load` of calls, numbering them from `first`: each is timed whole.
pub async fn run_calls(load: Load, first: u64, make: MakeCall) -> Outcome {
    match load {
        Load::Closed { concurrency, until } => closed(concurrency, until, first, make).await,
        Load::Open { per_second, for_ } => open(per_second, for_, first, make).await,
    }
}

async fn closed(concurrency: usize, until: Until, first: u64, make: MakeCall) -> Outcome {
    let next = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let clients = (0..concurrency).map(|_| {
        let (next, make) = (next.clone(), make.clone());
        tokio::spawn(async move {
            let mut outcome = Outcome::new();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let more = match until {
                    Until::Elapsed(d) => start.elapsed() < d,
                    Until::Sent(count) => n < count,
                };
                if !more {
                    return outcome;
                }
                let sent = Instant::now();
                let status = make(first + n).await;
                outcome.record(sent, status);
            }
        })
    });
    let mut total = Outcome::new();
    for client in futures::future::join_all(clients).await {
        total.merge(client.expect("a driver client panicked"));
    }
    total.elapsed = start.elapsed();
    total
}

async fn open(per_second: u64, for_: Duration, first: u64, make: MakeCall) -> Outcome {
    let interval = Duration::from_secs_f64(1.0 / per_second.max(1) as f64);
    let count = (for_.as_secs_f64() * per_second as f64) as u64;
    let start = Instant::now();
    let mut sent = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    for n in 0..count {
        let intended = start + interval.mul_f64(n as f64);
        tokio::time::sleep_until(intended.into()).await;
        let call = make(first + n);
        sent.push(tokio::spawn(async move {
            let status = call.await;
            let mut outcome = Outcome::new();
            // From the intended send time: a late send is the server's delay.
            outcome.record(intended, status);
            outcome
        }));
    }
    let mut total = Outcome::new();
    for one in futures::future::join_all(sent).await {
        total.merge(one.expect("a driver request panicked"));
    }
    total.elapsed = start.elapsed();
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_count_every_non_2xx_status_and_name_them() {
        let mut o = Outcome::new();
        let t = Instant::now();
        for status in [200, 202, 401, 420, 420, 0] {
            o.record(t, status);
        }
        assert_eq!(o.requests(), 6);
        assert_eq!(o.errors(), 4);
        assert_eq!(o.error_summary(), "transport x1, 401 x1, 420 x2");
        assert!(o.ms(0.5) > 0.0, "latencies are kept");
        let mut fine = Outcome::new();
        fine.record(t, 204);
        assert_eq!(fine.error_summary(), "0");
    }
}

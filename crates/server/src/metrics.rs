//! `GET /metrics`, in Prometheus' text format, on a listener of its own
//! (`--metrics-listen`): what the process counts as it runs (requests by
//! route and status, group-commit batches and waits, waits for a pooled
//! connection, job runs by outcome, rate-limit refusals), and the gauges
//! read at each scrape (the pool's connections, the job queue). The
//! `metrics` crate's Prometheus exporter writes the exposition.

use actix_web::dev::Server;
use actix_web::{App, HttpResponse, HttpServer, web};
use adapters::db::Db;
use adapters::system::SystemClock;
use anyhow::Context;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use ports::clock::Clock;
use std::net::SocketAddr;
use std::time::Duration;

/// Latency buckets, in seconds: a pooled connection's wait and a commit's
/// are well under a millisecond when all is well.
const SECONDS: [f64; 14] = [
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Batch sizes, up to the committer's most (64).
const SIZES: [f64; 8] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 48.0, 64.0];

/// How often the exporter's histograms are folded (it asks for it when
/// installed without its own HTTP listener).
const UPKEEP: Duration = Duration::from_secs(5);

/// Installs the recorder and binds `listen`, when it is given: the
/// server, to run.
pub fn start(listen: Option<SocketAddr>, db: &Db) -> anyhow::Result<Option<Server>> {
    let Some(listen) = listen else {
        return Ok(None);
    };
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &SECONDS)?
        .set_buckets_for_metric(Matcher::Full("issuing_commit_batch_size".into()), &SIZES)?
        .install_recorder()
        .context("installing the metrics recorder")?;
    api::record_metrics();
    let upkeep = handle.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(UPKEEP).await;
            upkeep.run_upkeep();
        }
    });
    let listener =
        std::net::TcpListener::bind(listen).with_context(|| format!("listening on {listen} (the metrics)"))?;
    let addr = listener.local_addr()?;
    let scraped = web::Data::new((handle, db.clone()));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(scraped.clone())
            .route("/metrics", web::get().to(scrape))
    })
    .workers(1)
    .listen(listener)?
    .run();
    println!("metrics listening on http://{addr}/metrics");
    Ok(Some(server))
}

async fn scrape(scraped: web::Data<(PrometheusHandle, Db)>) -> HttpResponse {
    let (handle, db) = scraped.get_ref();
    let now = SystemClock.now();
    // A database that cannot answer leaves the gauges as they were; the
    // counters still answer (and the pool wait shows why).
    if let Err(e) = db.record_gauges(now).await {
        tracing::warn!(error = %e, "the metrics' gauges could not be read");
        metrics::counter!("issuing_metrics_gauge_failures_total").increment(1);
    }
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(handle.render())
}

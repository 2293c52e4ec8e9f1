//! Traces over OpenTelemetry, when `--otlp-endpoint` is set: each request
//! is a trace whose root span is the request's (its `request_id`, the
//! `x-request-id` it was answered with, an attribute), with spans of the
//! use cases and the repository steps below it. They go to
//! `<endpoint>/v1/traces` as OTLP over HTTP in JSON, batched on a thread of
//! the exporter's own. Spans carry ids, routes and timings, never a body,
//! a header or a bind parameter.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterExt, LevelFilter, Targets, dynamic_filter_fn};
use tracing_subscriber::registry::LookupSpan;

/// The exporter, flushed by [`Traces::shutdown`].
pub struct Traces(SdkTracerProvider);

impl Traces {
    /// Exports `endpoint`'s traces. Made outside the async runtime: the
    /// exporter's HTTP client is a blocking one.
    pub fn new(endpoint: &str) -> anyhow::Result<Self> {
        // Neither the URL nor its parser's error is quoted: it may hold a password.
        let endpoint = url::Url::parse(endpoint)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.query().is_none() && u.fragment().is_none())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "--otlp-endpoint must be an http:// or https:// URL with no query (the collector's OTLP/HTTP receiver)"
                )
            })?;
        // reqwest is built without a TLS provider (see the adapters'
        // webhook sender): ring's, for an https collector.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let exporter = SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpJson)
            .with_endpoint(format!("{}/v1/traces", endpoint.as_str().trim_end_matches('/')))
            .build()
            // Its error quotes the URL, which may hold a password.
            .map_err(|_| anyhow::anyhow!("--otlp-endpoint is not a URL the OTLP exporter takes"))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(Resource::builder().with_service_name("issuing").build())
            .build();
        Ok(Traces(provider))
    }

    /// The layer sending the service's spans (its crates' to debug, the
    /// rest's to info) to the exporter. A repository step or a commit wait
    /// outside any other span (a runner's poll for due jobs) is left out:
    /// it would be a trace of its own every half second.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        let ours = Targets::new()
            .with_default(LevelFilter::INFO)
            .with_target("issuing", LevelFilter::DEBUG);
        let within_a_trace = dynamic_filter_fn(|meta, cx| {
            !(meta.is_span() && matches!(meta.name(), "db" | "group_commit")) || cx.lookup_current().is_some()
        });
        tracing_opentelemetry::layer()
            .with_tracer(self.0.tracer("issuing"))
            .with_filter(ours.and(within_a_trace))
    }

    /// Sends what is batched, and stops the exporter. Outside the async
    /// runtime, as it was made.
    pub fn shutdown(self) {
        if let Err(e) = self.0.shutdown() {
            eprintln!("error: flushing the traces: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Traces;

    #[test]
    fn the_endpoint_is_an_http_url_with_no_query_and_is_never_quoted() {
        for refused in [
            "ftp://user:secret@collector:4318",
            "http://user:secret@collector:4318/?token=1",
            "http://user:secret@collector:4318/#secret",
            "collector:4318/secret",
            "secret",
        ] {
            let error = Traces::new(refused).err().expect(refused).to_string();
            assert!(
                error.contains("--otlp-endpoint") && !error.contains("secret"),
                "{refused}: {error}"
            );
        }
        for taken in ["HTTP://collector:4318", "https://collector:4318/otlp/"] {
            Traces::new(taken).unwrap_or_else(|e| panic!("{taken}: {e}")).shutdown();
        }
    }
}

//! Requests this service makes to addresses its clients name (webhook
//! endpoints, the KYC images of a case): no proxy, no redirect, and, but
//! in local development and tests, public addresses only, checked where
//! names resolve, at connect time.

use domain::http_url::is_public;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// A client for outbound requests; `allow_private` lets it reach
/// loopback, private and other non-public addresses.
pub(crate) fn client(
    connect_timeout: Duration,
    timeout: Duration,
    allow_private: bool,
    agent: &str,
) -> reqwest::Result<reqwest::Client> {
    // rustls with the ring provider: pure Rust and assembly, no cmake.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        // A proxy would resolve the name itself, past the filter.
        .no_proxy()
        .user_agent(format!("{agent}/{}", env!("CARGO_PKG_VERSION")));
    if !allow_private {
        builder = builder.dns_resolver(Arc::new(PublicOnly));
    }
    builder.build()
}

/// Resolves names to their public addresses only, at connect time, so a
/// name that resolved to a public address when the URL was set and to an
/// inside one now (DNS rebinding) still reaches nothing inside.
struct PublicOnly;

/// The name resolves to no address a delivery may reach.
#[derive(Debug, thiserror::Error)]
#[error("the host resolves only to non-public addresses")]
struct Blocked;

/// The name does not resolve.
#[derive(Debug, thiserror::Error)]
#[error("the host name does not resolve")]
struct NotFound;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let public = public_addresses(name.as_str()).await?;
            let addrs: Addrs = Box::new(public.into_iter());
            Ok(addrs)
        })
    }
}

async fn public_addresses(host: &str) -> Result<Vec<SocketAddr>, Box<dyn std::error::Error + Send + Sync>> {
    let all: Vec<SocketAddr> = tokio::net::lookup_host((host, 0))
        .await
        .map_err(|_| NotFound)?
        .collect();
    if all.is_empty() {
        return Err(NotFound.into());
    }
    let public: Vec<SocketAddr> = all.into_iter().filter(|a| is_public(a.ip())).collect();
    if public.is_empty() {
        return Err(Blocked.into());
    }
    Ok(public)
}

/// A literal address in the URL is connected to without resolving: it is
/// checked here instead.
pub(crate) fn literal_blocked(url: &str, allow_private: bool) -> bool {
    if allow_private {
        return false;
    }
    let literal = match reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host().map(|h| h.to_owned()))
    {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        _ => None,
    };
    literal.is_some_and(|ip| !is_public(ip))
}

/// What went wrong, in words a client can act on and no more: webhook
/// attempt logs are shown through the API, and raw errors would describe
/// the network behind it.
pub(crate) fn category(e: &reqwest::Error) -> &'static str {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<Blocked>() {
            return "blocked: the host resolves only to non-public addresses";
        }
        if err.is::<NotFound>() {
            return "dns: the host name does not resolve";
        }
        if err.is::<rustls::Error>() {
            return "tls: the TLS handshake failed (certificate or protocol)";
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return "refused: the endpoint refused the connection",
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted => {
                    return "reset: the endpoint closed the connection";
                }
                _ if io.get_ref().is_some_and(|inner| inner.is::<rustls::Error>()) => {
                    return "tls: the TLS handshake failed (certificate or protocol)";
                }
                _ => {}
            }
        }
        source = err.source();
    }
    if e.is_timeout() {
        "timeout: the endpoint did not answer in time"
    } else if e.is_connect() {
        "connect: could not connect to the endpoint"
    } else {
        "request: the request failed before an answer"
    }
}

//! PostgreSQL connections with TLS as libpq's `sslmode` asks, over rustls:
//! `disable`; `prefer` (the default, as with libpq: TLS when the server
//! offers it, its certificate unchecked); `require` (TLS or no
//! connection, certificate unchecked); `verify-full` (TLS, the chain
//! checked against `sslrootcert`, a PEM file or `system`, and the server's
//! name against the host). tokio-postgres knows neither `verify-full` nor
//! `sslrootcert`, so both are taken out of the URL here.

use diesel::ConnectionError;
use diesel_async::AsyncPgConnection;
use percent_encoding::percent_decode_str;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::str::FromStr;
use std::sync::Arc;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Where and how to connect: the parsed URL and, unless `disable`, TLS;
/// and whether PgBouncer in transaction mode stands between
/// (`pgbouncer=true`, Prisma's name for it, taken out of the URL too):
/// then no statement is kept prepared on a connection, since the next
/// transaction may run on another server connection.
pub(crate) struct PgTarget {
    config: tokio_postgres::Config,
    tls: Option<MakeRustlsConnect>,
    pub(crate) transaction_pooling: bool,
}

const MODES: &str = "disable, prefer, require or verify-full";

impl PgTarget {
    /// Parses a `postgres://` URL. Errors name the parameter and the rule,
    /// never the URL (it may hold a password).
    pub(crate) fn parse(url: &str) -> Result<Self, String> {
        // Split where tokio-postgres will: the parameters start at the
        // first `?` after the credentials, which end at the first `@` (a
        // password may hold a `?`).
        let credentials_end = url.find('@').map_or(0, |at| at + 1);
        let (base, query) = match url[credentials_end..].find('?') {
            Some(q) => (&url[..credentials_end + q], &url[credentials_end + q + 1..]),
            None => (url, ""),
        };
        let decode = |what: &str, text: &str| {
            percent_decode_str(text)
                .decode_utf8()
                .map(|v| v.into_owned())
                .map_err(|_| format!("database URL: {what} is not UTF-8"))
        };
        let (mut mode, mut root_cert, mut transaction_pooling, mut kept) = (None, None, false, Vec::new());
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            // Keys are compared decoded, as tokio-postgres reads them.
            match decode("a parameter name", key)?.as_str() {
                "sslmode" => mode = Some(decode("sslmode", value)?),
                "sslrootcert" => root_cert = Some(decode("sslrootcert", value)?),
                "pgbouncer" => {
                    transaction_pooling = match decode("pgbouncer", value)?.as_str() {
                        "true" => true,
                        "false" => false,
                        _ => return Err("database URL: pgbouncer must be true or false".into()),
                    }
                }
                _ => kept.push(pair),
            }
        }
        let rest = if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        let mut config = tokio_postgres::Config::from_str(&rest).map_err(|e| format!("database URL: {e}"))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls_builder = || {
            ClientConfig::builder_with_provider(provider.clone())
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("TLS: {e}"))
        };
        let (ssl_mode, tls) = match (mode.as_deref().unwrap_or("prefer"), root_cert) {
            ("disable", None) => (SslMode::Disable, None),
            (m @ ("prefer" | "require"), None) => {
                let verifier = Arc::new(Unchecked(provider.signature_verification_algorithms));
                let tls = tls_builder()?
                    .dangerous()
                    .with_custom_certificate_verifier(verifier)
                    .with_no_client_auth();
                let ssl_mode = if m == "prefer" {
                    SslMode::Prefer
                } else {
                    SslMode::Require
                };
                (ssl_mode, Some(tls))
            }
            ("verify-full", Some(root_cert)) => {
                let tls = tls_builder()?
                    .with_root_certificates(roots(&root_cert)?)
                    .with_no_client_auth();
                (SslMode::Require, Some(tls))
            }
            ("verify-full", None) => {
                return Err(
                    "database URL: sslmode=verify-full needs sslrootcert (a PEM file of the CA certificates, \
                            or `system` for the system's)"
                        .into(),
                );
            }
            ("disable" | "prefer" | "require", Some(_)) => {
                return Err("database URL: sslrootcert is only read with sslmode=verify-full".into());
            }
            _ => return Err(format!("database URL: sslmode must be {MODES}")),
        };
        config.ssl_mode(ssl_mode);
        // No TLS over a Unix socket (libpq ignores sslmode there too).
        let socket_only = config
            .get_hosts()
            .iter()
            .all(|h| !matches!(h, tokio_postgres::config::Host::Tcp(_)));
        Ok(PgTarget {
            tls: tls.filter(|_| !socket_only).map(MakeRustlsConnect::new),
            config,
            transaction_pooling,
        })
    }

    pub(crate) async fn connect(&self) -> Result<AsyncPgConnection, ConnectionError> {
        // The cause too: "error performing TLS handshake" alone does not
        // say which certificate was refused, or why.
        let failed = |e: tokio_postgres::Error| {
            let cause = std::error::Error::source(&e)
                .map(|c| format!(": {c}"))
                .unwrap_or_default();
            ConnectionError::BadConnection(format!("{e}{cause}"))
        };
        match &self.tls {
            None => {
                let (client, connection) = self.config.connect(tokio_postgres::NoTls).await.map_err(failed)?;
                self.set_up(client, connection).await
            }
            Some(tls) => {
                let (client, connection) = self.config.connect(tls.clone()).await.map_err(failed)?;
                self.set_up(client, connection).await
            }
        }
    }

    /// The diesel connection over `client`. Through PgBouncer in
    /// transaction mode, its setup (diesel-async's `SET TIME ZONE` and
    /// `SET CLIENT_ENCODING`, prepared statements it keeps) runs in a
    /// transaction, so it reaches one server connection, and the statements
    /// are closed before it commits; later ones are not kept. PgBouncer
    /// carries both settings to whichever server connection comes next.
    async fn set_up<S>(
        &self,
        client: tokio_postgres::Client,
        connection: tokio_postgres::Connection<tokio_postgres::Socket, S>,
    ) -> Result<AsyncPgConnection, ConnectionError>
    where
        S: tokio_postgres::tls::TlsStream + Unpin + Send + 'static,
    {
        if !self.transaction_pooling {
            return AsyncPgConnection::try_from_client_and_connection(client, connection).await;
        }
        // Driven here, not by diesel-async: `BEGIN` must go before its setup.
        tokio::spawn(connection);
        let setup_failed = |e: tokio_postgres::Error| ConnectionError::BadConnection(format!("setting up: {e}"));
        client.batch_execute("BEGIN").await.map_err(setup_failed)?;
        let mut conn = AsyncPgConnection::try_from(client).await?;
        diesel_async::AsyncConnection::set_prepared_statement_cache_size(
            &mut conn,
            diesel::connection::CacheSize::Disabled,
        );
        diesel_async::SimpleAsyncConnection::batch_execute(&mut conn, "COMMIT")
            .await
            .map_err(ConnectionError::CouldntSetupConfiguration)?;
        Ok(conn)
    }
}

/// The CA certificates of `sslrootcert`: a PEM file, or `system`.
fn roots(root_cert: &str) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    let certs: Vec<CertificateDer> = if root_cert == "system" {
        rustls_native_certs::load_native_certs().certs
    } else {
        CertificateDer::pem_file_iter(root_cert)
            .and_then(|certs| certs.collect())
            .map_err(|e| format!("database URL: sslrootcert {root_cert}: {e}"))?
    };
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(format!("database URL: sslrootcert {root_cert} holds no CA certificate"));
    }
    Ok(roots)
}

/// libpq's `prefer` and `require`: the channel is encrypted and the
/// handshake's signatures are checked, but not who signed the certificate.
/// rustls has no such mode built in (on purpose), hence this verifier.
#[derive(Debug)]
struct Unchecked(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode_of(url: &str) -> Result<SslMode, String> {
        PgTarget::parse(url).map(|t| t.config.get_ssl_mode())
    }

    #[test]
    fn sslmode_follows_libpq_and_defaults_to_prefer() {
        assert!(matches!(mode_of("postgres://u@h/db"), Ok(SslMode::Prefer)));
        assert!(matches!(
            mode_of("postgres://u@h/db?sslmode=disable"),
            Ok(SslMode::Disable)
        ));
        assert!(matches!(
            mode_of("postgres://u@h/db?sslmode=require"),
            Ok(SslMode::Require)
        ));
        let target = PgTarget::parse("postgres://u@h/db?sslmode=disable").unwrap();
        assert!(target.tls.is_none());
    }

    #[test]
    fn sslmode_is_found_behind_a_question_mark_in_the_password_or_an_encoded_name() {
        assert!(matches!(
            mode_of("postgres://u:pa?ss@h/db?sslmode=require"),
            Ok(SslMode::Require)
        ));
        assert!(matches!(
            mode_of("postgres://u@h/db?ssl%6Dode=require"),
            Ok(SslMode::Require)
        ));
        let e = PgTarget::parse("postgres://u:pa?ss@h/db?ssl%6Dode=verify-full")
            .err()
            .unwrap();
        assert!(e.contains("needs sslrootcert") && !e.contains("pa?ss"), "{e}");
    }

    #[test]
    fn a_unix_socket_has_no_tls_whatever_the_mode() {
        let target = PgTarget::parse("postgres://u@/db?host=%2Fvar%2Frun%2Fpostgresql&sslmode=require").unwrap();
        assert!(target.tls.is_none());
        let target = PgTarget::parse("postgres://u@/db?host=%2Fvar%2Frun%2Fpostgresql").unwrap();
        assert!(target.tls.is_none());
    }

    #[test]
    fn other_parameters_are_kept() {
        let target = PgTarget::parse("postgres://u@h:5433/db?sslmode=require&application_name=x%20y").unwrap();
        assert_eq!(target.config.get_application_name(), Some("x y"));
        assert_eq!(target.config.get_ports(), &[5433]);
    }

    #[test]
    fn pgbouncer_says_whether_a_transaction_pooler_stands_between() {
        let pooling = |url: &str| PgTarget::parse(url).map(|t| t.transaction_pooling);
        assert_eq!(
            pooling("postgres://u@h:6432/db?pgbouncer=true&sslmode=disable"),
            Ok(true)
        );
        assert_eq!(pooling("postgres://u@h/db?pgbouncer=false"), Ok(false));
        assert_eq!(pooling("postgres://u@h/db"), Ok(false));
        let e = pooling("postgres://u:hunter2@h/db?pgbouncer=yes").unwrap_err();
        assert!(
            e.contains("pgbouncer must be true or false") && !e.contains("hunter2"),
            "{e}"
        );
        // Taken out: tokio-postgres would refuse a parameter it does not know.
        let target = PgTarget::parse("postgres://u@h/db?pgbouncer=true&application_name=x").unwrap();
        assert_eq!(target.config.get_application_name(), Some("x"));
    }

    #[test]
    fn bad_modes_and_root_certs_are_named_without_the_url() {
        let err = |url: &str| PgTarget::parse(url).err().unwrap();
        let e = err("postgres://u:hunter2@h/db?sslmode=verify-ca");
        assert!(e.contains("sslmode must be") && !e.contains("hunter2"), "{e}");
        assert!(err("postgres://u@h/db?sslmode=verify-full").contains("needs sslrootcert"));
        assert!(err("postgres://u@h/db?sslmode=require&sslrootcert=/x").contains("only read with"));
        let e = err("postgres://u@h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem");
        assert!(e.contains("sslrootcert /nonexistent/ca.pem"), "{e}");
        let e = err("postgres://u:hunter2@h:notaport/db");
        assert!(!e.contains("hunter2"), "{e}");
    }
}

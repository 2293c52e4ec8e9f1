//! TLS to PostgreSQL, against the test database behind a TLS-terminating
//! proxy made here: it speaks PostgreSQL's SSLRequest, serves a
//! certificate for `localhost` signed by a CA made for the test, and
//! passes what it decrypts to the real server. A client that does not ask
//! for TLS is dropped, so every query answered through it went encrypted.

use crate::db::Db;
use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use std::str::FromStr;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// PostgreSQL's SSLRequest: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

struct Proxy {
    port: u16,
    ca_file: tempfile::NamedTempFile,
    /// `user@` and `/database` of the test database.
    user: String,
    dbname: String,
}

fn ca_file(pem: &str) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), pem).unwrap();
    file
}

fn new_ca() -> (rcgen::Certificate, KeyPair) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let key = KeyPair::generate().unwrap();
    (params.self_signed(&key).unwrap(), key)
}

/// A TLS proxy in front of the server of `TEST_DATABASE_URL`.
async fn proxy(admin_url: &str) -> Proxy {
    let upstream = tokio_postgres::Config::from_str(admin_url).unwrap();
    let host = match &upstream.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        other => panic!("the TLS test needs TEST_DATABASE_URL over TCP, not {other:?}"),
    };
    let upstream_addr = format!("{host}:{}", upstream.get_ports().first().copied().unwrap_or(5432));
    let (ca, ca_key) = new_ca();
    let server_key = KeyPair::generate().unwrap();
    let server_cert = CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&server_key, &ca, &ca_key)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![server_cert.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der())),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let (acceptor, upstream_addr) = (acceptor.clone(), upstream_addr.clone());
            tokio::spawn(async move {
                let mut first = [0u8; 8];
                if client.read_exact(&mut first).await.is_err() || first != SSL_REQUEST {
                    return;
                }
                client.write_all(b"S").await.unwrap();
                let Ok(mut tls) = acceptor.accept(client).await else {
                    return;
                };
                let mut server = TcpStream::connect(upstream_addr).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut server).await;
            });
        }
    });
    Proxy {
        port,
        ca_file: ca_file(&ca.pem()),
        user: upstream.get_user().unwrap_or("root").to_string(),
        dbname: upstream.get_dbname().unwrap_or("postgres").to_string(),
    }
}

impl Proxy {
    fn url(&self, host: &str, query: &str) -> String {
        format!("postgres://{}@{host}:{}/{}?{query}", self.user, self.port, self.dbname)
    }
}

async fn answers(url: &str) -> Result<(), String> {
    let db = Db::connect(url, 1).await.map_err(|e| e.cause().to_string())?;
    db.ping().await.map_err(|e| e.cause().to_string())
}

#[tokio::test]
async fn verify_full_connects_only_to_a_server_whose_certificate_the_given_ca_signed_for_the_host() {
    let Ok(admin_url) = std::env::var("TEST_DATABASE_URL") else {
        return;
    };
    let p = proxy(&admin_url).await;
    let ca = p.ca_file.path().display().to_string();
    let verified = p.url("localhost", &format!("sslmode=verify-full&sslrootcert={ca}"));
    answers(&verified).await.unwrap();

    // Another CA, or another name than the certificate's: refused.
    let (other_ca, _) = new_ca();
    let other = ca_file(&other_ca.pem());
    let other = other.path().display().to_string();
    let e = answers(&p.url("localhost", &format!("sslmode=verify-full&sslrootcert={other}")))
        .await
        .unwrap_err();
    assert!(e.contains("certificate"), "{e}");
    let e = answers(&p.url("127.0.0.1", &format!("sslmode=verify-full&sslrootcert={ca}")))
        .await
        .unwrap_err();
    assert!(e.contains("certificate"), "{e}");

    // require and prefer encrypt without checking whose certificate it is.
    answers(&p.url("127.0.0.1", "sslmode=require")).await.unwrap();
    answers(&p.url("127.0.0.1", "")).await.unwrap();
    // disable sends no SSLRequest: this server drops it.
    assert!(answers(&p.url("localhost", "sslmode=disable")).await.is_err());
}

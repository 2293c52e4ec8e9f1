//! A KYC case's images, fetched for the operator's review through the
//! outbound guard (public addresses only, no redirect), within a size and
//! a time limit, and only as the image types browsers show.

use crate::outbound;
use ports::kyc_images::{Image, KycImages};
use std::time::Duration;

/// The most an image may weigh.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;

/// The types shown; anything else (an HTML page, an SVG with script) is
/// refused.
const TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/webp", "image/gif"];

pub struct HttpKycImages {
    client: reqwest::Client,
    allow_private: bool,
}

impl HttpKycImages {
    /// `allow_private` as the webhook sender's (local development and tests).
    pub fn new(allow_private: bool) -> Result<Self, String> {
        let client = outbound::client(
            Duration::from_secs(5),
            Duration::from_secs(15),
            allow_private,
            "issuing-kyc",
        )
        .map_err(|e| format!("KYC image HTTP client: {e}"))?;
        Ok(Self { client, allow_private })
    }
}

#[async_trait::async_trait]
impl KycImages for HttpKycImages {
    async fn fetch(&self, url: &str) -> Result<Image, String> {
        if outbound::literal_blocked(url, self.allow_private) {
            return Err("blocked: the URL's address is not public".into());
        }
        let mut response = self.client.get(url).send().await.map_err(|e| {
            let said = outbound::category(&e).to_string();
            tracing::debug!(error = %e.without_url(), "a KYC image could not be fetched");
            said
        })?;
        if !response.status().is_success() {
            return Err(format!("the image's host answered {}", response.status().as_u16()));
        }
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .filter(|t| TYPES.contains(&t.as_str()))
            .ok_or("not an image: its type is not JPEG, PNG, WebP or GIF")?;
        let too_big = || format!("larger than {} MiB", MAX_BYTES / 1024 / 1024);
        if response.content_length().is_some_and(|n| n > MAX_BYTES as u64) {
            return Err(too_big());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|_| "the image's host stopped answering")?
        {
            if bytes.len() + chunk.len() > MAX_BYTES {
                return Err(too_big());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Image { content_type, bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::path;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n not a whole picture";

    async fn serving(route: &str, response: ResponseTemplate) -> MockServer {
        let server = MockServer::start().await;
        Mock::given(path(route)).respond_with(response).mount(&server).await;
        server
    }

    #[tokio::test]
    async fn an_image_is_fetched_and_anything_else_refused() {
        let ok = ResponseTemplate::new(200).set_body_raw(PNG, "image/png");
        let server = serving("/id.png", ok).await;
        let images = HttpKycImages::new(true).unwrap();
        let image = images.fetch(&format!("{}/id.png", server.uri())).await.unwrap();
        assert_eq!(
            (image.content_type.as_str(), image.bytes.as_slice()),
            ("image/png", PNG)
        );

        for (answer, said) in [
            (
                ResponseTemplate::new(200).set_body_raw("<script>", "text/html"),
                "not an image",
            ),
            (
                ResponseTemplate::new(200).set_body_raw("<svg/>", "image/svg+xml"),
                "not an image",
            ),
            (ResponseTemplate::new(404), "answered 404"),
            (
                ResponseTemplate::new(302).insert_header("location", "http://169.254.169.254/"),
                "answered 302",
            ),
            (
                ResponseTemplate::new(200).set_body_raw(vec![0u8; MAX_BYTES + 1], "image/jpeg"),
                "larger than 5 MiB",
            ),
        ] {
            let server = serving("/x", answer).await;
            let e = images.fetch(&format!("{}/x", server.uri())).await.unwrap_err();
            assert!(e.contains(said), "{e}");
        }
    }

    #[tokio::test]
    async fn an_inside_address_is_never_reached_unless_allowed() {
        let server = serving("/id.png", ResponseTemplate::new(200).set_body_raw(PNG, "image/png")).await;
        let images = HttpKycImages::new(false).unwrap();
        let e = images.fetch(&format!("{}/id.png", server.uri())).await.unwrap_err();
        assert!(e.starts_with("blocked"), "{e}");
        let by_name = server.uri().replace("127.0.0.1", "localhost");
        let e = images.fetch(&format!("{by_name}/id.png")).await.unwrap_err();
        assert!(e.starts_with("blocked"), "{e}");
    }
}

//! The ID and selfie images of a KYC case, fetched from where the account
//! stored them, for the operator's review (never kept here).

/// An image as fetched: its type and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub content_type: String,
    pub bytes: Vec<u8>,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait KycImages: Send + Sync {
    /// The image at `url`; or why not, in words for the operator (never
    /// the network's detail).
    async fn fetch(&self, url: &str) -> Result<Image, String>;
}

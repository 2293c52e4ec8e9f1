//! A KYC case's images, shown to the operator through the dashboard: only
//! the two URLs stored on a case in review are ever fetched.

use super::ConsoleError;
use crate::App;
use domain::cardholders::CardholderStatus;
use domain::console::Refusal;
use domain::ids::CardholderId;
use ports::console::User;
use ports::kyc_images::Image;

/// Which of a case's images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseImage {
    Id,
    Selfie,
}

impl CaseImage {
    pub fn parse(value: &str) -> Option<CaseImage> {
        match value {
            "id_image" => Some(CaseImage::Id),
            "selfie_image" => Some(CaseImage::Selfie),
            _ => None,
        }
    }
}

/// Why an image is not shown.
#[derive(Debug, thiserror::Error)]
pub enum CaseImageError {
    #[error(transparent)]
    Console(#[from] ConsoleError),
    /// Fetched, and refused or failed: said for the operator.
    #[error("the image could not be fetched: {0}")]
    Fetch(String),
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn case_image(&self, by: &User, id: &CardholderId, which: CaseImage) -> Result<Image, CaseImageError> {
        by.seat.is_operator().map_err(ConsoleError::from)?;
        let case = self
            .ports
            .cardholders
            .get_any(id)
            .await
            .map_err(ConsoleError::from)?
            .filter(|c| c.status == CardholderStatus::ManualReview);
        let identity = case.map(|c| c.registration.identity);
        let url = identity.and_then(|i| match which {
            CaseImage::Id => i.id_image,
            CaseImage::Selfie => i.selfie_image,
        });
        let url = url.ok_or(ConsoleError::Refused(Refusal::NotFound))?;
        self.ports.kyc_images.fetch(&url).await.map_err(CaseImageError::Fetch)
    }
}

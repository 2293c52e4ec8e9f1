//! `issuing review list|approve|reject`: cases the automated check could
//! not decide.

use crate::App;
use domain::cardholders::CardholderStatus;
use domain::ids::CardholderId;
use ports::StoreError;
use ports::cardholders::{CardholderRecord, Decision};

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("no cardholder with the id {0} is waiting for review")]
    NotInReview(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl App {
    pub async fn cases_in_review(&self) -> Result<Vec<CardholderRecord>, StoreError> {
        self.ports.cardholders.in_review().await
    }

    /// Approves (active and verified, `.successful`) or rejects (`.failed`
    /// with `reason` as its `error_description`) a case in review.
    pub async fn review_cardholder(
        &self,
        id: &CardholderId,
        approve: bool,
        reason: Option<&str>,
    ) -> Result<(), ReviewError> {
        let record = self
            .ports
            .cardholders
            .get_any(id)
            .await?
            .filter(|r| r.status == CardholderStatus::ManualReview)
            .ok_or_else(|| ReviewError::NotInReview(id.to_string()))?;
        let decision = if approve {
            Decision {
                status: CardholderStatus::Verified,
                blacklisted: false,
                error_description: None,
            }
        } else {
            Decision {
                status: CardholderStatus::Failed,
                blacklisted: false,
                error_description: Some(reason.unwrap_or("rejected on manual review").to_string()),
            }
        };
        Ok(self.record_decision(&record, decision).await?)
    }
}

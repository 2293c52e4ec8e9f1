//! `issuing review list|approve|reject`: cases the automated check could
//! not decide.

use super::verify::DecisionError;
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
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn cases_in_review(&self) -> Result<Vec<CardholderRecord>, StoreError> {
        self.ports.cardholders.in_review().await
    }

    /// Approves (active and verified, `.successful`) or rejects (`.failed`
    /// with `reason` as its `error_description`) a case in review.
    #[tracing::instrument(level = "debug", skip_all)]
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
        match self.record_decision(&record, decision).await {
            Ok(()) => Ok(()),
            Err(DecisionError::Refused(_)) => Err(ReviewError::NotInReview(id.to_string())),
            Err(DecisionError::Store(e)) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, nigerian, regions};
    use domain::Mode;
    use domain::ids::AccountId;

    fn case(status: CardholderStatus) -> CardholderRecord {
        CardholderRecord {
            id: CardholderId::new("ch_1"),
            account_id: AccountId::new("acct_1"),
            mode: Mode::Live,
            registration: nigerian().check(&regions()).unwrap(),
            status,
            blacklisted: false,
            error_description: None,
            meta_data: None,
            created_at: domain::Timestamp::from_unix(1),
        }
    }

    #[tokio::test]
    async fn only_cases_in_review_can_be_decided() {
        let mut m = Mocks::default();
        m.cardholders
            .expect_get_any()
            .returning(|_| Ok(Some(case(CardholderStatus::Verified))));
        let e = m
            .app()
            .review_cardholder(&CardholderId::new("ch_1"), true, None)
            .await
            .unwrap_err();
        assert!(matches!(e, ReviewError::NotInReview(_)));
    }

    #[tokio::test]
    async fn a_rejection_carries_its_reason_in_the_failed_event() {
        let mut m = Mocks::default();
        m.cardholders
            .expect_get_any()
            .returning(|_| Ok(Some(case(CardholderStatus::ManualReview))));
        m.ids.expect_unique().returning(|| "u".into());
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(3));
        m.cardholders
            .expect_decide()
            .withf(|_, from, d, e, _| {
                *from == CardholderStatus::ManualReview
                    && d.status == CardholderStatus::Failed
                    && d.error_description.as_deref() == Some("blurry ID")
                    && e.event == "cardholder_verification.failed"
                    && e.data.contains("blurry ID")
                    && e.mode == Mode::Live
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(true));
        m.app()
            .review_cardholder(&CardholderId::new("ch_1"), false, Some("blurry ID"))
            .await
            .unwrap();
    }
}

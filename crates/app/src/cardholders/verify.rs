//! The verification job of asynchronous registration, and the decision
//! record shared with manual review: the status and the
//! `cardholder_verification.*` event are stored together.

use crate::App;
use domain::cardholders::kyc::{KycFailure, KycOutcome};
use domain::cardholders::{CardholderStatus, TransitionRefused};
use domain::events::payloads::{CardholderVerification, Event};
use domain::ids::CardholderId;
use domain::{DomainError, ErrorKind};
use ports::StoreError;
use ports::cardholders::{CardholderRecord, Decision};
use ports::kyc::{CallbackRefused, KycUnavailable, Submission};

impl App {
    /// `Err` carries why the attempt failed, for the job to retry on.
    pub(crate) async fn verify_cardholder(&self, id: &CardholderId) -> Result<(), String> {
        let Some(record) = self.ports.cardholders.get_any(id).await.map_err(|e| e.to_string())? else {
            return Ok(()); // deleted meanwhile
        };
        if record.status != CardholderStatus::Pending {
            return Ok(()); // decided by an earlier attempt
        }
        let submitted = self
            .ports
            .kyc
            .submit(record.mode, id.as_str(), &record.registration)
            .await
            .map_err(|e| e.to_string())?;
        let outcome = match submitted {
            Submission::Decided(outcome) => outcome,
            // The provider's callback decides ([`App::kyc_callback`]); this
            // job asks again on its schedule meanwhile, so a callback that
            // never comes leaves no one pending for ever (and a job parked
            // after a day of asking shows the operator who is).
            Submission::Awaiting => {
                let kyc = &self.ports.kyc;
                match kyc.outcome(record.mode, id.as_str(), &record.registration).await {
                    Ok(Some(outcome)) => outcome,
                    Ok(None) => return Err("the KYC provider has the job; its outcome is awaited".into()),
                    Err(e) => return Err(e.to_string()),
                }
            }
        };
        self.apply_outcome(&record, outcome)
            .await
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// `POST /v1/connectors/<provider>/callback`: a KYC provider says a
    /// job is done. The body is authenticated, and only names the job:
    /// its outcome is asked of the provider, and applied to the
    /// cardholder only while it is still pending in the mode that signed,
    /// so a repeated or late callback changes nothing.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn kyc_callback(&self, body: &[u8]) -> Result<CallbackApplied, KycCallbackError> {
        let (mode, job) = self.ports.kyc.callback_job(body)?;
        // A job id with a control character (a NUL, which PostgreSQL's
        // text refuses) names no cardholder: nothing is looked up.
        if domain::text::reference(&job).is_err() {
            return Ok(CallbackApplied::UnknownJob);
        }
        let record = match self.ports.cardholders.get_any(&CardholderId::new(&job)).await? {
            Some(record) if record.mode == mode => record,
            _ => return Ok(CallbackApplied::UnknownJob),
        };
        if record.status != CardholderStatus::Pending {
            return Ok(CallbackApplied::AlreadyDecided);
        }
        match self.ports.kyc.outcome(mode, &job, &record.registration).await? {
            None => Ok(CallbackApplied::NotDecidedYet),
            Some(outcome) => match self.apply_outcome(&record, outcome).await? {
                true => Ok(CallbackApplied::Applied),
                // Another copy of the callback decided it meanwhile.
                false => Ok(CallbackApplied::AlreadyDecided),
            },
        }
    }

    /// Records the provider's outcome for a pending cardholder; `false`
    /// when it was decided (or deleted) meanwhile, which stands.
    async fn apply_outcome(&self, record: &CardholderRecord, outcome: KycOutcome) -> Result<bool, StoreError> {
        let decision = match outcome {
            KycOutcome::Verified => Decision {
                status: CardholderStatus::Verified,
                blacklisted: false,
                error_description: None,
            },
            KycOutcome::ManualReview(reason) => Decision {
                status: CardholderStatus::ManualReview,
                blacklisted: false,
                error_description: Some(reason.to_string()),
            },
            KycOutcome::Failed(failure) => Decision {
                status: CardholderStatus::Failed,
                blacklisted: failure == KycFailure::Blacklisted,
                error_description: Some(failure.message().to_string()),
            },
        };
        match self.record_decision(record, decision).await {
            Ok(()) => Ok(true),
            Err(DecisionError::Refused(_)) => Ok(false),
            Err(DecisionError::Store(e)) => Err(e),
        }
    }

    /// Records `decision` with its event, only if the status the record was
    /// read in allows it and is still the stored one.
    pub(crate) async fn record_decision(
        &self,
        record: &CardholderRecord,
        decision: Decision,
    ) -> Result<(), DecisionError> {
        record.status.decide(decision.status)?;
        let payload = CardholderVerification {
            cardholder_id: record.id.to_string(),
            is_active: decision.status.is_active(),
            livemode: record.mode.is_live(),
            issuing_app_id: record.account_id.to_string(),
            error_description: decision.error_description.clone(),
        };
        let event = match decision.status {
            CardholderStatus::Verified => Event::CardholderVerificationSuccessful(payload),
            CardholderStatus::ManualReview => Event::CardholderVerificationManualReview(payload),
            CardholderStatus::Pending | CardholderStatus::Failed => Event::CardholderVerificationFailed(payload),
        };
        let event = self.new_event(&record.account_id, record.mode, event).await?;
        let delivery = self.delivery_job(&event.id);
        let refused = TransitionRefused {
            from: record.status,
            to: decision.status,
        };
        match self
            .ports
            .cardholders
            .decide(&record.id, record.status, decision, event, delivery)
            .await?
        {
            true => Ok(()),
            false => Err(DecisionError::Refused(refused)),
        }
    }
}

/// What a KYC callback did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackApplied {
    Applied,
    /// The cardholder was decided already (an earlier callback, or review).
    AlreadyDecided,
    /// The provider says the job is not done yet.
    NotDecidedYet,
    /// No cardholder of the signing mode has this job (deleted, say).
    UnknownJob,
}

#[derive(Debug, thiserror::Error)]
pub enum KycCallbackError {
    #[error(transparent)]
    Refused(#[from] CallbackRefused),
    #[error(transparent)]
    Unavailable(#[from] KycUnavailable),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for KycCallbackError {
    fn kind(&self) -> ErrorKind {
        match self {
            KycCallbackError::Refused(_) => ErrorKind::Unauthorized,
            KycCallbackError::Unavailable(_) => ErrorKind::RetryLater,
            KycCallbackError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            KycCallbackError::Refused(_) => "bad_provider_signature",
            KycCallbackError::Unavailable(_) => "kyc_unavailable",
            KycCallbackError::Store(e) => e.code(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum DecisionError {
    /// Not allowed from the status read, or that status changed (or the
    /// cardholder was deleted) before the decision was stored.
    #[error(transparent)]
    Refused(#[from] TransitionRefused),
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[cfg(test)]
mod tests {
    use crate::testing::{Mocks, nigerian};
    use domain::Mode;
    use domain::cardholders::CardholderStatus;
    use domain::cardholders::kyc::{KycFailure, KycOutcome};
    use domain::ids::{AccountId, CardholderId};
    use ports::cardholders::CardholderRecord;
    use ports::kyc::{CallbackRefused, Submission};

    fn pending() -> CardholderRecord {
        CardholderRecord {
            id: CardholderId::new("ch_1"),
            account_id: AccountId::new("acct_1"),
            mode: Mode::Test,
            registration: nigerian().check(&crate::testing::regions()).unwrap(),
            status: CardholderStatus::Pending,
            blacklisted: false,
            error_description: None,
            meta_data: None,
            created_at: domain::Timestamp::from_unix(1),
        }
    }

    fn mocks(outcome: KycOutcome, event: &'static str, status: CardholderStatus) -> Mocks {
        let mut m = Mocks::default();
        m.cardholders.expect_get_any().returning(|_| Ok(Some(pending())));
        m.kyc
            .expect_submit()
            .returning(move |_, _, _| Ok(Submission::Decided(outcome)));
        m.ids.expect_unique().returning(|| "u".into());
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(10));
        m.test_clocks.expect_offset().returning(|_| Ok(0));
        m.cardholders
            .expect_decide()
            .withf(move |id, from, decision, e, job| {
                id.as_str() == "ch_1"
                    && *from == CardholderStatus::Pending
                    && decision.status == status
                    && e.event == event
                    && job.subject == e.id.as_str()
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(true));
        m
    }

    #[tokio::test]
    async fn each_outcome_is_recorded_with_its_event() {
        let cases = [
            (
                KycOutcome::Verified,
                "cardholder_verification.successful",
                CardholderStatus::Verified,
            ),
            (
                KycOutcome::ManualReview("the selfie could not be matched"),
                "cardholder_verification.manual_review",
                CardholderStatus::ManualReview,
            ),
            (
                KycOutcome::Failed(KycFailure::NameMismatch),
                "cardholder_verification.failed",
                CardholderStatus::Failed,
            ),
        ];
        for (outcome, event, status) in cases {
            let app = mocks(outcome, event, status).app();
            assert_eq!(app.verify_cardholder(&CardholderId::new("ch_1")).await, Ok(()));
        }
    }

    #[tokio::test]
    async fn a_callback_applies_the_providers_outcome_once_in_the_mode_that_signed() {
        use super::CallbackApplied;
        let callback = |mode: Mode, status: CardholderStatus, asks: usize| {
            let mut m = Mocks::default();
            m.kyc
                .expect_callback_job()
                .returning(move |_| Ok((mode, "ch_1".to_string())));
            m.cardholders
                .expect_get_any()
                .returning(move |_| Ok(Some(CardholderRecord { status, ..pending() })));
            m.kyc
                .expect_outcome()
                .withf(|mode, job, _| *mode == Mode::Test && job == "ch_1")
                .times(asks)
                .returning(|_, _, _| Ok(Some(KycOutcome::Verified)));
            m
        };
        let mut m = callback(Mode::Test, CardholderStatus::Pending, 1);
        m.ids.expect_unique().returning(|| "u".into());
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(10));
        m.test_clocks.expect_offset().returning(|_| Ok(0));
        m.cardholders
            .expect_decide()
            .withf(|_, from, decision, _, _| {
                *from == CardholderStatus::Pending && decision.status == CardholderStatus::Verified
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(true));
        assert_eq!(m.app().kyc_callback(b"{}").await.unwrap(), CallbackApplied::Applied);
        let app = callback(Mode::Test, CardholderStatus::Verified, 0).app();
        assert_eq!(app.kyc_callback(b"{}").await.unwrap(), CallbackApplied::AlreadyDecided);
        let app = callback(Mode::Live, CardholderStatus::Pending, 0).app();
        assert_eq!(app.kyc_callback(b"{}").await.unwrap(), CallbackApplied::UnknownJob);
        // A job id with a NUL is no job, and nothing is looked up.
        let mut m = Mocks::default();
        m.kyc
            .expect_callback_job()
            .returning(|_| Ok((Mode::Test, "ch_\0".to_string())));
        assert_eq!(m.app().kyc_callback(b"{}").await.unwrap(), CallbackApplied::UnknownJob);
        let mut m = Mocks::default();
        m.kyc
            .expect_callback_job()
            .returning(|_| Err(CallbackRefused("unsigned")));
        assert!(matches!(
            m.app().kyc_callback(b"{}").await,
            Err(super::KycCallbackError::Refused(_))
        ));
    }

    #[tokio::test]
    async fn a_job_the_provider_took_is_asked_about_until_it_is_decided() {
        for (answer, decided) in [(None, false), (Some(KycOutcome::Verified), true)] {
            let mut m = Mocks::default();
            m.cardholders.expect_get_any().returning(|_| Ok(Some(pending())));
            m.kyc.expect_submit().returning(|_, _, _| Ok(Submission::Awaiting));
            m.kyc
                .expect_outcome()
                .withf(|_, job, _| job == "ch_1")
                .returning(move |_, _, _| Ok(answer));
            if decided {
                m.ids.expect_unique().returning(|| "u".into());
                m.clock.expect_now().return_const(domain::Timestamp::from_unix(10));
                m.test_clocks.expect_offset().returning(|_| Ok(0));
                m.cardholders
                    .expect_decide()
                    .times(1)
                    .returning(|_, _, _, _, _| Ok(true));
            }
            let done = m.app().verify_cardholder(&CardholderId::new("ch_1")).await;
            match decided {
                true => assert_eq!(done, Ok(())),
                false => assert!(done.unwrap_err().contains("awaited"), "retried on the job's schedule"),
            }
        }
    }
}

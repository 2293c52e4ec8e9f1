//! `POST /cardholder/register_cardholder_synchronously` (verified on the
//! spot) and `POST /cardholder/register_cardholder` (201 at once, the
//! outcome by webhook).

use crate::{App, Caller};
use domain::cardholders::CardholderStatus;
use domain::cardholders::kyc::{KycFailure, KycOutcome};
use domain::cardholders::registration::RegistrationInput;
use domain::ids::CardholderId;
use domain::{DomainError, ErrorKind, InvalidInput};
use ports::StoreError;
use ports::cardholders::{CardholderRecord, SaveCardholderError};
use ports::jobs::JobKind;
use ports::kyc::KycUnavailable;
use ports::rate_limits::Permit;

const SAME_IDENTITY_WINDOW_SECS: i64 = 60;
/// The rate limit's name for registrations of one identity.
const ACTION: &str = "register_cardholder";

#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error(
        "the account's company address and utility bill must be on file before cardholders can be registered \
         (issuing accounts update <account_id> --company-address ... --utility-bill-url ...)"
    )]
    ProfileIncomplete,
    #[error("this identity was registered less than a minute ago; retry in {retry_after_secs} seconds")]
    RateLimited { retry_after_secs: u64 },
    #[error(transparent)]
    Conflict(#[from] SaveCardholderError),
    #[error("{}", .0.message())]
    Refused(KycFailure),
    #[error(transparent)]
    KycUnavailable(#[from] KycUnavailable),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for RegisterError {
    fn kind(&self) -> ErrorKind {
        match self {
            RegisterError::Invalid(_)
            | RegisterError::Conflict(SaveCardholderError::BvnUsed | SaveCardholderError::PhoneUsed) => {
                ErrorKind::InvalidRequest
            }
            RegisterError::ProfileIncomplete => ErrorKind::Forbidden,
            RegisterError::RateLimited { retry_after_secs } => ErrorKind::RateLimited {
                retry_after_secs: *retry_after_secs,
            },
            RegisterError::Refused(KycFailure::Blacklisted) => ErrorKind::Blacklisted,
            RegisterError::Refused(_) => ErrorKind::InvalidRequest,
            RegisterError::KycUnavailable(_) => ErrorKind::RetryLater,
            RegisterError::Conflict(SaveCardholderError::Store(e)) | RegisterError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            RegisterError::Invalid(e) => e.code(),
            RegisterError::ProfileIncomplete => "account_profile_incomplete",
            RegisterError::RateLimited { .. } => "rate_limited",
            RegisterError::Conflict(SaveCardholderError::BvnUsed) => "bvn_already_used",
            RegisterError::Conflict(SaveCardholderError::PhoneUsed) => "phone_already_used",
            RegisterError::Refused(f) => f.code(),
            RegisterError::KycUnavailable(_) => "kyc_unavailable",
            RegisterError::Conflict(SaveCardholderError::Store(e)) | RegisterError::Store(e) => e.code(),
        }
    }
}

impl App {
    /// Registers a cardholder. Synchronously, the identity is verified
    /// first and a refusal stores nothing; otherwise the cardholder is
    /// stored as pending with the job that verifies it.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn register_cardholder(
        &self,
        caller: &Caller,
        input: &RegistrationInput,
        meta_data: Option<String>,
        synchronous: bool,
    ) -> Result<(CardholderId, CardholderStatus), RegisterError> {
        let registration = input.check(&self.settings.regions)?;
        if !self
            .ports
            .cardholders
            .account_profile_complete(&caller.account_id)
            .await?
        {
            return Err(RegisterError::ProfileIncomplete);
        }
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let permit = self
            .ports
            .rate_limits
            .acquire(
                &caller.account_id,
                caller.mode,
                ACTION,
                registration.identity.number(),
                SAME_IDENTITY_WINDOW_SECS,
                now,
            )
            .await?;
        if let Permit::Denied { retry_after_secs } = permit {
            return Err(RegisterError::RateLimited { retry_after_secs });
        }
        // The provider's job is known by the cardholder's id.
        let id = CardholderId::with_suffix(&self.ports.ids.unique());
        let (status, error_description) = if synchronous {
            let verified = match self.ports.kyc.verify(caller.mode, id.as_str(), &registration).await {
                Ok(outcome) => outcome,
                Err(unavailable) => {
                    // A provider that could not answer decided nothing:
                    // the identity may be tried again at once.
                    let number = registration.identity.number();
                    let limits = &self.ports.rate_limits;
                    limits
                        .release(&caller.account_id, caller.mode, ACTION, number, now)
                        .await?;
                    return Err(unavailable.into());
                }
            };
            match verified {
                KycOutcome::Verified => (CardholderStatus::Verified, None),
                KycOutcome::ManualReview(reason) => (CardholderStatus::ManualReview, Some(reason.to_string())),
                KycOutcome::Failed(failure) => return Err(RegisterError::Refused(failure)),
            }
        } else {
            (CardholderStatus::Pending, None)
        };
        let verification = (!synchronous).then(|| self.job_now(JobKind::VerifyCardholder, id.to_string()));
        let record = CardholderRecord {
            id: id.clone(),
            account_id: caller.account_id.clone(),
            mode: caller.mode,
            registration,
            status,
            blacklisted: false,
            error_description,
            meta_data,
            created_at: now,
        };
        let queued = verification.is_some();
        self.ports.cardholders.insert(record, verification).await?;
        if queued {
            self.work_queued();
        }
        Ok((id, status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, caller, nigerian};
    use domain::Mode;

    fn mocks(profile: bool, permit: Permit) -> Mocks {
        let mut m = Mocks::default();
        m.cardholders
            .expect_account_profile_complete()
            .returning(move |_| Ok(profile));
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.test_clocks.expect_offset().returning(|_| Ok(0));
        m.rate_limits
            .expect_acquire()
            .withf(|_, _, action, subject, window, _| {
                action == "register_cardholder" && subject == "22212345678" && *window == 60
            })
            .returning(move |_, _, _, _, _, _| Ok(permit));
        m.ids.expect_unique().returning(|| "u".into());
        m
    }

    #[tokio::test]
    async fn synchronous_registration_stores_the_verified_cardholder() {
        let mut m = mocks(true, Permit::Granted);
        m.kyc.expect_verify().returning(|_, _, _| Ok(KycOutcome::Verified));
        m.cardholders
            .expect_insert()
            .withf(|r, job| r.status == CardholderStatus::Verified && job.is_none())
            .times(1)
            .returning(|_, _| Ok(()));
        let (id, status) = m
            .app()
            .register_cardholder(&caller(Mode::Test), &nigerian(), None, true)
            .await
            .unwrap();
        assert_eq!((id.as_str(), status), ("ch_u", CardholderStatus::Verified));
    }

    #[tokio::test]
    async fn a_provider_that_could_not_answer_gives_the_identitys_attempt_back() {
        let mut m = mocks(true, Permit::Granted);
        m.kyc
            .expect_verify()
            .returning(|_, _, _| Err(KycUnavailable("Smile ID did not answer in time".into())));
        m.rate_limits
            .expect_release()
            .withf(|_, _, action, subject, at| {
                action == "register_cardholder" && subject == "22212345678" && at.unix() == 1_000
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(()));
        let e = m
            .app()
            .register_cardholder(&caller(Mode::Test), &nigerian(), None, true)
            .await
            .unwrap_err();
        assert!(matches!(e, RegisterError::KycUnavailable(_)), "{e:?}");
    }

    #[tokio::test]
    async fn a_refused_identity_stores_nothing() {
        let mut m = mocks(true, Permit::Granted);
        m.kyc
            .expect_verify()
            .returning(|_, _, _| Ok(KycOutcome::Failed(KycFailure::Blacklisted)));
        let e = m
            .app()
            .register_cardholder(&caller(Mode::Test), &nigerian(), None, true)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Blacklisted);
    }

    #[tokio::test]
    async fn asynchronous_registration_queues_verification() {
        let mut m = mocks(true, Permit::Granted);
        m.cardholders
            .expect_insert()
            .withf(|r, job| {
                r.status == CardholderStatus::Pending
                    && job
                        .as_ref()
                        .is_some_and(|j| j.kind == JobKind::VerifyCardholder && j.subject == "ch_u")
            })
            .times(1)
            .returning(|_, _| Ok(()));
        let (_, status) = m
            .app()
            .register_cardholder(&caller(Mode::Test), &nigerian(), None, false)
            .await
            .unwrap();
        assert_eq!(status, CardholderStatus::Pending);
    }

    #[tokio::test]
    async fn a_missing_company_profile_is_403_and_a_repeat_within_a_minute_420() {
        let e = mocks(false, Permit::Granted)
            .app()
            .register_cardholder(&caller(Mode::Test), &nigerian(), None, true)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Forbidden);
        let e = mocks(true, Permit::Denied { retry_after_secs: 30 })
            .app()
            .register_cardholder(&caller(Mode::Test), &nigerian(), None, true)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::RateLimited { retry_after_secs: 30 });
    }
}

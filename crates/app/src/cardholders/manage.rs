//! `get_cardholder`, `update_cardholder`, `delete_cardholder/{id}` and
//! `cards/get_all_cardholder`. A deleted cardholder is gone for every
//! endpoint (400, as an unknown id).

use crate::{App, Caller};
use domain::cardholders::identity::IdentityInput;
use domain::cardholders::registration::AddressInput;
use domain::ids::CardholderId;
use domain::paging::{Page, Paging};
use domain::{DomainError, ErrorKind, InvalidInput};
use ports::StoreError;
use ports::cardholders::{CardholderRecord, SaveCardholderError};
use ports::jobs::JobKind;

/// The most characters a search holds.
const MAX_SEARCH: usize = 100;

#[derive(Debug, thiserror::Error)]
pub enum CardholderError {
    #[error("cardholder_id: no cardholder with this id")]
    NotFound,
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error(transparent)]
    Conflict(#[from] SaveCardholderError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for CardholderError {
    fn kind(&self) -> ErrorKind {
        match self {
            CardholderError::Conflict(SaveCardholderError::Store(e)) | CardholderError::Store(e) => e.kind(),
            CardholderError::NotFound
            | CardholderError::Invalid(_)
            | CardholderError::Conflict(SaveCardholderError::BvnUsed | SaveCardholderError::PhoneUsed) => {
                ErrorKind::InvalidRequest
            }
        }
    }
    fn code(&self) -> &'static str {
        match self {
            CardholderError::NotFound => "cardholder_not_found",
            CardholderError::Invalid(e) => e.code(),
            CardholderError::Conflict(SaveCardholderError::BvnUsed) => "bvn_already_used",
            CardholderError::Conflict(SaveCardholderError::PhoneUsed) => "phone_already_used",
            CardholderError::Conflict(SaveCardholderError::Store(e)) | CardholderError::Store(e) => e.code(),
        }
    }
}

/// The fields an update may change; absent ones stay as they are.
#[derive(Debug, Clone, Default)]
pub struct CardholderUpdate {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub address: Option<AddressInput>,
    pub phone: Option<String>,
    pub email_address: Option<String>,
    pub identity: Option<IdentityInput>,
    pub meta_data: Option<String>,
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_cardholder(
        &self,
        caller: &Caller,
        id: &CardholderId,
    ) -> Result<CardholderRecord, CardholderError> {
        self.ports
            .cardholders
            .get(&caller.account_id, caller.mode, id)
            .await?
            .ok_or(CardholderError::NotFound)
    }

    /// Applies the update and checks the result by the registration rules;
    /// identity is not verified again.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn update_cardholder(
        &self,
        caller: &Caller,
        id: &CardholderId,
        update: CardholderUpdate,
    ) -> Result<CardholderRecord, CardholderError> {
        let mut record = self.get_cardholder(caller, id).await?;
        let mut input = record.registration.to_input();
        input.first_name = update.first_name.or(input.first_name);
        input.last_name = update.last_name.or(input.last_name);
        input.address = update.address.or(input.address);
        input.phone = update.phone.or(input.phone);
        input.email_address = update.email_address.or(input.email_address);
        input.identity = update.identity.or(input.identity);
        record.registration = input.check(&self.settings.regions)?;
        record.meta_data = update.meta_data.or(record.meta_data);
        if !self.ports.cardholders.update_profile(record.clone()).await? {
            return Err(CardholderError::NotFound);
        }
        // The profile as edited, with the status as stored now (a decision
        // may have landed since it was read).
        self.get_cardholder(caller, id).await
    }

    /// Deletes the cardholder and, first, their cards (see `delete_card`).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn delete_cardholder(&self, caller: &Caller, id: &CardholderId) -> Result<(), CardholderError> {
        self.get_cardholder(caller, id).await?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        // The cardholder first: from its commit no card can be created for
        // it (card creation requires it active, under its row lock), so the
        // cards deleted next are all it will ever have. Its job finishes
        // the deletion if this request is cut short.
        let finish = self.job_now(JobKind::DeleteCardholderCards, id.to_string());
        if !self
            .ports
            .cardholders
            .delete(&caller.account_id, caller.mode, id, now, finish)
            .await?
        {
            return Err(CardholderError::NotFound);
        }
        self.delete_cards_of((&caller.account_id, caller.mode), id).await?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn list_cardholders(
        &self,
        caller: &Caller,
        page: Page,
    ) -> Result<(Vec<CardholderRecord>, Paging), StoreError> {
        let (records, total) = self
            .ports
            .cardholders
            .list(&caller.account_id, caller.mode, page)
            .await?;
        Ok((records, page.paging(total)))
    }

    /// The dashboard's search: the cardholders whose id is `text`, or
    /// whose name or phone number holds it.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn search_cardholders(
        &self,
        caller: &Caller,
        text: &str,
        page: Page,
    ) -> Result<(Vec<CardholderRecord>, Paging), CardholderError> {
        let text = text.trim();
        domain::text::plain("q", text, MAX_SEARCH)?;
        let (records, total) = self
            .ports
            .cardholders
            .search(&caller.account_id, caller.mode, text.to_string(), page)
            .await?;
        Ok((records, page.paging(total)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, caller, nigerian, regions};
    use domain::Mode;
    use domain::cardholders::CardholderStatus;
    use domain::ids::AccountId;

    fn stored() -> CardholderRecord {
        CardholderRecord {
            id: CardholderId::new("ch_1"),
            account_id: AccountId::new("acct_1"),
            mode: Mode::Test,
            registration: nigerian().check(&regions()).unwrap(),
            status: CardholderStatus::Verified,
            blacklisted: false,
            error_description: None,
            meta_data: None,
            created_at: domain::Timestamp::from_unix(1),
        }
    }

    /// A card of `ch_1` whose deletion fails the first time it is tried.
    fn deleting(m: &mut Mocks, cards: &'static [&'static str], fails: &'static str) {
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(1_000));
        m.ids.expect_unique().return_const("u".to_string());
        m.cards
            .expect_for_cardholder()
            .returning(move |_, _, _| Ok(cards.iter().map(|id| crate::testing::card(id)).collect()));
        let tried = std::sync::Mutex::new(std::collections::HashSet::new());
        m.cards.expect_delete().returning(move |_, _, id, _, _, _| {
            match id.as_str() == fails && tried.lock().unwrap().insert(id.to_string()) {
                true => Err(StoreError::new("the refund was refused")),
                false => Ok(Some(domain::Amount::from_const(300))),
            }
        });
    }

    /// A deletion cut short (here a card's deletion fails; a crash does
    /// the same) leaves the cardholder deleted with a card; the job stored
    /// with the deletion deletes it.
    #[tokio::test]
    async fn a_cardholder_deletion_cut_short_is_finished_by_its_job() {
        let mut m = Mocks::default();
        deleting(&mut m, &["card_a", "card_b"], "card_a");
        m.cardholders.expect_get().returning(|_, _, _| Ok(Some(stored())));
        m.cardholders
            .expect_delete()
            .withf(|_, _, id, _, job| {
                id.as_str() == "ch_1" && job.kind == JobKind::DeleteCardholderCards && job.subject == "ch_1"
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(true));
        let app = m.app();
        assert!(
            app.delete_cardholder(&caller(Mode::Live), &CardholderId::new("ch_1"))
                .await
                .is_err()
        );

        let mut m = Mocks::default();
        deleting(&mut m, &["card_a"], "none");
        m.jobs
            .expect_complete()
            .withf(|lease, ids| lease == "lease_1" && ids == [domain::ids::JobId::new("job_finish")])
            .times(1)
            .returning(|_, _| Ok(()));
        m.cards.expect_transfers().returning(|_| Ok(vec![]));
        m.cards.expect_processor_cards().returning(|_| Ok(vec![]));
        let finish = ports::jobs::Job {
            id: domain::ids::JobId::new("job_finish"),
            lease: "lease_1".into(),
            account_id: AccountId::new("acct_1"),
            mode: Mode::Live,
            kind: JobKind::DeleteCardholderCards,
            subject: "ch_1".into(),
            attempts: 1,
            max_attempts: 10,
        };
        let claim = crate::jobs::Claim {
            lease: "lease_1".into(),
            jobs: vec![finish],
        };
        m.app().run_jobs(claim).await.unwrap();
    }

    #[tokio::test]
    async fn an_unknown_or_deleted_cardholder_is_a_400_naming_the_id() {
        let mut m = Mocks::default();
        m.cardholders.expect_get().returning(|_, _, _| Ok(None));
        let e = m
            .app()
            .get_cardholder(&caller(Mode::Test), &CardholderId::new("ch_x"))
            .await
            .unwrap_err();
        assert_eq!(
            (e.kind(), e.code()),
            (ErrorKind::InvalidRequest, "cardholder_not_found")
        );
        assert!(e.to_string().starts_with("cardholder_id:"));
    }

    #[tokio::test]
    async fn an_update_changes_only_what_it_names_and_is_checked() {
        let mut m = Mocks::default();
        m.cardholders.expect_get().returning(|_, _, _| Ok(Some(stored())));
        m.cardholders
            .expect_update_profile()
            .withf(|r| r.registration.last_name == "Okonkwo" && r.registration.first_name == "Adaeze")
            .times(1)
            .returning(|_| Ok(true));
        let app = m.app();
        let update = CardholderUpdate {
            last_name: Some("Okonkwo".into()),
            ..Default::default()
        };
        app.update_cardholder(&caller(Mode::Test), &CardholderId::new("ch_1"), update)
            .await
            .unwrap();
        let bad = CardholderUpdate {
            phone: Some("0803".into()),
            ..Default::default()
        };
        let e = app
            .update_cardholder(&caller(Mode::Test), &CardholderId::new("ch_1"), bad)
            .await
            .unwrap_err();
        assert!(e.to_string().starts_with("phone:"), "{e}");
    }
}

//! Rewards: the sandbox's `assign_reward`, `get_cardholder_rewards`, each
//! account's rules (read and changed by API and CLI), the rule jobs that
//! earn rewards, and what the two hosted pages show.

mod pages;
mod rules;

pub use pages::{
    CHART_MONTHS, ChartKind, DealPage, DealQuery, PAGE_SESSION_SECS, PageError, PageSession, SpendingChart,
};
pub use rules::RulesChange;
pub(crate) use rules::{SWITCH_CACHE_SECS, Switches};

use crate::{App, Caller, RequestError};
use domain::events::payloads::{Event, RewardAssigned};
use domain::ids::{AccountId, CardholderId, EventId};
use domain::rewards::rules::Rule;
use domain::rewards::{Catalogue, Reward};
use domain::{DomainError, ErrorKind, InvalidInput, Mode, Timestamp};
use ports::StoreError;
use ports::rewards::{NewReward, RewardRecord};

#[derive(Debug, thiserror::Error)]
pub enum RewardError {
    #[error("cardholder_id: no cardholder with this id")]
    CardholderNotFound,
    #[error("the rewards catalogue has no reward available to give")]
    NothingToGive,
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for RewardError {
    fn kind(&self) -> ErrorKind {
        match self {
            RewardError::CardholderNotFound | RewardError::NothingToGive => ErrorKind::InvalidRequest,
            RewardError::Invalid(e) => e.kind(),
            RewardError::Request(e) => e.kind(),
            RewardError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            RewardError::CardholderNotFound => "cardholder_not_found",
            RewardError::NothingToGive => "no_reward_available",
            RewardError::Invalid(e) => e.code(),
            RewardError::Request(e) => e.code(),
            RewardError::Store(e) => e.code(),
        }
    }
}

/// A reward as `get_cardholder_rewards` shows it.
#[derive(Debug, Clone)]
pub struct RewardView {
    pub record: RewardRecord,
    /// For an unclaimed deal: what the deal page takes.
    pub reward_token: Option<String>,
    /// The mode's time, for `is_available`.
    pub now: Timestamp,
}

impl App {
    /// Sandbox only: gives the cardholder a random reward of the
    /// catalogue, with its event. Any number of times.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn assign_reward(&self, caller: &Caller, cardholder_id: &Option<String>) -> Result<(), RewardError> {
        if caller.mode != Mode::Test {
            return Err(RequestError::SandboxOnly.into());
        }
        let cardholder = CardholderId::new(domain::required(cardholder_id, "cardholder_id")?);
        self.cardholder_of(caller, &cardholder).await?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        if !self
            .give((&caller.account_id, caller.mode, &cardholder), None, now)
            .await?
        {
            return Err(RewardError::NothingToGive);
        }
        Ok(())
    }

    /// The cardholder's rewards, oldest first; unclaimed deals with their
    /// token.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_cardholder_rewards(
        &self,
        caller: &Caller,
        cardholder_id: &str,
    ) -> Result<Vec<RewardView>, RewardError> {
        let cardholder = CardholderId::new(cardholder_id);
        self.cardholder_of(caller, &cardholder).await?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let records = self
            .ports
            .rewards
            .list(&caller.account_id, caller.mode, &cardholder)
            .await?;
        Ok(records
            .into_iter()
            .map(|record| RewardView {
                reward_token: matches!(record.reward, Reward::Deal(_)).then(|| self.reward_token(&record.id)),
                record,
                now,
            })
            .collect())
    }

    /// Replaces the rewards catalogue (the operator's), after checking
    /// every rule against the merchant catalogue.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn import_rewards_catalogue(&self, catalogue: &Catalogue) -> Result<(), RewardError> {
        let merchants = &self.ports.merchants;
        catalogue
            .validate(|name| merchants.knows(name))
            .map_err(|e| e.problem)?;
        let now = self.ports.clock.now();
        self.ports.rewards.import_catalogue(catalogue, now).await?;
        Ok(())
    }

    /// A cardholder of the caller's account and mode, or 400.
    async fn cardholder_of(&self, caller: &Caller, id: &CardholderId) -> Result<(), RewardError> {
        self.ports
            .cardholders
            .get(&caller.account_id, caller.mode, id)
            .await?
            .map(|_| ())
            .ok_or(RewardError::CardholderNotFound)
    }

    /// The deal page's token of reward `id`: its id and a keyed hash of
    /// it, so that only this service makes one, and none needs storing.
    pub(crate) fn reward_token(&self, id: &str) -> String {
        format!("{id}.{}", self.ports.vault.keyed_hash(id, "reward_token"))
    }

    /// Draws a reward for the cardholder and stores it with its event;
    /// `false` when the catalogue has none to give, or `earned_by` already
    /// earned one this period.
    pub(crate) async fn give(
        &self,
        (account, mode, cardholder): (&AccountId, Mode, &CardholderId),
        earned_by: Option<(Rule, String)>,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let catalogue = self.ports.rewards.catalogue().await?;
        let Some(reward) = catalogue.draw(self.ports.ids.fraction(), now) else {
            tracing::warn!(%account, "the rewards catalogue has nothing to give");
            return Ok(false);
        };
        let id = format!("rwd_{}", self.ports.ids.unique());
        let payload = RewardAssigned {
            cardholder_id: cardholder.to_string(),
            reward_type: reward.reward_type(),
            reward_id: id.clone(),
            reward_description: reward.description().to_string(),
            issuing_app_id: account.to_string(),
            livemode: mode.is_live(),
        };
        let event = self.new_event(account, mode, Event::RewardAssigned(payload)).await?;
        let delivery = self.delivery_job(&EventId::new(event.id.as_str()));
        let record = RewardRecord {
            id,
            account_id: account.clone(),
            mode,
            cardholder_id: cardholder.clone(),
            reward,
            earned_at: now,
            claimed_at: None,
        };
        let reward = NewReward { record, earned_by };
        self.ports.rewards.award(reward, event, delivery).await
    }
}

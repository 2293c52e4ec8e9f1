//! `GET`/`PUT /cards/spending_controls?card_id=` and `GET`/`PUT
//! /spending_controls`: a card's own spending controls, and the account's
//! for every card of the key's mode. A PUT replaces them whole; the debit's
//! batch applies both ([`domain::cards::spending_controls`]).

use super::CardError;
use crate::{App, Caller};
use domain::cards::spending_controls::{Category, Channel, Country, Limits, SpendingControls, Spent, WindowKeys};
use domain::ids::CardId;
use domain::{Amount, InvalidInput};
use ports::StoreError;

/// Controls as sent: every field optional (absent: none of that control).
#[derive(Debug, Clone, Default)]
pub struct ControlsInput {
    pub allowed_categories: Option<Vec<String>>,
    pub blocked_categories: Option<Vec<String>>,
    pub allowed_channels: Option<Vec<String>>,
    pub allowed_countries: Option<Vec<String>>,
    /// USD cents, as amounts everywhere.
    pub per_authorization_limit: Option<String>,
    pub daily_limit: Option<String>,
    pub weekly_limit: Option<String>,
    pub monthly_limit: Option<String>,
    pub lifetime_limit: Option<String>,
}

/// A card's own controls and its approved spend in each window now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardControlsView {
    pub controls: SpendingControls,
    pub spent: Spent,
}

/// Each entry of `list` (sent as `field`) parsed by `parse`, which is
/// told the entry's field (`field[i]`).
fn each<T>(
    field: &str,
    list: Option<Vec<String>>,
    parse: impl Fn(&str, &str) -> Result<T, InvalidInput>,
) -> Result<Option<Vec<T>>, InvalidInput> {
    list.map(|l| {
        l.iter()
            .enumerate()
            .map(|(i, entry)| parse(&format!("{field}[{i}]"), entry))
            .collect()
    })
    .transpose()
}

fn limit(field: &str, text: Option<String>) -> Result<Option<Amount>, InvalidInput> {
    text.map(|t| Amount::parse_positive(field, &t)).transpose()
}

impl App {
    /// Controls as sent, checked: categories are 4-digit codes or the
    /// catalogue's groups (in any case), channels and countries as named.
    fn parse_controls(&self, input: ControlsInput) -> Result<SpendingControls, InvalidInput> {
        let groups = self.ports.merchants.groups();
        let category = |field: &str, text: &str| match Category::of(text) {
            Category::Group(name) => groups
                .iter()
                .find(|g| g.eq_ignore_ascii_case(&name))
                .map(|g| Category::Group(g.clone()))
                .ok_or_else(|| {
                    let rule = format!(
                        "must be a merchant category code (4 digits, ISO 18245) or a merchant group: {}",
                        groups.join(", ")
                    );
                    InvalidInput::new(field, rule)
                }),
            code => Ok(code),
        };
        SpendingControls {
            allowed_categories: each("allowed_categories", input.allowed_categories, category)?,
            blocked_categories: each("blocked_categories", input.blocked_categories, category)?.unwrap_or_default(),
            allowed_channels: each("allowed_channels", input.allowed_channels, Channel::parse)?,
            allowed_countries: each("allowed_countries", input.allowed_countries, Country::parse_assigned)?,
            limits: Limits {
                per_authorization: limit("per_authorization_limit", input.per_authorization_limit)?,
                daily: limit("daily_limit", input.daily_limit)?,
                weekly: limit("weekly_limit", input.weekly_limit)?,
                monthly: limit("monthly_limit", input.monthly_limit)?,
                lifetime: limit("lifetime_limit", input.lifetime_limit)?,
            },
        }
        .validate()
    }

    /// The account's controls for its cards of the caller's mode.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn account_spending_controls(&self, caller: &Caller) -> Result<SpendingControls, StoreError> {
        let stored = self
            .ports
            .spending_controls
            .account_controls(&caller.account_id, caller.mode)
            .await?;
        Ok(stored.unwrap_or_default())
    }

    /// Replaces the account's controls of the caller's mode.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn set_account_spending_controls(
        &self,
        caller: &Caller,
        input: ControlsInput,
    ) -> Result<SpendingControls, CardError> {
        let controls = self.parse_controls(input)?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let kept = (controls != SpendingControls::default()).then(|| controls.clone());
        self.ports
            .spending_controls
            .set_account_controls(&caller.account_id, caller.mode, kept, now)
            .await?;
        Ok(controls)
    }

    /// A card's own controls, and its spend in each window of the mode's
    /// clock now.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn card_spending_controls(&self, caller: &Caller, card: &CardId) -> Result<CardControlsView, CardError> {
        let stored = self
            .ports
            .spending_controls
            .card_controls(&caller.account_id, caller.mode, card)
            .await?
            .ok_or(CardError::CardNotFound)?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        Ok(CardControlsView {
            controls: stored.controls.unwrap_or_default(),
            spent: stored.spend.at(WindowKeys::of(now)).1,
        })
    }

    /// Replaces a card's own controls.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn set_card_spending_controls(
        &self,
        caller: &Caller,
        card: &CardId,
        input: ControlsInput,
    ) -> Result<CardControlsView, CardError> {
        let controls = self.parse_controls(input)?;
        let kept = (controls != SpendingControls::default()).then_some(controls);
        let set = self
            .ports
            .spending_controls
            .set_card_controls(&caller.account_id, caller.mode, card, kept)
            .await?;
        if !set {
            return Err(CardError::CardNotFound);
        }
        self.card_spending_controls(caller, card).await
    }
}

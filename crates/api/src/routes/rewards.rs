//! Rewards: the sandbox's `assign_reward`, a cardholder's rewards, and the
//! account's reward rules.

use super::answers::NoSuchCardholder;
use crate::amount_text::AmountText;
use crate::envelope::{Envelope, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed, Query};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use app::rewards::{RewardView, RulesChange};
use domain::Timestamp;
use domain::rewards::rules::RewardRules;
use domain::rewards::{PromoCode, Reward};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, ToSchema)]
pub struct AssignRewardBody {
    /// Required: a missing one is refused naming it.
    #[schema(value_type = String, min_length = 1)]
    cardholder_id: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Empty {}

/// Sandbox only: give the cardholder a random reward (a deal or a promo
/// code) of the catalogue; `reward_assigned_event.successful` follows.
/// Callable any number of times.
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/reward/assign_reward",
    tag = "sandbox",
    security(("token" = [])),
    request_body = AssignRewardBody,
    responses(
        (status = 201, description = "Assigned", body = Envelope<Empty>),
        (status = 400, description = "No such cardholder, or no reward in the catalogue to give", body = ErrorBody),
    )
)]
pub async fn assign_reward(
    Keyed(app, caller): Keyed,
    Json(body): Json<AssignRewardBody>,
) -> Result<HttpResponse, ApiError> {
    app.assign_reward(&caller.0, &body.cardholder_id).await?;
    Ok(success(StatusCode::CREATED, "Reward assigned successfully", Empty {}))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RewardsQuery {
    cardholder_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct PromoCodeView {
    reward_id: String,
    /// `PROMO_CODE`.
    reward_type: &'static str,
    coupon_code: String,
    reward_description: String,
    description: String,
    merchant: String,
    /// Unix seconds.
    created_on: i64,
    /// Unix seconds: the end of its last day, GMT.
    valid_till: i64,
    /// dd/mm/yyyy.
    valid_till_date: String,
    /// Percent.
    success_record: u8,
    is_available: bool,
    upvotes: u32,
    downvotes: u32,
    product_link: String,
}

impl PromoCodeView {
    fn of(id: &str, code: &PromoCode, created_on: Timestamp, now: Timestamp) -> Self {
        Self {
            reward_id: id.to_string(),
            reward_type: "PROMO_CODE",
            coupon_code: code.coupon_code.clone(),
            reward_description: code.description.clone(),
            description: code.description.clone(),
            merchant: code.merchant.clone(),
            created_on: created_on.unix(),
            valid_till: code.valid_till().unix(),
            valid_till_date: code.valid_till_date(),
            success_record: code.success_record,
            is_available: code.is_available(now),
            upvotes: code.upvotes,
            downvotes: code.downvotes,
            product_link: code.product_link.clone(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DealView {
    reward_id: String,
    /// `DEAL`.
    reward_type: &'static str,
    description: String,
    merchant: String,
    /// Unix seconds.
    created_on: i64,
}

/// One of a cardholder's rewards: its type's object under a key named
/// after the type.
#[derive(Serialize, ToSchema)]
pub struct RewardEntry {
    reward_id: String,
    /// `PROMO_CODE` or `DEAL`.
    reward_type: &'static str,
    /// True for a promo code (given, or a claimed deal); false for a deal
    /// not claimed yet.
    has_been_claimed: bool,
    /// Unix seconds.
    reward_earned: i64,
    #[serde(rename = "PROMO_CODE", skip_serializing_if = "Option::is_none")]
    promo_code: Option<PromoCodeView>,
    #[serde(rename = "DEAL", skip_serializing_if = "Option::is_none")]
    deal: Option<DealView>,
    /// An unclaimed deal's: what the deal page takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    reward_token: Option<String>,
}

impl From<RewardView> for RewardEntry {
    fn from(view: RewardView) -> Self {
        let r = &view.record;
        let (promo_code, deal) = match &r.reward {
            Reward::PromoCode(code) => (Some(PromoCodeView::of(&r.id, code, r.earned_at, view.now)), None),
            Reward::Deal(d) => {
                let deal = DealView {
                    reward_id: r.id.clone(),
                    reward_type: "DEAL",
                    description: d.description.clone(),
                    merchant: d.merchant.clone(),
                    created_on: r.earned_at.unix(),
                };
                (None, Some(deal))
            }
        };
        RewardEntry {
            reward_id: r.id.clone(),
            reward_type: r.reward.reward_type(),
            // A promo code is usable at once, whether given or claimed.
            has_been_claimed: matches!(r.reward, Reward::PromoCode(_)),
            reward_earned: r.earned_at.unix(),
            promo_code,
            deal,
            reward_token: view.reward_token,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct Rewards {
    rewards: Vec<RewardEntry>,
}

/// A cardholder's rewards, oldest first. Unclaimed deals carry the
/// `reward_token` their claim page takes.
#[utoipa::path(
    get,
    path = "/v1/issuing/reward/get_cardholder_rewards",
    tag = "rewards",
    security(("token" = [])),
    params(RewardsQuery),
    responses(
        (status = 200, description = "The rewards", body = Envelope<Rewards>),
        NoSuchCardholder,
    )
)]
pub async fn get_cardholder_rewards(
    Keyed(app, caller): Keyed,
    Query(query): Query<RewardsQuery>,
) -> Result<HttpResponse, ApiError> {
    let views = app.get_cardholder_rewards(&caller.0, &query.cardholder_id).await?;
    let rewards = views.into_iter().map(RewardEntry::from).collect();
    Ok(success(
        StatusCode::OK,
        "Rewards fetched successfully",
        Rewards { rewards },
    ))
}

#[derive(Serialize, ToSchema)]
pub struct RulesView {
    /// Whether rules earn rewards: switched on by the operator.
    enabled: bool,
    /// A calendar month's card spending, USD cents, must be greater than this.
    #[schema(example = "9900")]
    spend_threshold: String,
    /// This many approved debits in a calendar month earn a reward.
    monthly_debits: u32,
    /// This many days without an approved debit earn a reward.
    inactivity_days: u32,
}

impl From<RewardRules> for RulesView {
    fn from(rules: RewardRules) -> Self {
        RulesView {
            enabled: rules.enabled,
            spend_threshold: rules.spend_threshold.to_string(),
            monthly_debits: rules.monthly_debits,
            inactivity_days: rules.inactivity_days,
        }
    }
}

/// The rules to change, each optional. `enabled` is the operator's
/// (`issuing accounts update --rewards`): sent here, it is refused.
#[derive(Deserialize, ToSchema)]
pub struct RulesBody {
    /// Refused when sent (the operator switches rewards on and off), so not
    /// in the document.
    #[schema(ignore)]
    enabled: Option<bool>,
    spend_threshold: Option<AmountText>,
    #[serde(default, deserialize_with = "crate::whole_number::optional")]
    monthly_debits: Option<u32>,
    #[serde(default, deserialize_with = "crate::whole_number::optional")]
    inactivity_days: Option<u32>,
}

/// The account's reward rules in the key's mode.
#[utoipa::path(
    get,
    path = "/v1/issuing/reward/rules",
    operation_id = "get_reward_rules",
    tag = "rewards",
    security(("token" = [])),
    responses(
        (status = 200, description = "The rules", body = Envelope<RulesView>),
    )
)]
pub async fn get_rules(Keyed(app, caller): Keyed) -> Result<HttpResponse, ApiError> {
    let rules = app.reward_rules(&caller.0).await.map_err(app::RequestError::from)?;
    Ok(success(
        StatusCode::OK,
        "Reward rules fetched successfully",
        RulesView::from(rules),
    ))
}

/// Changes the account's reward rules in the key's mode: each field given
/// replaces the current one (`spend_threshold` at most 10^15,
/// `monthly_debits` 1 to 10,000, `inactivity_days` 1 to 366).
#[utoipa::path(
    patch,
    path = "/v1/issuing/reward/rules",
    operation_id = "update_reward_rules",
    tag = "rewards",
    security(("token" = [])),
    request_body = RulesBody,
    responses(
        (status = 200, description = "The rules now", body = Envelope<RulesView>),
        (status = 400, description = "A field breaks its rule", body = ErrorBody),
    )
)]
pub async fn update_rules(Keyed(app, caller): Keyed, Json(body): Json<RulesBody>) -> Result<HttpResponse, ApiError> {
    let change = RulesChange {
        enabled: body.enabled,
        spend_threshold: AmountText::into_text(body.spend_threshold),
        monthly_debits: body.monthly_debits,
        inactivity_days: body.inactivity_days,
    };
    let rules = app.update_reward_rules(&caller.0, change).await?;
    Ok(success(
        StatusCode::OK,
        "Reward rules updated successfully",
        RulesView::from(rules),
    ))
}

//! Rewards a cardholder earns: a promo code, usable at once, or a deal,
//! which the cardholder claims on the hosted page by choosing one of its
//! products, and which then becomes that product's promo code. A reward
//! keeps what it was when it was earned (the catalogue may change).

pub mod catalogue;
pub mod rules;

pub use catalogue::{Catalogue, Deal, Product, PromoCode};
use serde::{Deserialize, Serialize};

/// What a reward entry holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reward_type", content = "offer")]
pub enum Reward {
    /// A coupon code, usable immediately (`has_been_claimed` true when it
    /// came from a deal).
    #[serde(rename = "PROMO_CODE")]
    PromoCode(PromoCode),
    /// Unclaimed: the cardholder may pick one of the deal's products.
    #[serde(rename = "DEAL")]
    Deal(Deal),
}

/// A claim the reward's state does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimRefused {
    #[error("reward_token: this reward is already a promo code")]
    AlreadyClaimed,
    #[error("product: not one of this deal's products")]
    NotOffered,
}

impl Reward {
    /// The contract's `reward_type`.
    pub fn reward_type(&self) -> &'static str {
        match self {
            Reward::PromoCode(_) => "PROMO_CODE",
            Reward::Deal(_) => "DEAL",
        }
    }

    pub fn id(&self) -> &str {
        match self {
            Reward::PromoCode(p) => &p.id,
            Reward::Deal(d) => &d.id,
        }
    }

    pub fn description(&self) -> &str {
        match self {
            Reward::PromoCode(p) => &p.description,
            Reward::Deal(d) => &d.description,
        }
    }

    /// The one transition: an unclaimed deal becomes the promo code of the
    /// product chosen, if the deal offers it.
    pub fn claim(&self, product: &str) -> Result<Reward, ClaimRefused> {
        match self {
            Reward::PromoCode(_) => Err(ClaimRefused::AlreadyClaimed),
            Reward::Deal(deal) => deal
                .products
                .iter()
                .find(|p| p.name == product)
                .map(|p| Reward::PromoCode(p.promo_code.clone()))
                .ok_or(ClaimRefused::NotOffered),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deal_is_claimed_once_into_the_promo_code_of_an_offered_product() {
        let catalogue = catalogue::tests::example();
        let deal = Reward::Deal(catalogue.deals[0].clone());
        let product = &catalogue.deals[0].products[0];
        assert_eq!(deal.reward_type(), "DEAL");
        assert_eq!(deal.claim("not a product"), Err(ClaimRefused::NotOffered));
        let claimed = deal.claim(&product.name).unwrap();
        assert_eq!(claimed, Reward::PromoCode(product.promo_code.clone()));
        assert_eq!(claimed.reward_type(), "PROMO_CODE");
        assert_eq!(claimed.claim(&product.name), Err(ClaimRefused::AlreadyClaimed));
    }

    #[test]
    fn a_reward_is_stored_as_its_type_and_offer() {
        let deal = Reward::Deal(catalogue::tests::example().deals[0].clone());
        let text = serde_json::to_string(&deal).unwrap();
        assert!(text.starts_with(r#"{"reward_type":"DEAL","offer":{"#), "{text}");
        assert_eq!(serde_json::from_str::<Reward>(&text).unwrap(), deal);
    }
}

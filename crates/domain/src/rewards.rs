//! Rewards a cardholder earns: a promo code, usable at once, or a deal,
//! which the cardholder claims on the hosted page by choosing one of its
//! products, and which then becomes that product's promo code. The state
//! machine only; the catalogue, the rules that award rewards and the pages
//! are built on it.

/// What a reward entry holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reward {
    /// A coupon code, usable immediately (`has_been_claimed` true).
    PromoCode { promo_code_id: String },
    /// Unclaimed: the cardholder may pick one of the deal's products.
    Deal { deal_id: String },
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
            Reward::PromoCode { .. } => "PROMO_CODE",
            Reward::Deal { .. } => "DEAL",
        }
    }

    pub fn has_been_claimed(&self) -> bool {
        matches!(self, Reward::PromoCode { .. })
    }

    /// The one transition: an unclaimed deal becomes the promo code of the
    /// product chosen, if the deal offers it (`offers` gives the promo code
    /// of each of the deal's products).
    pub fn claim(&self, product: &str, offers: impl Fn(&str) -> Option<String>) -> Result<Reward, ClaimRefused> {
        match self {
            Reward::PromoCode { .. } => Err(ClaimRefused::AlreadyClaimed),
            Reward::Deal { .. } => offers(product)
                .map(|promo_code_id| Reward::PromoCode { promo_code_id })
                .ok_or(ClaimRefused::NotOffered),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offers(product: &str) -> Option<String> {
        (product == "headphones").then(|| "promo_h".to_string())
    }

    #[test]
    fn a_deal_is_claimed_once_into_the_promo_code_of_an_offered_product() {
        let deal = Reward::Deal {
            deal_id: "deal_1".into(),
        };
        assert!(!deal.has_been_claimed());
        assert_eq!(deal.claim("laptop", offers), Err(ClaimRefused::NotOffered));
        let claimed = deal.claim("headphones", offers).unwrap();
        assert_eq!(
            (claimed.reward_type(), claimed.has_been_claimed()),
            ("PROMO_CODE", true)
        );
        assert_eq!(claimed.claim("headphones", offers), Err(ClaimRefused::AlreadyClaimed));
    }
}

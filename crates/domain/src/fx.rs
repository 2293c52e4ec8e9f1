//! Foreign-exchange rates between the two wallet currencies.

use crate::Amount;

/// Kobo per 1 USD in each direction: `ngn_usd` is what buying one USD
/// costs in NGN, `usd_ngn` what selling one USD gives in NGN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FxRates {
    pub ngn_usd: Amount,
    pub usd_ngn: Amount,
}

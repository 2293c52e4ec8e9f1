//! Identifiers. Ids are opaque strings with a type prefix on the wire; the
//! newtypes keep an account id from being passed where a card id belongs.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            /// Wraps an id read from storage or from a request.
            pub fn new(value: impl Into<String>) -> Self {
                Self(value.into())
            }

            /// Builds a fresh id from a random unique suffix.
            pub fn with_suffix(unique: &str) -> Self {
                Self(format!("{}{}", $prefix, unique))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// A client organisation using the service.
    AccountId,
    "acct_"
);
id_type!(
    /// A balanced journal entry in the ledger.
    EntryId,
    "le_"
);

id_type!(
    /// A registered end user.
    CardholderId,
    "ch_"
);
id_type!(
    /// A USD card.
    CardId,
    "card_"
);
id_type!(
    /// A movement of money onto or off a card, settled by a job.
    TransferId,
    "ctr_"
);
id_type!(
    /// A webhook event.
    EventId,
    "evt_"
);
id_type!(
    /// A background job.
    JobId,
    "job_"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_ids_carry_their_prefix() {
        assert_eq!(AccountId::with_suffix("abc").as_str(), "acct_abc");
        assert_eq!(EntryId::with_suffix("x").to_string(), "le_x");
    }
}

//! Pure rules of the card issuing service. No IO, no async, no framework:
//! every type here is valid by construction and every rule is a function.

pub mod api_key;
pub mod cardholders;
pub mod cards;
pub mod console;
pub mod currency;
pub mod error;
pub mod events;
pub mod fx;
pub mod http_url;
pub mod idempotency;
pub mod ids;
pub mod ledger;
pub mod mode;
pub mod money;
pub mod paging;
pub mod rails;
pub mod retry;
pub mod rewards;
pub mod secret;
pub mod text;
pub mod time;

pub use currency::Currency;
pub use error::{DomainError, ErrorKind, InvalidInput, amount_text, required};
pub use mode::Mode;
pub use money::Amount;
pub use secret::Secret;
pub use time::Timestamp;

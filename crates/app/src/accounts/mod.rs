//! Accounts and their keys: creation (CLI), the demo account, and
//! authentication of every request.

mod api_keys;
mod authenticate;
mod create_account;
mod demo_account;
mod update_account;

pub use api_keys::{MAX_OVERLAP_SECS, RolledKey};
pub use authenticate::AuthenticateError;
pub use create_account::{AccountDetails, CreatedAccount};
pub use demo_account::DemoAccountError;
pub use update_account::AccountUpdate;

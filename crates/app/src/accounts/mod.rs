//! Accounts and their keys: creation (CLI), the demo account, and
//! authentication of every request.

mod authenticate;
mod create_account;
mod demo_account;
mod keys;
mod update_account;

pub use authenticate::AuthenticateError;
pub use create_account::{AccountDetails, CreatedAccount};
pub use demo_account::DemoAccountError;
pub use keys::{MAX_OVERLAP_SECS, RolledKey, RolledWebhookSecret};
pub use update_account::AccountUpdate;

//! The dashboard's use cases: its users, their one-time links, signing in
//! and out, what each seat may do, and the audit log. The console's
//! screens call these and, for everything else, the same use cases as the
//! API and the CLI.

mod audit;
mod review_images;
mod second_factor;
mod sign_in;
mod users;

pub use audit::Actor;
pub use ports::console::{AccountRow, AuditEntry, User};
pub use review_images::{CaseImage, CaseImageError};
pub use second_factor::NewSecondFactor;
pub use sign_in::{SignInError, SignedIn};
pub use users::{Invited, SetPasswordError};

use domain::InvalidInput;
use domain::console::Refusal;
use ports::StoreError;

/// Why a console action failed.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error(transparent)]
    Request(#[from] crate::RequestError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The length of a session token and of a one-time link's token.
const TOKEN_CHARS: usize = 43;

//! Cardholders: registration with identity verification, the cardholder
//! record, manual review, and the reference data addresses use.

mod manage;
mod regions;
mod register;
mod review;
mod verify;

pub use manage::{CardholderError, CardholderUpdate};
pub use register::RegisterError;
pub use review::ReviewError;
pub use verify::{CallbackApplied, KycCallbackError};

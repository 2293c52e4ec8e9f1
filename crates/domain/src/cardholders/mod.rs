//! Cardholders: who may be issued cards, after identity verification (KYC)
//! in Nigeria, Ghana, Uganda or Kenya.

pub mod country;
pub mod identity;
pub mod kyc;
pub mod registration;

pub use country::Country;
pub use identity::{IdType, Identity};
pub use registration::{Address, Registration};

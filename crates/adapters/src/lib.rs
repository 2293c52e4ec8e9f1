//! Adapters: storage on PostgreSQL and SQLite (one repository code base for
//! both), crypto (AES Everywhere, the master-key vault) and the system
//! clock and randomness.

pub mod card_network;
pub mod connectors;
pub mod crypto;
pub mod db;
pub mod kyc_images;
pub mod kyc_sandbox;
pub mod merchant_catalogue;
mod outbound;
pub mod reference;
pub mod rewards_catalogue;
pub mod system;
#[cfg(any(test, feature = "test-support"))]
pub mod test_db;
pub mod webhook_sender;

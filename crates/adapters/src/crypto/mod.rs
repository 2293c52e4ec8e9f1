pub mod aes_everywhere;
pub mod passwords;
pub mod signature;
pub mod totp;
pub mod vault;

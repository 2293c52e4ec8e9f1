pub mod aes_everywhere;
pub mod signature;
pub mod vault;

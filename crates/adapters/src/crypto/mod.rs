pub mod aes_everywhere;
pub mod vault;

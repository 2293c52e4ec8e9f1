use domain::Secret;

#[derive(Debug, thiserror::Error)]
#[error("the value is not AES Everywhere ciphertext made with this key")]
pub struct UndecryptableField;

/// Request fields the client encrypts with its secret key (`pin`,
/// `card_pin`): AES Everywhere, AES-256-CBC keyed by a passphrase.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait FieldCipher: Send + Sync {
    fn decrypt(&self, ciphertext: &str, passphrase: &Secret<String>) -> Result<Secret<String>, UndecryptableField>;
}

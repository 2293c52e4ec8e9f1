//! Secrets at rest, sealed with AES-256-GCM under the server's master key
//! (`ISSUING_MASTER_KEY`, 32 bytes as 64 hex characters).

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use domain::Secret;
use ports::vault::{Vault, VaultError};
use rand::RngCore;
use sha2::{Digest, Sha256};

const NONCE_LEN: usize = 12;

#[derive(Debug, thiserror::Error)]
#[error("the master key must be 64 hexadecimal characters (32 bytes)")]
pub struct InvalidMasterKey;

pub struct MasterKeyVault {
    cipher: Aes256Gcm,
}

impl MasterKeyVault {
    pub fn from_hex(hex_key: &Secret<String>) -> Result<Self, InvalidMasterKey> {
        let bytes = hex::decode(hex_key.expose().trim()).map_err(|_| InvalidMasterKey)?;
        let cipher = Aes256Gcm::new_from_slice(&bytes).map_err(|_| InvalidMasterKey)?;
        Ok(Self { cipher })
    }

    /// A fresh random master key, hex encoded.
    pub fn generate_hex() -> Secret<String> {
        let mut key = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut key);
        Secret::new(hex::encode(key))
    }
}

impl Vault for MasterKeyVault {
    fn seal(&self, plain: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let ciphertext = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), plain)
            .expect("AES-GCM encryption of an in-memory buffer cannot fail");
        [nonce.as_slice(), &ciphertext].concat()
    }

    fn open(&self, sealed: &[u8]) -> Result<Secret<Vec<u8>>, VaultError> {
        if sealed.len() < NONCE_LEN {
            return Err(VaultError);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        self.cipher
            .decrypt(Nonce::from_slice(nonce), ciphertext)
            .map(Secret::new)
            .map_err(|_| VaultError)
    }

    fn lookup_hash(&self, secret: &str) -> String {
        hex::encode(Sha256::digest(secret.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> MasterKeyVault {
        MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap()
    }

    #[test]
    fn seals_and_opens() {
        let v = vault();
        let sealed = v.seal(b"sk_test_secret");
        assert!(!sealed.windows(4).any(|w| w == b"sk_t"));
        assert_eq!(v.open(&sealed).unwrap().expose(), b"sk_test_secret");
    }

    #[test]
    fn another_key_or_tampering_cannot_open() {
        let sealed = vault().seal(b"x");
        assert!(vault().open(&sealed).is_err());
        let v = vault();
        let mut sealed = v.seal(b"x");
        sealed[NONCE_LEN] ^= 1;
        assert!(v.open(&sealed).is_err());
        assert!(v.open(b"short").is_err());
    }

    #[test]
    fn rejects_bad_master_keys() {
        for bad in ["", "abc", &"zz".repeat(32), &"ab".repeat(31)] {
            assert!(
                MasterKeyVault::from_hex(&Secret::new(bad.to_string())).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn lookup_hash_is_sha256_hex() {
        assert_eq!(
            vault().lookup_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

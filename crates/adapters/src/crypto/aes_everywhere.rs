//! AES Everywhere: the passphrase-based AES-256 scheme that client
//! libraries in Python, JavaScript, PHP and Go implement, used for the PIN
//! fields. OpenSSL `enc` format: base64 of `Salted__` + 8-byte salt +
//! AES-256-CBC/PKCS#7 ciphertext, key and IV from `EVP_BytesToKey` with
//! MD5 and one iteration.

use aes::Aes256;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use domain::Secret;
use md5::{Digest, Md5};
use ports::field_cipher::{FieldCipher, UndecryptableField};
use rand::RngCore;

const MAGIC: &[u8; 8] = b"Salted__";
const SALT_LEN: usize = 8;

/// The only decryption error: garbage, truncated input and a wrong
/// passphrase are indistinguishable on purpose.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the value could not be decrypted with the account's secret key")]
pub struct DecryptError;

/// OpenSSL's `EVP_BytesToKey` with MD5, one iteration, for a 32-byte key
/// and a 16-byte IV. Written here because no maintained crate provides it
/// (the crate the name suggests does not exist); it is this short loop.
fn evp_bytes_to_key(passphrase: &[u8], salt: &[u8]) -> ([u8; 32], [u8; 16]) {
    let mut derived = Vec::with_capacity(48);
    let mut block: Vec<u8> = Vec::new();
    while derived.len() < 48 {
        let mut md5 = Md5::new();
        md5.update(&block);
        md5.update(passphrase);
        md5.update(salt);
        block = md5.finalize().to_vec();
        derived.extend_from_slice(&block);
    }
    let mut key = [0u8; 32];
    let mut iv = [0u8; 16];
    key.copy_from_slice(&derived[..32]);
    iv.copy_from_slice(&derived[32..48]);
    (key, iv)
}

pub fn encrypt(plain: &[u8], passphrase: &Secret<String>) -> String {
    let mut salt = [0u8; SALT_LEN];
    rand::rngs::OsRng.fill_bytes(&mut salt);
    encrypt_with_salt(plain, passphrase, salt)
}

fn encrypt_with_salt(plain: &[u8], passphrase: &Secret<String>, salt: [u8; SALT_LEN]) -> String {
    let (key, iv) = evp_bytes_to_key(passphrase.expose().as_bytes(), &salt);
    let ciphertext = cbc::Encryptor::<Aes256>::new(&key.into(), &iv.into()).encrypt_padded_vec_mut::<Pkcs7>(plain);
    let mut out = Vec::with_capacity(MAGIC.len() + SALT_LEN + ciphertext.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&salt);
    out.extend_from_slice(&ciphertext);
    BASE64.encode(out)
}

pub fn decrypt(encoded: &str, passphrase: &Secret<String>) -> Result<Secret<Vec<u8>>, DecryptError> {
    let raw = BASE64.decode(encoded.trim()).map_err(|_| DecryptError)?;
    let rest = raw.strip_prefix(MAGIC.as_slice()).ok_or(DecryptError)?;
    if rest.len() <= SALT_LEN {
        return Err(DecryptError);
    }
    let (salt, ciphertext) = rest.split_at(SALT_LEN);
    let (key, iv) = evp_bytes_to_key(passphrase.expose().as_bytes(), salt);
    cbc::Decryptor::<Aes256>::new(&key.into(), &iv.into())
        .decrypt_padded_vec_mut::<Pkcs7>(ciphertext)
        .map(Secret::new)
        .map_err(|_| DecryptError)
}

/// The [`FieldCipher`] port over this scheme: PIN fields decrypted with
/// the caller's secret key.
pub struct AesEverywhere;

impl FieldCipher for AesEverywhere {
    fn decrypt(&self, ciphertext: &str, passphrase: &Secret<String>) -> Result<Secret<String>, UndecryptableField> {
        let plain = decrypt(ciphertext, passphrase).map_err(|_| UndecryptableField)?;
        String::from_utf8(plain.expose().clone())
            .map(Secret::new)
            .map_err(|_| UndecryptableField)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pass(p: &str) -> Secret<String> {
        Secret::new(p.to_string())
    }

    fn clear(encoded: &str, p: &str) -> String {
        String::from_utf8(decrypt(encoded, &pass(p)).unwrap().expose().clone()).unwrap()
    }

    #[test]
    fn decrypts_the_reference_vectors() {
        assert_eq!(clear("U2FsdGVkX1+Z9xSlpZGuO2zo51XUtsCGZPs8bKQ/jYg=", "pass"), "test");
        assert_eq!(
            clear(
                "U2FsdGVkX18Kp+T3M9VajicIO9WGQQuAlMscLGiTnVyHRj2jHObWshzJXQ6RpJtW",
                "pass"
            ),
            "Data 😄 текст"
        );
    }

    #[test]
    fn encrypting_with_the_reference_salt_gives_the_reference_ciphertext() {
        let raw = BASE64.decode("U2FsdGVkX1+Z9xSlpZGuO2zo51XUtsCGZPs8bKQ/jYg=").unwrap();
        let salt: [u8; 8] = raw[8..16].try_into().unwrap();
        assert_eq!(
            encrypt_with_salt(b"test", &pass("pass"), salt),
            "U2FsdGVkX1+Z9xSlpZGuO2zo51XUtsCGZPs8bKQ/jYg="
        );
    }

    #[test]
    fn garbage_truncated_and_wrong_key_give_one_generic_error() {
        let good = encrypt(b"1234", &pass("sk_test_key"));
        let truncated = &good[..good.len() - 8];
        let cases = ["", "not base64!", "dGVzdA==", "U2FsdGVkX18=", truncated];
        for bad in cases {
            assert_eq!(decrypt(bad, &pass("sk_test_key")), Err(DecryptError), "{bad:?}");
        }
        // A wrong passphrase either fails the padding check or yields other
        // bytes; it never yields the PIN.
        if let Ok(other) = decrypt(&good, &pass("sk_test_other")) {
            assert_ne!(other.expose(), b"1234");
        }
    }

    proptest! {
        #[test]
        fn round_trips_any_bytes(plain in proptest::collection::vec(any::<u8>(), 0..300), p in "[a-zA-Z0-9_]{1,64}") {
            let encoded = encrypt(&plain, &pass(&p));
            let decrypted = decrypt(&encoded, &pass(&p)).unwrap();
            prop_assert_eq!(decrypted.expose(), &plain);
        }

        #[test]
        fn never_panics_on_arbitrary_input(s in ".{0,200}") {
            let _ = decrypt(&s, &pass("pass"));
        }
    }
}

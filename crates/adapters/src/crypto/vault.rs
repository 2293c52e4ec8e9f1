//! Secrets at rest, sealed with AES-256-GCM under the server's master key
//! (32 bytes as 64 hex characters); PINs under a key derived from it for
//! them alone. Each value is sealed with its place as associated data, and
//! starts with a format tag and the id of the key that sealed it:
//! `isv1 | key id (4) | nonce (12) | ciphertext`.
//!
//! Card details that leave the service sealed (the base address) are
//! sealed again under a transport key, made at random when the process
//! starts and held only in its memory: `itv1 | key id | nonce | ciphertext`.
//! The master key opens none of them, so copies clients keep are not
//! opened by a leaked master key, and each restart rotates the key.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use domain::Secret;
use hmac::{Hmac, Mac};
use ports::vault::{Place, Vault, VaultError};
use rand::RngCore;
use sha2::{Digest, Sha256};

const NONCE_LEN: usize = 12;
const TAG: &[u8] = b"isv1";
const TRANSPORT_TAG: &[u8] = b"itv1";
const KEY_ID_LEN: usize = 4;

#[derive(Debug, thiserror::Error)]
#[error("the master key must be 64 hexadecimal characters (32 bytes)")]
pub struct InvalidMasterKey;

/// One AES-256-GCM key and its id.
struct Key {
    cipher: Aes256Gcm,
    id: [u8; KEY_ID_LEN],
}

impl Key {
    fn new(bytes: &[u8]) -> Result<Self, InvalidMasterKey> {
        let cipher = Aes256Gcm::new_from_slice(bytes).map_err(|_| InvalidMasterKey)?;
        let digest = Sha256::new()
            .chain_update(b"issuing key id")
            .chain_update(bytes)
            .finalize();
        let mut id = [0u8; KEY_ID_LEN];
        id.copy_from_slice(&digest[..KEY_ID_LEN]);
        Ok(Self { cipher, id })
    }

    fn random() -> Self {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self::new(&bytes).expect("32 bytes make an AES-256 key")
    }

    /// `tag | key id | nonce | ciphertext`, with `place` as associated data.
    fn seal(&self, tag: &[u8], plain: &[u8], place: &Place) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let aad = place.associated_data();
        let ciphertext = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), Payload { msg: plain, aad: &aad })
            .expect("AES-GCM encryption of an in-memory buffer cannot fail");
        [tag, &self.id, &nonce, &ciphertext].concat()
    }

    fn open(&self, tag: &[u8], sealed: &[u8], place: &Place) -> Result<Secret<Vec<u8>>, VaultError> {
        let rest = sealed.strip_prefix(tag).ok_or(VaultError)?;
        let rest = rest.strip_prefix(self.id.as_slice()).ok_or(VaultError)?;
        if rest.len() < NONCE_LEN {
            return Err(VaultError);
        }
        let (nonce, ciphertext) = rest.split_at(NONCE_LEN);
        let aad = place.associated_data();
        self.cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: &aad,
                },
            )
            .map(Secret::new)
            .map_err(|_| VaultError)
    }
}

/// A master key and the keys derived from it.
struct MasterKeys {
    master: Key,
    /// Derived from the master key (HMAC-SHA256 with a label), for PINs.
    pin: Key,
    /// Derived from the master key: the key of keyed hashes, until the
    /// database stores one of its own (see [`MasterKeyVault::use_hash_key`]).
    derived_hash_key: [u8; 32],
}

impl MasterKeys {
    fn from_hex(hex_key: &Secret<String>) -> Result<Self, InvalidMasterKey> {
        let bytes = hex::decode(hex_key.expose().trim()).map_err(|_| InvalidMasterKey)?;
        let derive = |label: &[u8]| -> [u8; 32] { hmac(&bytes, &[label]) };
        Ok(Self {
            master: Key::new(&bytes)?,
            pin: Key::new(&derive(b"issuing pin key v1"))?,
            derived_hash_key: derive(b"issuing hash key v1"),
        })
    }

    fn key_for(&self, place: &Place) -> &Key {
        if place.field.is_pin() { &self.pin } else { &self.master }
    }
}

pub struct MasterKeyVault {
    current: MasterKeys,
    /// The key being rotated away from: it opens what it sealed, and
    /// seals nothing.
    previous: Option<MasterKeys>,
    /// Random, this process's only, for what leaves it sealed.
    transport: Key,
    /// For keyed hashes of short secrets (3-D Secure OTPs, reward links,
    /// page sessions): it outlives master keys, so links handed out stay
    /// valid through a rotation.
    hash_key: [u8; 32],
}

impl MasterKeyVault {
    pub fn from_hex(hex_key: &Secret<String>) -> Result<Self, InvalidMasterKey> {
        let current = MasterKeys::from_hex(hex_key)?;
        Ok(Self {
            hash_key: current.derived_hash_key,
            current,
            previous: None,
            transport: Key::random(),
        })
    }

    /// The same vault, also opening what `previous_hex` sealed: for a
    /// rotation of the master key, until every value is sealed again.
    pub fn with_previous(mut self, previous_hex: &Secret<String>) -> Result<Self, InvalidMasterKey> {
        self.previous = Some(MasterKeys::from_hex(previous_hex)?);
        Ok(self)
    }

    /// Whether `sealed` was sealed under the previous master key (or its
    /// PIN key), and so must be sealed again.
    pub fn sealed_under_previous(&self, sealed: &[u8]) -> bool {
        let id = sealed.strip_prefix(TAG).and_then(|rest| rest.get(..KEY_ID_LEN));
        self.previous
            .as_ref()
            .zip(id)
            .is_some_and(|(keys, id)| id == keys.master.id || id == keys.pin.id)
    }

    /// The keyed-hash key the database keeps (32 bytes once opened), used
    /// from now on in place of the derived one.
    pub fn use_hash_key(&mut self, key: &[u8]) -> Result<(), InvalidMasterKey> {
        self.hash_key = key.try_into().map_err(|_| InvalidMasterKey)?;
        Ok(())
    }

    /// The keyed-hash key to keep when the database keeps none yet: the
    /// one derived from the key its data is sealed under (the previous
    /// one, while a rotation is under way), so that nothing hashed so far
    /// changes. With it, whether to seal it under the previous key.
    pub fn hash_key_to_keep(&self, data_under_previous: bool) -> ([u8; 32], bool) {
        match (&self.previous, data_under_previous) {
            (Some(previous), true) => (previous.derived_hash_key, true),
            _ => (self.current.derived_hash_key, false),
        }
    }

    /// Seals under the previous key: only the kept hash key, while a
    /// rotation has not reached the database yet.
    pub fn seal_under_previous(&self, plain: &[u8], place: &Place) -> Option<Vec<u8>> {
        let previous = self.previous.as_ref()?;
        Some(previous.key_for(place).seal(TAG, plain, place))
    }

    /// A fresh random master key, hex encoded.
    pub fn generate_hex() -> Secret<String> {
        let mut key = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut key);
        Secret::new(hex::encode(key))
    }

    /// Whether `sealed` is in the format of [`Vault::seal`]; older values
    /// (sealed under the master key with no place) are not.
    pub fn is_current(sealed: &[u8]) -> bool {
        sealed.starts_with(TAG)
    }

    /// Seals as values were sealed before they were bound to their place,
    /// for the tests of sealing them again.
    #[cfg(test)]
    pub(crate) fn seal_unbound(&self, plain: &[u8]) -> Vec<u8> {
        let nonce = [7u8; NONCE_LEN];
        let ciphertext = self
            .current
            .master
            .cipher
            .encrypt(Nonce::from_slice(&nonce), plain)
            .unwrap();
        [nonce.as_slice(), &ciphertext].concat()
    }

    /// Opens a value sealed before values were bound to their place: only
    /// to seal it again, at start, with [`Vault::seal`].
    pub fn open_unbound(&self, sealed: &[u8]) -> Result<Secret<Vec<u8>>, VaultError> {
        if sealed.len() < NONCE_LEN {
            return Err(VaultError);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        self.current
            .master
            .cipher
            .decrypt(Nonce::from_slice(nonce), ciphertext)
            .map(Secret::new)
            .map_err(|_| VaultError)
    }
}

/// HMAC-SHA256 under `key` of `parts`, one after the other.
fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes a key of any length");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

impl Vault for MasterKeyVault {
    fn seal(&self, plain: &[u8], place: &Place) -> Vec<u8> {
        self.current.key_for(place).seal(TAG, plain, place)
    }

    fn open(&self, sealed: &[u8], place: &Place) -> Result<Secret<Vec<u8>>, VaultError> {
        match (self.current.key_for(place).open(TAG, sealed, place), &self.previous) {
            (Err(VaultError), Some(previous)) => previous.key_for(place).open(TAG, sealed, place),
            (opened, _) => opened,
        }
    }

    fn seal_for_transport(&self, plain: &[u8], place: &Place) -> Vec<u8> {
        self.transport.seal(TRANSPORT_TAG, plain, place)
    }

    fn lookup_hash(&self, secret: &str) -> String {
        hex::encode(Sha256::digest(secret.as_bytes()))
    }

    fn keyed_hash(&self, secret: &str, context: &str) -> String {
        // The context's length first: no two (context, secret) pairs hash
        // the same input.
        let context_len = (context.len() as u64).to_be_bytes();
        hex::encode(hmac(
            &self.hash_key,
            &[&context_len, context.as_bytes(), secret.as_bytes()],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> MasterKeyVault {
        MasterKeyVault::from_hex(&MasterKeyVault::generate_hex()).unwrap()
    }

    use domain::Mode;
    use ports::vault::SealedField;

    fn place(field: SealedField, row: &'static str) -> Place<'static> {
        Place {
            field,
            row,
            account: "acct_a",
            mode: Mode::Test,
        }
    }

    #[test]
    fn a_vault_with_the_previous_key_opens_its_values_and_seals_only_under_the_new_one() {
        let (old_hex, new_hex) = (MasterKeyVault::generate_hex(), MasterKeyVault::generate_hex());
        let old = MasterKeyVault::from_hex(&old_hex).unwrap();
        let rotating = MasterKeyVault::from_hex(&new_hex)
            .unwrap()
            .with_previous(&old_hex)
            .unwrap();
        for here in [
            place(SealedField::CardNumber, "card_1"),
            place(SealedField::CardPin, "card_1"),
        ] {
            let sealed_before = old.seal(b"secret", &here);
            assert!(rotating.sealed_under_previous(&sealed_before));
            assert_eq!(rotating.open(&sealed_before, &here).unwrap().expose(), b"secret");
            let sealed_after = rotating.seal(b"secret", &here);
            assert!(!rotating.sealed_under_previous(&sealed_after));
            assert!(old.open(&sealed_after, &here).is_err(), "sealed under the new key only");
            let new_alone = MasterKeyVault::from_hex(&new_hex).unwrap();
            assert_eq!(new_alone.open(&sealed_after, &here).unwrap().expose(), b"secret");
            assert!(new_alone.open(&sealed_before, &here).is_err());
        }
        // The keyed-hash key is kept across the rotation, as the database keeps it.
        let (kept, under_previous) = rotating.hash_key_to_keep(true);
        assert!(under_previous);
        let mut new_alone = MasterKeyVault::from_hex(&new_hex).unwrap();
        assert_ne!(new_alone.keyed_hash("123456", "ctx"), old.keyed_hash("123456", "ctx"));
        new_alone.use_hash_key(&kept).unwrap();
        assert_eq!(new_alone.keyed_hash("123456", "ctx"), old.keyed_hash("123456", "ctx"));
        assert!(new_alone.use_hash_key(b"short").is_err());
    }

    #[test]
    fn seals_and_opens_in_its_place_only() {
        let v = vault();
        let here = place(SealedField::CardNumber, "card_1");
        let sealed = v.seal(b"5399830000000000", &here);
        assert!(!sealed.windows(4).any(|w| w == b"5399"));
        assert_eq!(v.open(&sealed, &here).unwrap().expose(), b"5399830000000000");
        for elsewhere in [
            place(SealedField::CardNumber, "card_2"),
            place(SealedField::CardCvv, "card_1"),
            Place {
                account: "acct_b",
                ..here.clone()
            },
            Place {
                mode: Mode::Live,
                ..here.clone()
            },
        ] {
            assert!(v.open(&sealed, &elsewhere).is_err(), "{elsewhere:?}");
        }
    }

    #[test]
    fn pins_are_sealed_under_their_own_key() {
        let v = vault();
        let pin = place(SealedField::CardPin, "card_1");
        let sealed = v.seal(b"1234", &pin);
        assert_eq!(v.open(&sealed, &pin).unwrap().expose(), b"1234");
        assert_eq!(&sealed[TAG.len()..TAG.len() + KEY_ID_LEN], &v.current.pin.id);
        assert_ne!(v.current.pin.id, v.current.master.id);
    }

    #[test]
    fn transport_sealing_is_not_the_stored_value_and_the_master_key_cannot_open_it() {
        let v = vault();
        let here = place(SealedField::CardNumber, "card_1");
        let stored = v.seal(b"5399830000000000", &here);
        let sent = v.seal_for_transport(b"5399830000000000", &here);
        assert!(sent.starts_with(TRANSPORT_TAG));
        assert_ne!(sent, stored);
        assert!(v.open(&sent, &here).is_err());
        assert_eq!(
            v.transport.open(TRANSPORT_TAG, &sent, &here).unwrap().expose(),
            b"5399830000000000"
        );
        assert!(
            v.transport
                .open(TRANSPORT_TAG, &sent, &place(SealedField::CardNumber, "card_2"))
                .is_err()
        );
        // Another process (or this one after a restart) has another key.
        let restarted = MasterKeyVault {
            transport: Key::random(),
            ..vault()
        };
        assert_ne!(restarted.transport.id, v.transport.id);
        assert!(restarted.transport.open(TRANSPORT_TAG, &sent, &here).is_err());
    }

    #[test]
    fn another_key_or_tampering_cannot_open() {
        let here = place(SealedField::ApiKey, "hash");
        let sealed = vault().seal(b"x", &here);
        assert!(vault().open(&sealed, &here).is_err());
        let v = vault();
        let mut sealed = v.seal(b"x", &here);
        let last = sealed.len() - 1;
        sealed[last] ^= 1;
        assert!(v.open(&sealed, &here).is_err());
        assert!(v.open(b"short", &here).is_err());
        assert!(v.open(b"isv1", &here).is_err());
    }

    #[test]
    fn values_sealed_before_places_open_only_to_be_sealed_again() {
        let v = vault();
        let old = v.seal_unbound(b"whsec_x");
        assert!(!MasterKeyVault::is_current(&old));
        assert_eq!(v.open_unbound(&old).unwrap().expose(), b"whsec_x");
        assert!(v.open(&old, &place(SealedField::WebhookSecret, "acct_a")).is_err());
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
    fn keyed_hashes_depend_on_the_key_the_secret_and_the_context() {
        let (a, b) = (vault(), vault());
        let hash = a.keyed_hash("123456", "tds_1");
        assert_eq!(hash.len(), 64);
        assert_eq!(hash, a.keyed_hash("123456", "tds_1"));
        assert_ne!(hash, b.keyed_hash("123456", "tds_1"));
        assert_ne!(hash, a.keyed_hash("123457", "tds_1"));
        assert_ne!(hash, a.keyed_hash("123456", "tds_2"));
        assert_ne!(a.keyed_hash("1", "23"), a.keyed_hash("12", "3"));
        assert_ne!(hash, a.lookup_hash("123456"));
    }

    #[test]
    fn lookup_hash_is_sha256_hex() {
        assert_eq!(
            vault().lookup_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

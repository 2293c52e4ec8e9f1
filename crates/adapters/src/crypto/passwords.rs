//! Argon2id password hashes (the `argon2` crate, with its default
//! parameters: RFC 9106's second recommendation, 19 MiB and 2 passes), in
//! the PHC string form, computed on tokio's blocking threads.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use domain::Secret;
use ports::StoreError;
use ports::console::Passwords;
use std::sync::LazyLock;

pub struct Argon2id;

/// What an unknown email's password is checked against: a sign-in with
/// one takes as long as with a known one.
static DECOY: LazyLock<String> = LazyLock::new(|| hash("not anyone's password").unwrap_or_default());

fn hash(password: &str) -> Result<String, StoreError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| StoreError::new(format!("hashing a password: {e}")))
}

fn verify(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// How many hashes run at once: each takes 19 MiB and a core for tens of
/// milliseconds, so a burst of sign-ins queues here rather than taking
/// the machine's memory.
static RUNNING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, StoreError> {
    let _turn = RUNNING
        .acquire()
        .await
        .map_err(|e| StoreError::new(format!("a password hash's turn: {e}")))?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| StoreError::new(format!("a password hash's thread: {e}")))
}

#[async_trait::async_trait]
impl Passwords for Argon2id {
    async fn hash(&self, password: Secret<String>) -> Result<String, StoreError> {
        blocking(move || hash(password.expose())).await?
    }

    async fn verify(&self, password: Secret<String>, hash: Option<String>) -> Result<bool, StoreError> {
        blocking(move || match hash {
            Some(hash) => verify(password.expose(), &hash),
            None => {
                verify(password.expose(), &DECOY);
                false
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_is_argon2id_salted_and_verifies_only_its_password() {
        let pw = || Secret::new("correct horse battery".to_string());
        let (a, b) = (Argon2id.hash(pw()).await.unwrap(), Argon2id.hash(pw()).await.unwrap());
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "each hash has its own salt");
        assert!(Argon2id.verify(pw(), Some(a.clone())).await.unwrap());
        let wrong = Secret::new("correct horse battery!".to_string());
        assert!(!Argon2id.verify(wrong, Some(a)).await.unwrap());
        assert!(!Argon2id.verify(pw(), None).await.unwrap());
        assert!(!Argon2id.verify(pw(), Some("not a hash".into())).await.unwrap());
    }
}

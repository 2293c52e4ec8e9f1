//! Argon2id password hashes (the `argon2` crate, with its default
//! parameters: RFC 9106's second recommendation, 19 MiB and 2 passes), in
//! the PHC string form, computed on two threads of their own.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use domain::Secret;
use ports::StoreError;
use ports::console::Passwords;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, LazyLock, Mutex};

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

/// The threads that hash, and how many hashes may wait for them. Two
/// threads of their own, written here because tokio's blocking pool
/// would not do: each hash takes 19 MiB, which the allocator keeps per
/// thread, and a burst of sign-ins spread over hundreds of blocking
/// threads grew the process by gigabytes. A hash past the queue is
/// refused at once (503), so a flood cannot queue without end either.
const THREADS: usize = 2;
const QUEUE: usize = 32;

type Job = Box<dyn FnOnce() + Send>;

static POOL: LazyLock<SyncSender<Job>> = LazyLock::new(|| {
    let (jobs, queue) = std::sync::mpsc::sync_channel::<Job>(QUEUE);
    let queue = Arc::new(Mutex::new(queue));
    for n in 0..THREADS {
        let queue = Arc::clone(&queue);
        let worker = move || {
            // The lock is held only to take a job, never while it runs.
            while let Ok(job) = queue.lock().map_err(drop).and_then(|q| q.recv().map_err(drop)) {
                job();
            }
        };
        if let Err(e) = std::thread::Builder::new().name(format!("argon2-{n}")).spawn(worker) {
            tracing::error!(error = %e, "a password hashing thread could not start");
        }
    }
    jobs
});

/// Runs `work` on a hashing thread.
async fn hashing<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, StoreError> {
    let (done, result) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = done.send(work());
    });
    POOL.try_send(job)
        .map_err(|_| StoreError::overloaded("password hashing"))?;
    result
        .await
        .map_err(|_| StoreError::new("a password hash's thread stopped"))
}

#[async_trait::async_trait]
impl Passwords for Argon2id {
    async fn hash(&self, password: Secret<String>) -> Result<String, StoreError> {
        hashing(move || hash(password.expose())).await?
    }

    async fn verify(&self, password: Secret<String>, hash: Option<String>) -> Result<bool, StoreError> {
        hashing(move || match hash {
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

//! What the dashboard keeps: its users, their sessions and its audit log;
//! and how passwords are hashed.

use crate::StoreError;
use domain::console::{LoginCount, Seat, SessionWindow};
use domain::ids::AccountId;
use domain::{Secret, Timestamp};

/// A user as first stored: no password yet, only the lookup hash of a
/// one-time link that sets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUser {
    pub id: String,
    pub email: String,
    pub seat: Seat,
    pub link_hash: String,
    pub link_expires_at: Timestamp,
    pub created_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub email: String,
    pub seat: Seat,
    /// Whether they set up a TOTP second factor.
    pub second_factor: bool,
}

/// What signing in reads: the user, their password's hash (`None` until
/// they set one) and the lock their wrong passwords set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    pub user: User,
    pub password_hash: Option<String>,
    pub count: LoginCount,
    /// Their TOTP secret, sealed (`Place::console_totp`), once set up.
    pub totp_sealed: Option<Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// The lookup hash of the cookie's token: the token is never stored.
    pub token_hash: String,
    pub user_id: String,
    pub started_at: Timestamp,
    /// Whether the user had a second factor when the attempt was checked.
    pub second_factor: bool,
    /// The login's count as this attempt left it.
    pub counted: LoginCount,
}

/// One console action, as the audit log keeps it: never a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub at: Timestamp,
    pub email: String,
    /// The account acted on; `None` for the operator's service-wide ones.
    pub account: Option<AccountId>,
    pub action: String,
    pub detail: String,
    /// Where the request came from.
    pub from: String,
}

/// An account as the operator's list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountRow {
    pub id: AccountId,
    pub name: String,
    pub created_at: Timestamp,
    /// Where each mode's webhooks go.
    pub webhook_url_test: Option<String>,
    pub webhook_url_live: Option<String>,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait ConsoleStore: Send + Sync {
    /// `false` when the email is taken.
    async fn create_user(&self, user: NewUser) -> Result<bool, StoreError>;

    /// Sets the password of the user whose unexpired link this is, and
    /// uses the link up, in one statement; `None` when there is none.
    async fn set_password(
        &self,
        link_hash: &str,
        password_hash: &str,
        now: Timestamp,
    ) -> Result<Option<User>, StoreError>;

    /// Whether a user's link with this lookup hash is unused and
    /// unexpired at `now`.
    async fn link_open(&self, link_hash: &str, now: Timestamp) -> Result<bool, StoreError>;

    async fn login(&self, email: &str) -> Result<Option<Login>, StoreError>;

    /// Sets up the user's second factor, unless they have one (`false`),
    /// and ends their sessions: each was signed in without it.
    async fn set_totp(&self, user_id: &str, sealed: Vec<u8>) -> Result<bool, StoreError>;

    /// Counts an attempt: the login's count becomes `next` if it still
    /// is `seen` (`false`: another attempt counted first; read again).
    async fn count_attempt(&self, user_id: &str, seen: LoginCount, next: LoginCount) -> Result<bool, StoreError>;

    /// A right password, in one transaction: unless the user's second
    /// factor changed since it was checked (`false`: no session), the count
    /// starts again if no attempt raced in after this one, the user's
    /// sessions that are over are deleted, and this one starts.
    async fn start_session(&self, session: NewSession) -> Result<bool, StoreError>;

    /// The user of the session, if `window` admits it; it is seen now,
    /// in the same statement.
    async fn session(&self, token_hash: &str, window: SessionWindow) -> Result<Option<User>, StoreError>;

    async fn end_session(&self, token_hash: &str) -> Result<(), StoreError>;

    /// The users of an account, or the operators (`None`).
    async fn users(&self, account: Option<AccountId>) -> Result<Vec<User>, StoreError>;

    async fn audit(&self, entry: AuditEntry) -> Result<(), StoreError>;

    /// The newest `limit` entries: an account's, or all of them (`None`).
    async fn audit_log(&self, account: Option<AccountId>, limit: i64) -> Result<Vec<AuditEntry>, StoreError>;

    /// Every account, newest first; or the one named.
    async fn accounts(&self, only: Option<AccountId>) -> Result<Vec<AccountRow>, StoreError>;
}

/// Password hashing (Argon2id), slow on purpose: run off the request's
/// thread.
#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait Passwords: Send + Sync {
    async fn hash(&self, password: Secret<String>) -> Result<String, StoreError>;

    /// Whether `password` is the one `hash` was made from; with no hash
    /// (an unknown email), does the same work and answers `false`.
    async fn verify(&self, password: Secret<String>, hash: Option<String>) -> Result<bool, StoreError>;
}

/// TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps), the second factor
/// authenticator apps speak.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Totp: Send + Sync {
    /// Whether `code` is the secret's at `now`, or a step either side
    /// (a phone's clock drifts).
    fn check(&self, secret: &[u8], code: &str, now: Timestamp) -> bool;

    /// The secret as an authenticator app takes it typed (base32), and
    /// its `otpauth://` URI naming `email`.
    fn encoded(&self, secret: &[u8], email: &str) -> (String, String);
}

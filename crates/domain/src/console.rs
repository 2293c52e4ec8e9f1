//! The dashboard's rules: who may do what, how long a session lasts, when
//! a login locks, and what an email and a password must be.

use crate::ids::AccountId;
use crate::{InvalidInput, Timestamp};

/// A session ends after this long without a request...
pub const IDLE_SECS: i64 = 30 * 60;
/// ...and this long after sign-in, however busy.
pub const SESSION_SECS: i64 = 12 * 3600;
/// This many wrong passwords in a row lock the login...
pub const LOCK_AFTER: i32 = 5;
/// ...for this long.
pub const LOCK_SECS: i64 = 15 * 60;
/// How long a set-password link (a first operator's, an invitation) works.
pub const LINK_SECS: i64 = 72 * 3600;

const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 12..=128;
const MAX_EMAIL_CHARS: usize = 254;

/// A console user's role: the operator runs the service; an account's
/// admin manages it; its viewer reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Operator,
    Admin,
    Viewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Operator => "operator",
            Role::Admin => "admin",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(field: &str, value: &str) -> Result<Role, InvalidInput> {
        match value {
            "operator" => Ok(Role::Operator),
            "admin" => Ok(Role::Admin),
            "viewer" => Ok(Role::Viewer),
            _ => Err(InvalidInput::new(field, "must be operator, admin or viewer")),
        }
    }
}

/// Whom a console user works for: the whole service, or one account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seat {
    Operator,
    Account { account: AccountId, role: Role },
}

/// Why a console action is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The user may read but not act (a viewer), or the action is the
    /// operator's: the console answers 403.
    #[error("your role cannot do this")]
    Forbidden,
    /// Another account's thing: answered as if it did not exist (404).
    #[error("not found")]
    NotFound,
    /// The operator changes things only with a second factor set up
    /// (403, saying so).
    #[error("set up two-step sign-in (Security) before changing anything as the operator")]
    SecondFactor,
}

impl Seat {
    /// The account whose things this user sees, `None` for the operator.
    pub fn account(&self) -> Option<&AccountId> {
        match self {
            Seat::Operator => None,
            Seat::Account { account, .. } => Some(account),
        }
    }

    /// May this user change `account`'s things (keys, wallets, cards)?
    pub fn may_act_on(&self, account: &AccountId) -> Result<(), Refusal> {
        match self {
            Seat::Account { account: own, .. } if own != account => Err(Refusal::NotFound),
            Seat::Account { role: Role::Admin, .. } => Ok(()),
            Seat::Account { .. } => Err(Refusal::Forbidden),
            // The operator acts on accounts through its own screens only.
            Seat::Operator => Err(Refusal::Forbidden),
        }
    }

    /// May this user read `account`'s things?
    pub fn may_read(&self, account: &AccountId) -> Result<(), Refusal> {
        match self {
            Seat::Account { account: own, .. } if own != account => Err(Refusal::NotFound),
            _ => Ok(()),
        }
    }

    /// The operator's own screens (accounts, live credits, reviews).
    pub fn is_operator(&self) -> Result<(), Refusal> {
        match self {
            Seat::Operator => Ok(()),
            Seat::Account { .. } => Err(Refusal::Forbidden),
        }
    }

    /// The operator's changes (accounts, live credits, reviews, the
    /// rewards switch, jobs): each reaches live money or live
    /// cardholders, so it needs the operator's second factor.
    pub fn operator_acts(&self, second_factor: bool) -> Result<(), Refusal> {
        self.is_operator()?;
        if second_factor {
            Ok(())
        } else {
            Err(Refusal::SecondFactor)
        }
    }

    /// Whom this user may invite: an admin to its own account, the
    /// operator (with its second factor) to any.
    pub fn may_invite(&self, account: &AccountId, role: Role, second_factor: bool) -> Result<(), Refusal> {
        match (self, role) {
            (_, Role::Operator) => Err(Refusal::Forbidden),
            (Seat::Operator, _) => self.operator_acts(second_factor),
            (seat, _) => seat.may_act_on(account),
        }
    }
}

/// Which sessions are alive at `now`: those seen after `seen_after` (idle
/// less than [`IDLE_SECS`]) and started after `started_after` (younger
/// than [`SESSION_SECS`]). The store's guard compares the same two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionWindow {
    pub seen_after: Timestamp,
    pub started_after: Timestamp,
    pub now: Timestamp,
}

impl SessionWindow {
    pub fn at(now: Timestamp) -> Self {
        Self {
            seen_after: now.minus(IDLE_SECS),
            started_after: now.minus(SESSION_SECS),
            now,
        }
    }

    /// Whether a session started at `started` and last seen at `seen` is
    /// alive.
    pub fn admits(&self, started: Timestamp, seen: Timestamp) -> bool {
        seen > self.seen_after && started > self.started_after
    }
}

/// Where a login stands: its attempts in a row that did not sign in, and
/// the lock they set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoginCount {
    pub failed: i32,
    pub locked_until: Option<Timestamp>,
}

/// What a sign-in attempt may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// Nothing is checked until then, not even a right password.
    Locked(Timestamp),
    /// The attempt is counted (the count it leaves, stored before any
    /// check, so attempts raced together each take a place), then checked;
    /// one that signs in starts the count again.
    Check(LoginCount),
}

/// The attempt a login in `count` allows at `now`: at most [`LOCK_AFTER`]
/// attempts are checked before a lock of [`LOCK_SECS`]; a lock that ran
/// out starts the count again.
pub fn attempt(count: LoginCount, now: Timestamp) -> Attempt {
    if let Some(until) = count.locked_until.filter(|until| *until > now) {
        return Attempt::Locked(until);
    }
    let before = if count.locked_until.is_some() { 0 } else { count.failed };
    let failed = before.saturating_add(1);
    Attempt::Check(LoginCount {
        failed,
        locked_until: (failed >= LOCK_AFTER).then(|| now.plus(LOCK_SECS)),
    })
}

/// An email as kept: trimmed and in lower case, as the `email_address`
/// crate reads RFC 5322's addresses (no display name).
pub fn email(field: &str, value: &str) -> Result<String, InvalidInput> {
    let email = value.trim().to_lowercase();
    let options = email_address::Options::default().without_display_text();
    match email_address::EmailAddress::parse_with_options(&email, options) {
        Ok(_) if email.chars().count() <= MAX_EMAIL_CHARS => Ok(email),
        _ => Err(InvalidInput::new(field, "must be an email address")),
    }
}

/// A password: 12 to 128 characters, no control character.
pub fn password(field: &str, value: &str) -> Result<(), InvalidInput> {
    let chars = value.chars().count();
    if !PASSWORD_CHARS.contains(&chars) || value.chars().any(char::is_control) {
        return Err(InvalidInput::new(
            field,
            "must be 12 to 128 characters, with no control character",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn admin(of: &str) -> Seat {
        Seat::Account {
            account: AccountId::new(of),
            role: Role::Admin,
        }
    }

    #[test]
    fn an_account_user_never_reaches_another_account_and_a_viewer_never_acts() {
        let (a, b) = (AccountId::new("acct_a"), AccountId::new("acct_b"));
        let viewer = Seat::Account {
            account: a.clone(),
            role: Role::Viewer,
        };
        assert_eq!(admin("acct_a").may_act_on(&a), Ok(()));
        assert_eq!(admin("acct_a").may_act_on(&b), Err(Refusal::NotFound));
        assert_eq!(admin("acct_a").may_read(&b), Err(Refusal::NotFound));
        assert_eq!(viewer.may_read(&a), Ok(()));
        assert_eq!(viewer.may_act_on(&a), Err(Refusal::Forbidden));
        assert_eq!(viewer.may_act_on(&b), Err(Refusal::NotFound));
        assert_eq!(viewer.may_invite(&a, Role::Viewer, true), Err(Refusal::Forbidden));
        assert_eq!(admin("acct_a").may_invite(&a, Role::Viewer, false), Ok(()));
        assert_eq!(
            admin("acct_a").may_invite(&b, Role::Admin, true),
            Err(Refusal::NotFound)
        );
        assert_eq!(
            admin("acct_a").may_invite(&a, Role::Operator, true),
            Err(Refusal::Forbidden)
        );
        assert_eq!(Seat::Operator.may_invite(&b, Role::Admin, true), Ok(()));
        assert_eq!(Seat::Operator.is_operator(), Ok(()));
        assert_eq!(Seat::Operator.operator_acts(true), Ok(()));
        assert_eq!(
            Seat::Operator.may_invite(&b, Role::Admin, false),
            Err(Refusal::SecondFactor)
        );
        assert_eq!(Seat::Operator.operator_acts(false), Err(Refusal::SecondFactor));
        assert_eq!(admin("acct_a").operator_acts(true), Err(Refusal::Forbidden));
        assert_eq!(admin("acct_a").is_operator(), Err(Refusal::Forbidden));
    }

    #[test]
    fn five_attempts_are_checked_then_none_until_the_lock_runs_out() {
        let now = Timestamp::from_unix(1_000);
        let mut count = LoginCount {
            failed: 0,
            locked_until: None,
        };
        for n in 1..=LOCK_AFTER {
            let Attempt::Check(next) = attempt(count, now) else {
                panic!("attempt {n} is checked")
            };
            assert_eq!(next.failed, n);
            assert_eq!(next.locked_until.is_some(), n == LOCK_AFTER, "the fifth sets the lock");
            count = next;
        }
        let until = now.plus(LOCK_SECS);
        assert_eq!(attempt(count, now.plus(LOCK_SECS - 1)), Attempt::Locked(until));
        let after = attempt(count, until);
        assert_eq!(
            after,
            Attempt::Check(LoginCount {
                failed: 1,
                locked_until: None
            }),
            "a new count"
        );
        let most = LoginCount {
            failed: i32::MAX,
            locked_until: None,
        };
        assert!(matches!(attempt(most, now), Attempt::Check(c) if c.failed == i32::MAX));
    }

    #[test]
    fn emails_are_kept_in_one_form_and_bad_ones_are_named() {
        assert_eq!(email("email", "  Ada@Example.NG ").unwrap(), "ada@example.ng");
        for bad in [
            "",
            "ada",
            "@x.ng",
            "ada@",
            "a da@x.ng",
            "ada@x.ng\0",
            "a@b@c.ng",
            "ada@.ng",
            "Ada <ada@x.ng>",
        ] {
            let e = email("email", bad).unwrap_err();
            assert_eq!(e.to_string(), "email: must be an email address", "{bad:?}");
        }
        assert!(email("email", &format!("{}@x.ng", "a".repeat(250))).is_err());
    }

    #[test]
    fn passwords_are_12_to_128_characters_without_controls() {
        assert!(password("password", &"é".repeat(12)).is_ok());
        assert!(password("password", &"a".repeat(128)).is_ok());
        for bad in ["a".repeat(11), "a".repeat(129), format!("{}\0", "a".repeat(12))] {
            assert!(password("password", &bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn a_session_is_alive_only_inside_both_timeouts(
            started in 0i64..1_000_000, seen_after in 0i64..100_000, now_after in 0i64..100_000,
        ) {
            let started_at = Timestamp::from_unix(started);
            let seen = started_at.plus(seen_after);
            let now = seen.plus(now_after);
            let alive = SessionWindow::at(now).admits(started_at, seen);
            prop_assert_eq!(alive, now_after < IDLE_SECS && seen_after + now_after < SESSION_SECS);
        }
    }
}

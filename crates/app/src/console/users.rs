//! `issuing operators create`, invitations and the one-time links that
//! set a password.

use super::{ConsoleError, TOKEN_CHARS};
use crate::App;
use crate::accounts::{AccountDetails, CreatedAccount};
use domain::console::{self, Role, Seat};
use domain::ids::AccountId;
use domain::{InvalidInput, Secret, Timestamp};
use ports::console::{NewUser, User};

/// A user made, and the token of their one-time link: shown once, to
/// whoever made them, never stored.
#[derive(Debug)]
pub struct Invited {
    pub user_id: String,
    pub link_token: Secret<String>,
    pub expires_at: Timestamp,
}

#[derive(Debug, thiserror::Error)]
pub enum SetPasswordError {
    /// Used, expired, or never made: one answer for all three.
    #[error("this link has expired or was used: ask for a new one")]
    Link,
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    #[error(transparent)]
    Store(#[from] ports::StoreError),
}

impl App {
    /// A user of `seat` with a one-time link to set their password.
    async fn new_user(&self, email: &str, seat: Seat) -> Result<Invited, ConsoleError> {
        let email = console::email("email", email)?;
        let link_token = self.ports.ids.secret(TOKEN_CHARS);
        let now = self.ports.clock.now();
        let user = NewUser {
            id: format!("usr_{}", self.ports.ids.unique()),
            email,
            seat,
            link_hash: self.ports.vault.lookup_hash(link_token.expose()),
            link_expires_at: now.plus(console::LINK_SECS),
            created_at: now,
        };
        let (user_id, expires_at) = (user.id.clone(), user.link_expires_at);
        if !self.ports.console.create_user(user).await? {
            return Err(InvalidInput::new("email", "already has a dashboard login").into());
        }
        Ok(Invited {
            user_id,
            link_token,
            expires_at,
        })
    }

    /// `issuing operators create --email`: an operator, from the server's
    /// shell (the only way to make one).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn create_operator(&self, email: &str) -> Result<Invited, ConsoleError> {
        self.new_user(email, Seat::Operator).await
    }

    /// An account's new user, invited by the operator or the account's
    /// admin.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn invite(
        &self,
        by: &User,
        account: &AccountId,
        email: &str,
        role: Role,
    ) -> Result<Invited, ConsoleError> {
        by.seat.may_invite(account, role, by.second_factor)?;
        let seat = Seat::Account {
            account: account.clone(),
            role,
        };
        self.new_user(email, seat).await
    }

    /// The operator makes an account and invites its first admin.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn create_account_with_admin(
        &self,
        by: &User,
        details: &AccountDetails,
        admin_email: &str,
    ) -> Result<(CreatedAccount, Invited), ConsoleError> {
        by.seat.operator_acts(by.second_factor)?;
        // Checked first: a bad or taken email makes no account.
        let email = console::email("admin_email", admin_email)?;
        if self.ports.console.login(&email).await?.is_some() {
            return Err(InvalidInput::new("admin_email", "already has a dashboard login").into());
        }
        let created = self.create_account(details, false).await?;
        let invited = self.invite(by, &created.account_id, admin_email, Role::Admin).await?;
        Ok((created, invited))
    }

    /// Sets a password through a one-time link, and uses the link up.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn set_password(&self, link_token: &str, password: Secret<String>) -> Result<User, SetPasswordError> {
        console::password("password", password.expose())?;
        let link_hash = self.ports.vault.lookup_hash(link_token);
        // No hash for a link that is no user's: a made-up one costs nothing.
        if !self.ports.console.link_open(&link_hash, self.ports.clock.now()).await? {
            return Err(SetPasswordError::Link);
        }
        let hash = self.ports.passwords.hash(password).await?;
        self.ports
            .console
            .set_password(&link_hash, &hash, self.ports.clock.now())
            .await?
            .ok_or(SetPasswordError::Link)
    }

    /// The operators, or an account's users.
    pub async fn console_users(&self, by: &User, account: Option<&AccountId>) -> Result<Vec<User>, ConsoleError> {
        match account {
            Some(account) => by.seat.may_read(account)?,
            None => by.seat.is_operator()?,
        }
        Ok(self.ports.console.users(account.cloned()).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Mocks;

    fn admin_of(account: &str) -> User {
        User {
            id: "usr_1".into(),
            email: "ada@example.ng".into(),
            seat: Seat::Account {
                account: AccountId::new(account),
                role: Role::Admin,
            },
            second_factor: false,
        }
    }

    #[tokio::test]
    async fn an_admin_cannot_invite_to_another_account_and_nothing_is_stored() {
        let app = Mocks::default().app();
        let e = app
            .invite(
                &admin_of("acct_a"),
                &AccountId::new("acct_b"),
                "x@example.ng",
                Role::Viewer,
            )
            .await
            .unwrap_err();
        assert!(
            matches!(e, ConsoleError::Refused(domain::console::Refusal::NotFound)),
            "{e}"
        );
    }

    #[tokio::test]
    async fn an_invitation_stores_only_the_links_hash() {
        let mut m = Mocks::default();
        m.ids.expect_secret().returning(|n| Secret::new("t".repeat(n)));
        m.ids.expect_unique().return_const("1".to_string());
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.vault.expect_lookup_hash().returning(|s| format!("h:{}", s.len()));
        m.console
            .expect_create_user()
            .withf(|u| u.link_hash == "h:43" && u.email == "new@example.ng" && u.link_expires_at.unix() > 1_000)
            .times(1)
            .returning(|_| Ok(true));
        let invited = m
            .app()
            .invite(
                &admin_of("acct_a"),
                &AccountId::new("acct_a"),
                " NEW@example.ng",
                Role::Viewer,
            )
            .await
            .unwrap();
        assert_eq!(invited.link_token.expose().len(), 43);
    }

    #[tokio::test]
    async fn a_short_password_is_refused_before_it_is_hashed() {
        let app = Mocks::default().app();
        let e = app.set_password("t", Secret::new("short".into())).await.unwrap_err();
        assert!(e.to_string().starts_with("password:"), "{e}");
    }
}

//! The audit log: every console action, who did it, when and from where;
//! never a secret (the actions write what they did, not what they saw).

use super::ConsoleError;
use crate::App;
use domain::ids::AccountId;
use ports::StoreError;
use ports::console::{AccountRow, AuditEntry, User};

/// How many entries the log shows.
const SHOWN: i64 = 200;

/// Who acts, and from which address.
#[derive(Debug, Clone)]
pub struct Actor {
    pub user: User,
    pub from: String,
}

impl App {
    /// Records an action done on `account` (`None`: service-wide).
    pub async fn audit(
        &self,
        actor: &Actor,
        account: Option<&AccountId>,
        action: &str,
        detail: String,
    ) -> Result<(), StoreError> {
        let entry = AuditEntry {
            at: self.ports.clock.now(),
            email: actor.user.email.clone(),
            account: account.cloned().or_else(|| actor.user.seat.account().cloned()),
            action: action.to_string(),
            detail,
            from: actor.from.clone(),
        };
        self.ports.console.audit(entry).await
    }

    /// The log as `by` may see it: the operator all of it, an account's
    /// admin their account's.
    pub async fn audit_log(&self, by: &User) -> Result<Vec<AuditEntry>, ConsoleError> {
        let account = by.seat.account();
        if let Some(account) = account {
            by.seat.may_act_on(account)?;
        }
        Ok(self.ports.console.audit_log(account.cloned(), SHOWN).await?)
    }

    /// Every account, for the operator.
    pub async fn console_accounts(&self, by: &User) -> Result<Vec<AccountRow>, ConsoleError> {
        by.seat.is_operator()?;
        Ok(self.ports.console.accounts(None).await?)
    }

    /// One account, for whoever may read it.
    pub async fn console_account(&self, by: &User, account: &AccountId) -> Result<AccountRow, ConsoleError> {
        by.seat.may_read(account)?;
        let found = self.ports.console.accounts(Some(account.clone())).await?;
        Ok(found.into_iter().next().ok_or(domain::console::Refusal::NotFound)?)
    }
}

//! `issuing accounts update <account_id>`: the company profile that
//! cardholder registration needs, and the webhook URL of both modes.

use super::create_account::{optional_address, optional_url};
use crate::{App, RequestError};
use domain::InvalidInput;
use domain::ids::AccountId;
use ports::accounts::AccountChanges;

/// What to change; absent fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct AccountUpdate {
    pub webhook_url: Option<String>,
    pub company_address: Option<String>,
    pub utility_bill_url: Option<String>,
}

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn update_account(&self, account: &AccountId, update: &AccountUpdate) -> Result<(), RequestError> {
        let changes = AccountChanges {
            webhook_url: optional_url("webhook_url", &update.webhook_url)?,
            company_address: optional_address(&update.company_address)?,
            utility_bill_url: optional_url("utility_bill_url", &update.utility_bill_url)?,
        };
        if changes.webhook_url.is_none() && changes.company_address.is_none() && changes.utility_bill_url.is_none() {
            let rule = "give at least one of webhook_url, company_address, utility_bill_url";
            return Err(InvalidInput::new("account", rule).into());
        }
        if self.ports.accounts.update_account(account, changes).await? {
            Ok(())
        } else {
            Err(InvalidInput::new("account_id", "no account with this id").into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Mocks;

    #[tokio::test]
    async fn changes_only_what_is_given_after_checking_it() {
        let mut m = Mocks::default();
        m.accounts
            .expect_update_account()
            .withf(|a, c| {
                a.as_str() == "acct_1"
                    && c.company_address.as_deref() == Some("1 Marina, Lagos")
                    && c.webhook_url.is_none()
                    && c.utility_bill_url.is_none()
            })
            .times(1)
            .returning(|_, _| Ok(true));
        let app = m.app();
        let update = AccountUpdate {
            company_address: Some(" 1 Marina, Lagos ".into()),
            ..Default::default()
        };
        app.update_account(&AccountId::new("acct_1"), &update).await.unwrap();
        let bad = AccountUpdate {
            utility_bill_url: Some("bill.pdf".into()),
            ..Default::default()
        };
        let e = app.update_account(&AccountId::new("acct_1"), &bad).await.unwrap_err();
        assert!(e.to_string().starts_with("utility_bill_url:"), "{e}");
    }
}

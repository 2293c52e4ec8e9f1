//! `PATCH /v1/issuing[/sandbox]/webhook`: where the account's events of
//! the key's mode are delivered.

use crate::{App, Caller, RequestError};
use domain::http_url;

impl App {
    pub async fn set_webhook_url(&self, caller: &Caller, url: &str) -> Result<String, RequestError> {
        let url = http_url::parse("url", url)?;
        self.ports
            .accounts
            .set_webhook_url(&caller.account_id, caller.mode, &url)
            .await?;
        Ok(url)
    }
}

//! `PATCH /v1/issuing[/sandbox]/webhook`: where the account's events of
//! the key's mode are delivered.

use crate::{App, Caller, RequestError};
use domain::http_url;

impl App {
    /// The URL must be one deliveries of the caller's mode may reach (see
    /// `http_url::webhook_url`), and its host must not resolve inside.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn set_webhook_url(&self, caller: &Caller, url: &str) -> Result<String, RequestError> {
        let allow_private = self.settings.webhook_allow_private;
        let url = http_url::webhook_url("url", url, caller.mode, allow_private)?;
        if !allow_private && let Err(why) = self.ports.webhooks.check_host(&url).await {
            return Err(domain::InvalidInput::new("url", why).into());
        }
        self.ports
            .accounts
            .set_webhook_url(&caller.account_id, caller.mode, &url)
            .await?;
        Ok(url)
    }
}

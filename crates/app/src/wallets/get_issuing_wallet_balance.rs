//! `GET /v1/issuing[/sandbox]/cards/get_issuing_wallet_balance`.

use crate::{App, Caller};
use ports::StoreError;
use ports::wallets::WalletBalances;

impl App {
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_issuing_wallet_balance(&self, caller: &Caller) -> Result<WalletBalances, StoreError> {
        self.ports.wallets.balances(&caller.account_id, caller.mode).await
    }
}

use crate::App;
use ports::StoreError;

impl App {
    /// `GET /health`: the database answers; how many money jobs are
    /// parked (an operator must look: `issuing ledger check`).
    pub async fn health(&self) -> Result<u64, StoreError> {
        self.ports.health.ping().await?;
        self.ports.health.parked_money_jobs().await
    }
}

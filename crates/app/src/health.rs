use crate::App;
use ports::StoreError;

impl App {
    /// `GET /health`: the database answers. Nothing else: it takes no
    /// key, so what waits on an operator (parked money jobs) is told by
    /// `issuing ledger check` and `issuing jobs list --failed`.
    pub async fn health(&self) -> Result<(), StoreError> {
        self.ports.health.ping().await
    }
}

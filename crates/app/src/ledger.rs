use crate::App;
use domain::ledger::Breach;
use ports::StoreError;

impl App {
    /// `issuing ledger check`: every broken ledger invariant.
    pub async fn ledger_check(&self) -> Result<Vec<Breach>, StoreError> {
        self.ports.ledger.breaches().await
    }
}

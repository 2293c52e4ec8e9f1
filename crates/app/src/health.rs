use crate::App;
use ports::StoreError;

impl App {
    /// `GET /health`: the database answers a round trip.
    pub async fn health(&self) -> Result<(), StoreError> {
        self.ports.health.ping().await
    }
}

use crate::App;
use ports::StoreError;

/// What live mode runs on: the simulators, the real providers'
/// connectors, or some of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveConnectors {
    Simulated,
    Mixed,
    Real,
}

impl LiveConnectors {
    pub fn as_str(self) -> &'static str {
        match self {
            LiveConnectors::Simulated => "simulated",
            LiveConnectors::Mixed => "mixed",
            LiveConnectors::Real => "real",
        }
    }
}

impl App {
    /// `GET /health`: the database answers. Nothing else: it takes no
    /// key, so what waits on an operator (parked money jobs) is told by
    /// `issuing ledger check` and `issuing jobs list --failed`.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn health(&self) -> Result<(), StoreError> {
        self.ports.health.ping().await
    }

    /// What live mode runs on.
    pub fn live_connectors(&self) -> LiveConnectors {
        self.settings.live_connectors
    }
}

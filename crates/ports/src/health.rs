use crate::StoreError;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait Health: Send + Sync {
    /// One round trip to the database.
    async fn ping(&self) -> Result<(), StoreError>;

    /// How many jobs that move money (settlements, fees) are parked after
    /// their last attempt, waiting for an operator.
    async fn parked_money_jobs(&self) -> Result<u64, StoreError>;
}

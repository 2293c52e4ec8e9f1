use crate::StoreError;

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait::async_trait]
pub trait Health: Send + Sync {
    /// One round trip to the database.
    async fn ping(&self) -> Result<(), StoreError>;
}

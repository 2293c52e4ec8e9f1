/// Time, read through a port so that time rules can be tested.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Clock: Send + Sync {
    /// Unix seconds.
    fn now(&self) -> i64;
}

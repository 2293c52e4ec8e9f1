use domain::Timestamp;

/// The real clock, read through a port so that time rules can be tested.
/// A sandbox's time is this plus the account's test-clock offset.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

//! Webhook events: what happened, told to the account at least once.

pub mod breaker;
pub mod payloads;
pub mod share;

pub const CARDHOLDER_VERIFICATION_SUCCESSFUL: &str = "cardholder_verification.successful";
pub const CARDHOLDER_VERIFICATION_MANUAL_REVIEW: &str = "cardholder_verification.manual_review";
pub const CARDHOLDER_VERIFICATION_FAILED: &str = "cardholder_verification.failed";

pub const CARD_CREATION_SUCCESSFUL: &str = "card_creation_event.successful";
pub const CARD_CREDIT_SUCCESSFUL: &str = "card_credit_event.successful";
pub const CARD_CREDIT_FAILED: &str = "card_credit_event.failed";
pub const CARD_UNLOAD_SUCCESSFUL: &str = "card_unload_event.successful";
pub const CARD_UNLOAD_FAILED: &str = "card_unload_event.failed";
/// Not named by the contract: an approved debit (the original service
/// sends it, and integrations listen for it).
pub const CARD_DEBIT_SUCCESSFUL: &str = "card_debit_event.successful";
pub const CARD_DEBIT_DECLINED: &str = "card_debit_event.declined";
/// Not named by the contract: a Naira debit's 3-D Secure challenge opened,
/// with its OTP for the fintech to give its user (the original service
/// hands OTPs to integrations so).
pub const THREE_DS_OTP_GENERATED: &str = "3d_secure_otp_event.generated";
pub const CARD_DELETE_SUCCESSFUL: &str = "card_delete_event.successful";
pub const CARD_DELETE_NOTIFICATION: &str = "card_delete_event.notification";
pub const NAIRA_CARD_CREDIT_SUCCESSFUL: &str = "naira_card_credit_event.successful";
/// A Naira card's failed funding, and (as the contract has it) its failed
/// unloading too.
pub const NAIRA_CARD_CREDIT_FAILED: &str = "naira_card_credit_event.failed";
pub const NAIRA_CARD_UNLOAD_SUCCESSFUL: &str = "naira_card_unload_event.successful";
/// Not named by the contract: the monthly fee charged from the held amount.
pub const CARD_MAINTENANCE_FEE_SUCCESSFUL: &str = "card_maintenance_fee_event.successful";

/// Not named by the contract: a processor gave back (part of) a debit (a
/// refund, a reversal); the original service sends it.
pub const CARD_REVERSAL_SUCCESSFUL: &str = "card_reversal_event.successful";

/// Not named by the contract (extensions): an authorization's hold was
/// placed (or raised by an increment), captured, reversed or expired.
pub const CARD_AUTHORIZATION_CREATED: &str = "card_authorization_event.created";
pub const CARD_AUTHORIZATION_CAPTURED: &str = "card_authorization_event.captured";
pub const CARD_AUTHORIZATION_REVERSED: &str = "card_authorization_event.reversed";
pub const CARD_AUTHORIZATION_EXPIRED: &str = "card_authorization_event.expired";
/// Not named by the contract (an extension): a captured transaction (or a
/// debit) was refunded; `card_reversal_event.successful` tells it too.
pub const CARD_REFUND_SUCCESSFUL: &str = "card_refund_event.successful";

pub const REWARD_ASSIGNED_SUCCESSFUL: &str = "reward_assigned_event.successful";

/// A sandbox helper's event, to try an endpoint and its signature checks.
pub const WEBHOOK_TEST: &str = "webhook.test";

/// Every event name the service sends.
pub const ALL: [&str; 25] = [
    CARDHOLDER_VERIFICATION_SUCCESSFUL,
    CARDHOLDER_VERIFICATION_MANUAL_REVIEW,
    CARDHOLDER_VERIFICATION_FAILED,
    CARD_CREATION_SUCCESSFUL,
    CARD_CREDIT_SUCCESSFUL,
    CARD_CREDIT_FAILED,
    CARD_UNLOAD_SUCCESSFUL,
    CARD_UNLOAD_FAILED,
    CARD_DEBIT_SUCCESSFUL,
    CARD_DEBIT_DECLINED,
    THREE_DS_OTP_GENERATED,
    CARD_MAINTENANCE_FEE_SUCCESSFUL,
    CARD_REVERSAL_SUCCESSFUL,
    CARD_AUTHORIZATION_CREATED,
    CARD_AUTHORIZATION_CAPTURED,
    CARD_AUTHORIZATION_REVERSED,
    CARD_AUTHORIZATION_EXPIRED,
    CARD_REFUND_SUCCESSFUL,
    CARD_DELETE_SUCCESSFUL,
    CARD_DELETE_NOTIFICATION,
    NAIRA_CARD_CREDIT_SUCCESSFUL,
    NAIRA_CARD_CREDIT_FAILED,
    NAIRA_CARD_UNLOAD_SUCCESSFUL,
    REWARD_ASSIGNED_SUCCESSFUL,
    WEBHOOK_TEST,
];

/// Where an event's delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryState {
    /// Not yet answered with a 2xx; a job will try (again).
    Pending,
    /// An attempt was answered with a 2xx.
    Delivered,
    /// Every attempt of the retry schedule failed.
    Failed,
    /// The account had no webhook URL for the mode when the event happened
    /// (no delivery was queued) or when its delivery was due.
    NoEndpoint,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Failed => "failed",
            DeliveryState::NoEndpoint => "no_endpoint",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::Pending, Self::Delivered, Self::Failed, Self::NoEndpoint]
            .into_iter()
            .find(|s| s.as_str() == value)
    }
}

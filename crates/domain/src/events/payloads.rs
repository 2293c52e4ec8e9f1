//! Every webhook event's payload (its `data`), one type per shape, and
//! [`Event`]: one variant per event name the service sends. The wire
//! form is the payload itself; optional fields are left out when absent.

use crate::Currency;
use crate::cards::transfer::{Settlement, TransferKind};
use serde::Serialize;

#[cfg(feature = "openapi")]
use utoipa::ToSchema;

/// `cardholder_verification.*`: a verification decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardholderVerification {
    pub cardholder_id: String,
    /// true only when verified: cards can be issued.
    pub is_active: bool,
    pub livemode: bool,
    pub issuing_app_id: String,
    /// Why verification failed (`.failed` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_description: Option<String>,
}

/// `card_creation_event.successful`: a card was issued, activated or
/// migrated.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardCreated {
    pub card_id: String,
    pub cardholder_id: String,
    /// virtual or physical
    pub card_type: &'static str,
    pub brand: &'static str,
    pub currency: &'static str,
    pub last_4: String,
    pub livemode: bool,
    pub issuing_app_id: String,
    /// The creation request's reference, when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_reference: Option<String>,
    /// A physical card's envelope number (activation only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_token_number: Option<String>,
    /// The card this one replaced (migration only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migrated_from: Option<String>,
}

/// What every event about money moving on a card carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardMovement {
    pub card_id: String,
    pub cardholder_id: String,
    /// In cents.
    pub amount: String,
    pub currency: &'static str,
    pub transaction_reference: String,
    pub livemode: bool,
    pub issuing_app_id: String,
    /// CREDIT, UNLOAD or DEBIT
    pub card_transaction_type: &'static str,
    /// GMT, as the contract writes dates.
    pub transaction_date: String,
    pub transaction_timestamp: i64,
}

/// `card_credit_event.*` and `card_unload_event.*`: a funding or an
/// unloading settled.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardTransferSettled {
    #[serde(flatten)]
    pub movement: CardMovement,
    /// What moved, in words (unloads only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
    /// Why it failed (`.failed` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_description: Option<String>,
}

/// `card_debit_event.successful`, `card_debit_event.declined` (with the
/// decline's reason and code) and `card_maintenance_fee_event.successful`
/// (no merchant).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardDebit {
    #[serde(flatten)]
    pub movement: CardMovement,
    pub issuer_transaction_reference: String,
    /// The merchant's descriptor (debits only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The merchant's category code, as the card's transactions show it:
    /// `null` when the network sent none (and for a fee).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub merchant_category_code: Option<String>,
    /// The merchant's enrichment, as the card's transactions show it
    /// (debits, approved or declined).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub enriched_data: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decline_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decline_code: Option<&'static str>,
}

/// `3d_secure_otp_event.generated`: a Naira debit waits for this OTP
/// (`transaction_reference` the debit's), for the fintech to give its
/// user; the last OTP issued for the challenge (here or on the relay)
/// counts, until `expires_at`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct ThreeDsOtp {
    #[serde(flatten)]
    pub movement: CardMovement,
    /// The merchant's descriptor.
    pub description: String,
    /// Six digits.
    pub otp: String,
    /// Unix seconds: the challenge expires then, declining the debit.
    pub expires_at: i64,
}

/// `card_reversal_event.successful`: a card processor gave back (part of)
/// an approved debit, to the card or, when the card is gone or full, to
/// the issuing wallet. `transaction_reference` is the debit's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardReversal {
    #[serde(flatten)]
    pub movement: CardMovement,
    /// The debit's issuer transaction reference.
    pub issuer_transaction_reference: String,
    /// The processor's id of the refund or reversal.
    pub reversal_reference: String,
    /// The debit's merchant descriptor.
    pub description: String,
    /// The debit's enriched_data object.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub enriched_data: serde_json::Value,
    /// card or issuing_wallet
    pub credited_to: &'static str,
}

/// `card_authorization_event.*` (extensions): a step of an authorization.
/// `amount` is the step's (the hold placed or raised, what a capture
/// cleared, what a reversal or the expiry released) and
/// `transaction_reference` the authorization's network reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardAuthorization {
    #[serde(flatten)]
    pub movement: CardMovement,
    /// The authorization's issuer reference.
    pub authorization_id: String,
    /// An increment's or a capture's own issuer reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issuer_transaction_reference: Option<String>,
    /// pending, closed, reversed or expired, after the step.
    pub state: &'static str,
    /// What the authorization holds after the step, in minor units.
    pub held_amount: String,
    /// What went back from the hold, and where: card or issuing_wallet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub released_amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub released_to: Option<&'static str>,
    /// The merchant's descriptor.
    pub description: String,
    /// The merchant's enrichment.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub enriched_data: serde_json::Value,
}

/// `card_delete_event.successful`: a card was deleted by a rule or with
/// its cardholder.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardDeleted {
    pub card_id: String,
    pub cardholder_id: String,
    /// The card's currency.
    pub currency: &'static str,
    /// cardholder_deleted, inactivity, processor_terminated, or a decline code
    pub reason: String,
    pub livemode: bool,
    pub issuing_app_id: String,
}

/// `card_delete_event.notification`: an inactive card will be deleted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct CardDeleteNotice {
    pub card_id: String,
    pub cardholder_id: String,
    /// The card's currency, as `card_delete_event.successful` carries it.
    pub currency: &'static str,
    pub livemode: bool,
    pub issuing_app_id: String,
    pub potential_delete_date: String,
    pub potential_delete_timestamp: i64,
}

/// `reward_assigned_event.successful`: a cardholder earned a reward.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct RewardAssigned {
    pub cardholder_id: String,
    /// `DEAL` or `PROMO_CODE`.
    pub reward_type: &'static str,
    pub reward_id: String,
    pub reward_description: String,
    pub issuing_app_id: String,
    pub livemode: bool,
}

/// `webhook.test`: sent on request, to try an endpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(ToSchema))]
pub struct WebhookTest {
    pub message: &'static str,
    pub livemode: bool,
    pub issuing_app_id: String,
}

/// An event to send: its name is its variant, its `data` the payload.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Event {
    CardholderVerificationSuccessful(CardholderVerification),
    CardholderVerificationManualReview(CardholderVerification),
    CardholderVerificationFailed(CardholderVerification),
    CardCreationSuccessful(CardCreated),
    CardCreditSuccessful(CardTransferSettled),
    CardCreditFailed(CardTransferSettled),
    CardUnloadSuccessful(CardTransferSettled),
    CardUnloadFailed(CardTransferSettled),
    CardDebitSuccessful(CardDebit),
    CardDebitDeclined(CardDebit),
    ThreeDsOtpGenerated(ThreeDsOtp),
    CardMaintenanceFeeSuccessful(CardDebit),
    CardReversalSuccessful(CardReversal),
    CardAuthorizationCreated(CardAuthorization),
    CardAuthorizationCaptured(CardAuthorization),
    CardAuthorizationReversed(CardAuthorization),
    CardAuthorizationExpired(CardAuthorization),
    CardRefundSuccessful(CardReversal),
    CardDeleteSuccessful(CardDeleted),
    CardDeleteNotification(CardDeleteNotice),
    NairaCardCreditSuccessful(CardTransferSettled),
    NairaCardCreditFailed(CardTransferSettled),
    NairaCardUnloadSuccessful(CardTransferSettled),
    RewardAssigned(RewardAssigned),
    WebhookTest(WebhookTest),
}

impl Event {
    pub fn name(&self) -> &'static str {
        use super::*;
        match self {
            Event::CardholderVerificationSuccessful(_) => CARDHOLDER_VERIFICATION_SUCCESSFUL,
            Event::CardholderVerificationManualReview(_) => CARDHOLDER_VERIFICATION_MANUAL_REVIEW,
            Event::CardholderVerificationFailed(_) => CARDHOLDER_VERIFICATION_FAILED,
            Event::CardCreationSuccessful(_) => CARD_CREATION_SUCCESSFUL,
            Event::CardCreditSuccessful(_) => CARD_CREDIT_SUCCESSFUL,
            Event::CardCreditFailed(_) => CARD_CREDIT_FAILED,
            Event::CardUnloadSuccessful(_) => CARD_UNLOAD_SUCCESSFUL,
            Event::CardUnloadFailed(_) => CARD_UNLOAD_FAILED,
            Event::CardDebitSuccessful(_) => CARD_DEBIT_SUCCESSFUL,
            Event::CardDebitDeclined(_) => CARD_DEBIT_DECLINED,
            Event::ThreeDsOtpGenerated(_) => THREE_DS_OTP_GENERATED,
            Event::CardMaintenanceFeeSuccessful(_) => CARD_MAINTENANCE_FEE_SUCCESSFUL,
            Event::CardReversalSuccessful(_) => CARD_REVERSAL_SUCCESSFUL,
            Event::CardAuthorizationCreated(_) => CARD_AUTHORIZATION_CREATED,
            Event::CardAuthorizationCaptured(_) => CARD_AUTHORIZATION_CAPTURED,
            Event::CardAuthorizationReversed(_) => CARD_AUTHORIZATION_REVERSED,
            Event::CardAuthorizationExpired(_) => CARD_AUTHORIZATION_EXPIRED,
            Event::CardRefundSuccessful(_) => CARD_REFUND_SUCCESSFUL,
            Event::CardDeleteSuccessful(_) => CARD_DELETE_SUCCESSFUL,
            Event::CardDeleteNotification(_) => CARD_DELETE_NOTIFICATION,
            Event::NairaCardCreditSuccessful(_) => NAIRA_CARD_CREDIT_SUCCESSFUL,
            Event::NairaCardCreditFailed(_) => NAIRA_CARD_CREDIT_FAILED,
            Event::NairaCardUnloadSuccessful(_) => NAIRA_CARD_UNLOAD_SUCCESSFUL,
            Event::RewardAssigned(_) => REWARD_ASSIGNED_SUCCESSFUL,
            Event::WebhookTest(_) => WEBHOOK_TEST,
        }
    }

    /// The event that reports a settled funding or unloading of a card in
    /// `currency`. A Naira card's failed unloading is told as
    /// `naira_card_credit_event.failed`, as the contract names it.
    pub fn transfer_settled(
        currency: Currency,
        kind: TransferKind,
        settlement: Settlement,
        payload: CardTransferSettled,
    ) -> Event {
        use {Settlement::*, TransferKind::*};
        match (currency, kind, settlement) {
            (Currency::Usd, Fund, Complete) => Event::CardCreditSuccessful(payload),
            (Currency::Usd, Fund, Reverse) => Event::CardCreditFailed(payload),
            (Currency::Usd, Unload, Complete) => Event::CardUnloadSuccessful(payload),
            (Currency::Usd, Unload, Reverse) => Event::CardUnloadFailed(payload),
            (Currency::Ngn, Fund, Complete) => Event::NairaCardCreditSuccessful(payload),
            (Currency::Ngn, Fund | Unload, Reverse) => Event::NairaCardCreditFailed(payload),
            (Currency::Ngn, Unload, Complete) => Event::NairaCardUnloadSuccessful(payload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload() -> CardTransferSettled {
        CardTransferSettled {
            movement: CardMovement {
                card_id: "card_1".into(),
                cardholder_id: "ch_1".into(),
                amount: "100".into(),
                currency: "NGN",
                transaction_reference: "r".into(),
                livemode: false,
                issuing_app_id: "acct".into(),
                card_transaction_type: "CREDIT",
                transaction_date: "2026-11-24 00:00:00".into(),
                transaction_timestamp: 1,
            },
            description: None,
            error_description: None,
        }
    }

    #[test]
    fn each_settlement_has_its_event_name_and_a_naira_unload_failure_is_a_credit_failure() {
        let name = |c, k, s| Event::transfer_settled(c, k, s, payload()).name();
        use {Settlement::*, TransferKind::*};
        assert_eq!(name(Currency::Usd, Unload, Reverse), "card_unload_event.failed");
        assert_eq!(
            name(Currency::Ngn, Fund, Complete),
            "naira_card_credit_event.successful"
        );
        assert_eq!(name(Currency::Ngn, Fund, Reverse), "naira_card_credit_event.failed");
        assert_eq!(
            name(Currency::Ngn, Unload, Complete),
            "naira_card_unload_event.successful"
        );
        assert_eq!(name(Currency::Ngn, Unload, Reverse), "naira_card_credit_event.failed");
        let names: std::collections::HashSet<_> = [Currency::Usd, Currency::Ngn]
            .into_iter()
            .flat_map(|c| [Fund, Unload].map(|k| (c, k)))
            .flat_map(|(c, k)| [Complete, Reverse].map(|s| name(c, k, s)))
            .collect();
        assert!(names.iter().all(|n| super::super::ALL.contains(n)));
    }
}

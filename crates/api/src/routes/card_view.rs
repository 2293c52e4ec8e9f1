//! The Card object as the API shows it. On the base address the number,
//! CVV and expiry are sealed strings (`sealed:<base64>`, opaque to the
//! client, sealed under the transport key); only the relay address shows
//! them in clear, in single cards and lists alike.

use app::cards::{Details, ShownCard, ShownDetails};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use domain::cards::{BILLING_ADDRESS, CardBalance, CardBrand};
use ports::cards::CardRecord;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Serialize, ToSchema)]
pub struct BillingAddress {
    billing_address1: &'static str,
    billing_city: &'static str,
    billing_country: &'static str,
    billing_zip_code: &'static str,
    country_code: &'static str,
    /// Single-card details only.
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'static str>,
    /// Single-card details only.
    #[serde(skip_serializing_if = "Option::is_none")]
    state_code: Option<&'static str>,
}

#[derive(Serialize, ToSchema)]
pub struct CardView {
    card_id: String,
    cardholder_id: String,
    #[schema(example = "Mastercard")]
    brand: &'static str,
    #[schema(example = "USD")]
    card_currency: &'static str,
    /// virtual or physical
    card_type: &'static str,
    card_name: String,
    /// Sealed on the base address; in clear on the relay.
    card_number: String,
    cvv: String,
    expiry_month: String,
    expiry_year: String,
    last_4: String,
    billing_address: BillingAddress,
    created_at: i64,
    /// false once frozen.
    is_active: bool,
    is_deleted: bool,
    issuing_app_id: String,
    livemode: bool,
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    meta_data: Option<serde_json::Value>,
    /// All money on the card, the held maintenance fee included (cents).
    balance: String,
    /// Single-card details only, like the fields below.
    #[serde(skip_serializing_if = "Option::is_none")]
    available_balance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    book_balance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocked_due_to_fraud: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pin_3ds_activated: Option<bool>,
}

fn sealed(bytes: &[u8]) -> String {
    format!("sealed:{}", BASE64.encode(bytes))
}

fn strings(details: ShownDetails) -> Details<String> {
    match details {
        ShownDetails::Sealed(d) => Details {
            card_number: sealed(&d.card_number),
            cvv: sealed(&d.cvv),
            expiry_month: sealed(&d.expiry_month),
            expiry_year: sealed(&d.expiry_year),
        },
        ShownDetails::Clear(d) => Details {
            card_number: d.card_number.expose().clone(),
            cvv: d.cvv.expose().clone(),
            expiry_month: d.expiry_month.expose().clone(),
            expiry_year: d.expiry_year.expose().clone(),
        },
    }
}

impl CardView {
    /// The reduced object of list endpoints.
    pub fn listed((card, details, brand): ShownCard) -> Self {
        Self::new(card, brand, strings(details), false)
    }

    /// Single-card details.
    pub fn single((card, details, brand): ShownCard) -> Self {
        Self::new(card, brand, strings(details), true)
    }

    fn new(card: CardRecord, brand: CardBrand, details: Details<String>, single: bool) -> Self {
        let Details {
            card_number,
            cvv,
            expiry_month,
            expiry_year,
        } = details;
        let balance = CardBalance::new(card.balance, card.held, card.fee_hold);
        let single_only = |v: String| single.then_some(v);
        CardView {
            card_id: card.id.to_string(),
            cardholder_id: card.cardholder_id.to_string(),
            brand: brand.as_str(),
            card_currency: card.currency.code(),
            card_type: card.card_type.as_str(),
            card_name: card.name,
            card_number,
            cvv,
            expiry_month,
            expiry_year,
            last_4: card.last_4,
            billing_address: BillingAddress {
                billing_address1: BILLING_ADDRESS.address1,
                billing_city: BILLING_ADDRESS.city,
                billing_country: BILLING_ADDRESS.country,
                billing_zip_code: BILLING_ADDRESS.zip_code,
                country_code: BILLING_ADDRESS.country_code,
                state: single.then_some(BILLING_ADDRESS.state),
                state_code: single.then_some(BILLING_ADDRESS.state_code),
            },
            created_at: card.created_at.unix(),
            is_active: card.state.is_active(),
            is_deleted: card.state.is_deleted(),
            issuing_app_id: card.account_id.to_string(),
            livemode: card.mode.is_live(),
            meta_data: card.meta_data.and_then(|m| serde_json::from_str(&m).ok()),
            balance: balance.balance.to_string(),
            available_balance: single_only(balance.available.to_string()),
            book_balance: single_only(balance.balance.to_string()),
            // The service never blocks a card for fraud (see CardState).
            blocked_due_to_fraud: single.then_some(false),
            pin_3ds_activated: single.then_some(card.pin_3ds_activated),
        }
    }
}

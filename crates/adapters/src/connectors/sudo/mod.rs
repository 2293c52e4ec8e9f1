//! Sudo Africa, the card processor, with a gateway funding source: Sudo
//! keeps the cards (numbers and CVVs in its vault), and asks this service
//! to approve each authorization and to tell each card's balance, so the
//! money and the ledger stay here. A funding or unloading moves money in
//! our ledger only: the processor step is a no-op. docs/connectors.md
//! says which of Sudo's pages each call follows.

mod books;
#[cfg(any(test, feature = "test-support"))]
pub mod fake;
pub mod gateway;
#[cfg(test)]
mod tests;

use crate::connectors::http::{CallError, ProviderHttp, no_message};
use domain::cards::{CardBrand, CardType};
use domain::ids::CardId;
use domain::{Amount, Currency, Mode, Secret, Timestamp};
use ports::card_network::{
    BookedAuthorization, Books, CardNetwork, CardToIssue, IssuedCard, NetworkCardState, NetworkDecline,
    NetworkUnavailable, PinChange, PinSwap, ProcessorCard, VaultedDetails,
};
use ports::cardholders::CardholderRecord;
use reqwest::Method;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::time::Duration;

pub const PRODUCTION_URL: &str = "https://api.sudo.africa";
pub const SANDBOX_URL: &str = "https://api.sandbox.sudo.cards";
pub const PRODUCTION_VAULT_URL: &str = "https://vault.sudo.cards";
pub const SANDBOX_VAULT_URL: &str = "https://vault.sandbox.sudo.cards";

/// A card-management call is made while a client waits for its answer.
const TIMEOUT: Duration = Duration::from_secs(10);

pub struct SudoSettings {
    pub api_url: String,
    pub vault_url: String,
    pub api_key: Secret<String>,
    /// The gateway funding source every card is issued on.
    pub funding_source: String,
    /// The account Sudo credits a cancelled card's balance to (its Update
    /// Card reference requires one with `status: canceled`).
    pub credit_account: String,
}

/// The connector for one mode.
pub struct Sudo {
    http: ProviderHttp,
    vault: ProviderHttp,
    api_key: Secret<String>,
    funding_source: String,
    credit_account: String,
}

/// Sudo's answer envelope: `{statusCode, message, data}`.
#[derive(Deserialize)]
struct Envelope<T> {
    data: T,
}

#[derive(Deserialize)]
struct Created {
    #[serde(rename = "_id")]
    id: String,
}

/// The key a card is made under, in its `metadata` (Sudo's reference:
/// "structured information on an object ... key-value pairs").
const KEY_FIELD: &str = "issuing_creation_key";

/// The cardholder a customer is made for, in its `metadata` (the Customer
/// Object shows `metadata`; the Create Customer body lists none, and Sudo
/// keeps what it is sent: docs/connectors.md).
const CARDHOLDER_FIELD: &str = "issuing_cardholder_id";

#[derive(Deserialize)]
struct SudoCard {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "maskedPan", default)]
    masked_pan: String,
    #[serde(rename = "expiryMonth", default)]
    expiry_month: Value,
    #[serde(rename = "expiryYear", default)]
    expiry_year: Value,
    status: Option<String>,
}

impl SudoCard {
    /// What is kept of a card Sudo made.
    fn kept(&self) -> Result<ProcessorCard, NetworkUnavailable> {
        let unreadable = |what: &str| NetworkUnavailable(format!("Sudo answered a card with an unreadable {what}"));
        let last_4 = self
            .masked_pan
            .get(self.masked_pan.len().saturating_sub(4)..)
            .filter(|l| l.len() == 4 && l.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| unreadable("maskedPan"))?;
        Ok(ProcessorCard {
            last_4: last_4.to_string(),
            expiry_month: month(&self.expiry_month).ok_or_else(|| unreadable("expiryMonth"))?,
            expiry_year: year(&self.expiry_year).ok_or_else(|| unreadable("expiryYear"))?,
            card: segment(&self.id)?.to_string(),
        })
    }
}

#[derive(Deserialize)]
struct Token {
    token: String,
}

/// Sudo's words in an error body: `message` is a string, or (its
/// validation errors) a list of strings or of objects with `constraints`.
fn error_message(body: &Value) -> Option<String> {
    let message = body.get("message")?;
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o
            .get("constraints")
            .and_then(Value::as_object)
            .map(|c| c.values().filter_map(Value::as_str).collect::<Vec<_>>().join("; ")),
        _ => None,
    };
    match message {
        Value::Array(items) => Some(items.iter().filter_map(text).collect::<Vec<_>>().join("; ")),
        other => text(other),
    }
}

/// Sudo's number written as digits only (`"09"`, `9`).
fn digits(value: &Value) -> Option<String> {
    let text = (value.as_u64().map(|n| n.to_string())).or_else(|| value.as_str().map(str::to_string))?;
    (!text.is_empty() && text.len() <= 4 && text.bytes().all(|b| b.is_ascii_digit())).then_some(text)
}

/// Two digits, from Sudo's `"9"`, `"09"` or `9`.
fn month(value: &Value) -> Option<String> {
    let n: u32 = digits(value)?.parse().ok()?;
    (1..=12).contains(&n).then(|| format!("{n:02}"))
}

/// Four digits, from Sudo's `"2029"`, `"29"` or `2029` (both appear in its
/// samples).
fn year(value: &Value) -> Option<String> {
    let text = digits(value)?;
    match text.len() {
        2 => Some(format!("20{text}")),
        4 if text.starts_with("20") => Some(text),
        _ => None,
    }
}

/// An object's `metadata`, whether Sudo answers it as an object or as
/// its JSON text.
fn metadata(object: &Value) -> Value {
    match &object["metadata"] {
        Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        other => other.clone(),
    }
}

fn unavailable(e: CallError) -> NetworkUnavailable {
    NetworkUnavailable(e.to_string())
}

impl Sudo {
    pub fn new(settings: SudoSettings) -> Result<Self, String> {
        Ok(Self {
            http: ProviderHttp::new("Sudo", &settings.api_url, TIMEOUT)?,
            vault: ProviderHttp::new("Sudo's vault", &settings.vault_url, TIMEOUT)?,
            api_key: settings.api_key,
            funding_source: settings.funding_source,
            credit_account: settings.credit_account,
        })
    }

    async fn call<T: DeserializeOwned>(&self, method: Method, path: &str, body: Option<Value>) -> Result<T, CallError> {
        self.call_with(method, path, body, error_message).await
    }

    /// [`Sudo::call`], Sudo's words found by `message` (or, with
    /// [`no_message`], never repeated).
    async fn call_with<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        message: fn(&Value) -> Option<String>,
    ) -> Result<T, CallError> {
        let auth = format!("Bearer {}", self.api_key.expose());
        let answer: Envelope<T> = self
            .http
            .call(method, path, &[("authorization", &auth)], body.as_ref(), message)
            .await?;
        Ok(answer.data)
    }

    /// The customer's card an earlier attempt made under `key` and never
    /// cancelled (its answer lost on the way: a timeout), if any. Sudo's
    /// pages show `metadata` as an object and as a string of one: both
    /// are read.
    async fn made_under(&self, customer: &str, key: &str) -> Result<Option<SudoCard>, NetworkUnavailable> {
        let path = format!("/cards/customer/{}", segment(customer)?);
        let made = self
            .every_page(&path, "", |card: &Value| {
                let usable = card["status"] != "canceled" && metadata(card)[KEY_FIELD] == key;
                // Every card is read; only a usable one is kept.
                Some(
                    usable
                        .then(|| serde_json::from_value::<SudoCard>(card.clone()).ok())
                        .flatten(),
                )
            })
            .await?;
        Ok(made.into_iter().flatten().next())
    }

    /// The customer an earlier attempt made for `cardholder`, if Sudo
    /// lists one (`GET /customers`, every page).
    async fn customer_made_for(&self, cardholder: &str) -> Result<Option<String>, NetworkUnavailable> {
        let made = self
            .every_page("/customers", "", |customer: &Value| {
                let ours = metadata(customer)[CARDHOLDER_FIELD] == cardholder;
                Some(ours.then(|| customer["_id"].as_str().map(str::to_string)).flatten())
            })
            .await?;
        Ok(made.into_iter().flatten().next())
    }

    /// One of a card's secure data from the vault, with a card token.
    async fn secure(&self, card: &str, token: &str, what: &str) -> Result<Secret<String>, NetworkUnavailable> {
        let auth = format!("Bearer {token}");
        let path = format!("/cards/{card}/secure-data/{what}");
        let answer: Envelope<Value> = self
            .vault
            .call(Method::GET, &path, &[("authorization", &auth)], None, no_message)
            .await
            .map_err(unavailable)?;
        let value = answer.data.get(what).and_then(Value::as_str).map(str::to_string);
        value
            .map(Secret::new)
            .ok_or_else(|| NetworkUnavailable(format!("Sudo's vault answered no {what}")))
    }
}

/// A path segment: Sudo's ids are hex, never anything a path would read.
fn segment(id: &str) -> Result<&str, NetworkUnavailable> {
    let ok =
        !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then_some(id)
        .ok_or_else(|| NetworkUnavailable("a processor card id that is not Sudo's".into()))
}

#[async_trait::async_trait]
impl CardNetwork for Sudo {
    fn keeps_customers(&self, _mode: Mode) -> bool {
        true
    }

    /// Sudo's `POST /cards` links a physical card by its number, which
    /// activation does not carry.
    fn issues_physical(&self, _mode: Mode) -> bool {
        false
    }

    /// Naira cards on Verve, dollar cards on Mastercard (Sudo's Create
    /// Card: `brand` Verve, MasterCard, Visa or AfriGo).
    fn brand(&self, _mode: Mode, currency: Currency) -> CardBrand {
        match currency {
            Currency::Ngn => CardBrand::Verve,
            Currency::Usd => CardBrand::Mastercard,
        }
    }

    async fn create_customer(&self, _mode: Mode, cardholder: &CardholderRecord) -> Result<String, NetworkUnavailable> {
        let r = &cardholder.registration;
        let identity = &r.identity;
        let mut individual = json!({ "firstName": r.first_name, "lastName": r.last_name });
        if let Some(dob) = identity.date_of_birth {
            individual["dob"] = json!(dob.format("%Y/%m/%d").to_string());
        }
        if let Some(bvn) = &identity.bvn {
            individual["identity"] = json!({ "type": "BVN", "number": bvn });
        }
        let address = &r.address;
        let mut body = json!({
            "type": "individual",
            "name": format!("{} {}", r.first_name, r.last_name),
            "phoneNumber": r.phone,
            "status": "active",
            "billingAddress": {
                "line1": format!("{} {}", address.house_no, address.address),
                "city": address.city,
                "state": address.state,
                "postalCode": address.postal_code,
                "country": address.country.iso(),
            },
            "individual": individual,
        });
        if let Some(email) = &r.email_address {
            body["emailAddress"] = json!(email);
        }
        body["metadata"] = json!({ CARDHOLDER_FIELD: cardholder.id.as_str() });
        match self.call::<Created>(Method::POST, "/customers", Some(body)).await {
            Ok(created) => Ok(created.id),
            // No answer, or a failing one: Sudo may have made it all the
            // same. Only a customer found is taken; else the call failed.
            Err(e @ CallError::Unavailable(_)) => match self.customer_made_for(cardholder.id.as_str()).await {
                Ok(Some(made)) => Ok(made),
                _ => Err(unavailable(e)),
            },
            Err(e) => Err(unavailable(e)),
        }
    }

    async fn issue<'a>(&self, mode: Mode, card: CardToIssue<'a>) -> Result<IssuedCard, NetworkUnavailable> {
        let customer = card
            .customer
            .ok_or_else(|| NetworkUnavailable("Sudo issues cards to its customers only".into()))?;
        if card.card_type == CardType::Physical {
            return Err(NetworkUnavailable("Sudo issues no physical card here".into()));
        }
        let brand = match self.brand(mode, card.currency) {
            CardBrand::Verve => "Verve",
            CardBrand::Mastercard => "MasterCard",
        };
        let issuer_country = match card.currency {
            Currency::Ngn => "NGA",
            Currency::Usd => "USA",
        };
        let made_before = match card.key {
            Some(key) => self.made_under(customer, key).await?,
            None => None,
        };
        let issued = match made_before {
            Some(card) => card,
            None => {
                let mut body = json!({
                    "customerId": customer,
                    "fundingSourceId": self.funding_source,
                    "type": "virtual",
                    "brand": brand,
                    "currency": card.currency.code(),
                    "issuerCountry": issuer_country,
                    "status": "active",
                });
                if let Some(key) = card.key {
                    body["metadata"] = json!({ KEY_FIELD: key });
                }
                self.call(Method::POST, "/cards", Some(body))
                    .await
                    .map_err(unavailable)?
            }
        };
        match issued.kept() {
            Ok(kept) => Ok(IssuedCard::AtProcessor(kept)),
            Err(unreadable) => {
                // Made there, unusable here: none may stay usable there.
                if segment(&issued.id).is_ok() {
                    let _ = self.set_state(mode, &issued.id, NetworkCardState::Terminated).await;
                }
                Err(unreadable)
            }
        }
    }

    /// The money is in our ledger; Sudo asks for it at authorization.
    async fn load(&self, _mode: Mode, _card: &CardId, _amount: Amount) -> Result<(), NetworkDecline> {
        Ok(())
    }

    /// As [`Sudo::load`].
    async fn unload(&self, _mode: Mode, _card: &CardId, _amount: Amount) -> Result<(), NetworkDecline> {
        Ok(())
    }

    async fn set_state(&self, _mode: Mode, card: &str, state: NetworkCardState) -> Result<(), NetworkUnavailable> {
        let body = match state {
            NetworkCardState::Active => json!({ "status": "active" }),
            NetworkCardState::Frozen => json!({ "status": "inactive" }),
            // Sudo's only reasons are `lost` and `stolen`; a card closed by
            // its issuer is neither, and `lost` blocks it the same way.
            NetworkCardState::Terminated => json!({
                "status": "canceled",
                "cancellationReason": "lost",
                "creditAccountId": self.credit_account,
            }),
        };
        let path = format!("/cards/{}", segment(card)?);
        self.call::<Value>(Method::PUT, &path, Some(body))
            .await
            .map(|_| ())
            .map_err(unavailable)
    }

    /// Sudo changes the PINs of Verve and AfriGo cards only (its PIN page
    /// says Verve in one version, both in another), from the old PIN: the
    /// default one is read from the vault.
    async fn change_pin<'a>(
        &self,
        _mode: Mode,
        card: &str,
        pins: PinSwap<'a>,
    ) -> Result<PinChange, NetworkUnavailable> {
        let card = segment(card)?;
        let path = format!("/cards/{card}");
        let kept: Value = self.call(Method::GET, &path, None).await.map_err(unavailable)?;
        if !matches!(kept["brand"].as_str(), Some("Verve" | "AfriGo")) {
            return Ok(PinChange::NotSupported);
        }
        let old = match pins.old {
            Some(old) => Secret::new(old.expose().to_string()),
            None => {
                let token: Token = self
                    .call(Method::GET, &format!("{path}/token"), None)
                    .await
                    .map_err(unavailable)?;
                self.secure(card, &token.token, "defaultPin").await?
            }
        };
        let body = json!({ "oldPin": old.expose(), "newPin": pins.new.expose() });
        // Sudo's words are not repeated: they could quote a PIN.
        self.call_with::<Value>(Method::PUT, &format!("{path}/pin"), Some(body), no_message)
            .await
            .map_err(unavailable)?;
        Ok(PinChange::Changed)
    }

    async fn reveal(&self, _mode: Mode, card: &str) -> Result<VaultedDetails, NetworkUnavailable> {
        let card = segment(card)?;
        let path = format!("/cards/{card}/token");
        let token: Token = self.call(Method::GET, &path, None).await.map_err(unavailable)?;
        Ok(VaultedDetails {
            pan: self.secure(card, &token.token, "number").await?,
            cvv: self.secure(card, &token.token, "cvv2").await?,
        })
    }

    async fn state(&self, _mode: Mode, card: &str) -> Result<Option<NetworkCardState>, NetworkUnavailable> {
        let path = format!("/cards/{}", segment(card)?);
        let card = match self.call::<SudoCard>(Method::GET, &path, None).await {
            Ok(card) => card,
            Err(CallError::Refused { status: 404, .. }) => return Ok(None),
            Err(e) => return Err(unavailable(e)),
        };
        match card.status.as_deref() {
            Some("active") => Ok(Some(NetworkCardState::Active)),
            Some("inactive") => Ok(Some(NetworkCardState::Frozen)),
            Some("canceled") => Ok(Some(NetworkCardState::Terminated)),
            _ => Err(NetworkUnavailable(
                "Sudo answered a card status this connector does not know".into(),
            )),
        }
    }

    async fn books(&self, _mode: Mode, from: Timestamp, to: Timestamp) -> Result<Option<Books>, NetworkUnavailable> {
        self.read_books(from, to).await.map(Some)
    }

    async fn booked(
        &self,
        _mode: Mode,
        authorization: &str,
    ) -> Result<Option<BookedAuthorization>, NetworkUnavailable> {
        self.read_booked(authorization).await
    }
}

//! Sudo's gateway funding source calls `POST /v1/connectors/sudo/gateway`
//! for each authorization (`authorization.request`) and balance enquiry
//! (`card.balance`), with the `authorizationHeader` registered on the
//! funding source as its `Authorization` header, and waits 4 seconds for
//! the answer. Amounts are in major units with decimals (`25.375`).

use domain::{Amount, Currency, InvalidInput, Mode, Secret};
use ports::processor_gateway::{GatewayAnswer, GatewayAuthorization, GatewayCall, GatewayRefused, ProcessorGateway};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use subtle::ConstantTimeEq;

/// What Sudo must present on gateway calls, per mode: the funding
/// source's `authorizationHeader`, as registered (`Bearer <secret>`) or
/// bare.
pub struct SudoGateway {
    pub live: Option<Secret<String>>,
    pub test: Option<Secret<String>>,
}

#[derive(Serialize)]
struct Reply<'a> {
    #[serde(rename = "statusCode")]
    status_code: u16,
    #[serde(rename = "responseCode")]
    response_code: &'a str,
    data: ReplyData<'a>,
}

#[derive(Serialize)]
struct ReplyData<'a> {
    #[serde(rename = "responseCode")]
    response_code: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    balance: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct Call {
    #[serde(rename = "type")]
    kind: String,
    data: Data,
}

#[derive(Deserialize)]
struct Data {
    object: Box<RawValue>,
}

#[derive(Deserialize)]
struct Authorization {
    #[serde(rename = "_id")]
    id: String,
    card: Value,
    #[serde(rename = "pendingRequest")]
    pending_request: PendingRequest,
    #[serde(default)]
    merchant: Merchant,
}

#[derive(Deserialize)]
struct PendingRequest {
    amount: Box<RawValue>,
    currency: String,
}

#[derive(Deserialize, Default)]
struct Merchant {
    category: Option<String>,
    name: Option<String>,
    city: Option<String>,
    country: Option<String>,
}

#[derive(Deserialize)]
struct Card {
    #[serde(rename = "_id")]
    id: String,
}

fn invalid(field: &str, rule: &str) -> InvalidInput {
    InvalidInput::new(field, rule)
}

/// A card as Sudo names it in a payload: its id, or the card object.
fn card_id(card: &Value) -> Option<String> {
    match card {
        Value::String(id) => Some(id.clone()),
        Value::Object(o) => o.get("_id")?.as_str().map(str::to_string),
        _ => None,
    }
}

/// The ISO 8583 response code Sudo is answered for a decline reason.
pub fn response_code(reason: &str) -> &'static str {
    match reason {
        "insufficient_balance" | "negative_balance" => "51",
        "monthly_limit_exceeded" => "61",
        "card_frozen" => "62",
        "card_deleted" | "card_not_found" => "14",
        "invalid_amount" => "13",
        _ => "05",
    }
}

impl SudoGateway {
    fn secrets(&self) -> impl Iterator<Item = (Mode, &Secret<String>)> {
        [(Mode::Live, &self.live), (Mode::Test, &self.test)]
            .into_iter()
            .filter_map(|(mode, secret)| secret.as_ref().map(|s| (mode, s)))
    }
}

impl ProcessorGateway for SudoGateway {
    fn authenticate(&self, authorization: Option<&str>) -> Result<Mode, GatewayRefused> {
        if self.secrets().next().is_none() {
            return Err(GatewayRefused::Disabled);
        }
        let given = authorization.unwrap_or_default().as_bytes();
        let mut found = None;
        // Every secret is compared, each in constant time.
        for (mode, secret) in self.secrets() {
            let bare = secret.expose().as_bytes();
            let bearer = format!("Bearer {}", secret.expose());
            let matches = given.ct_eq(bare) | given.ct_eq(bearer.as_bytes());
            if bool::from(matches) && !given.is_empty() {
                found = Some(mode);
            }
        }
        found.ok_or(GatewayRefused::BadCredential)
    }

    fn read(&self, body: &[u8]) -> Result<GatewayCall, InvalidInput> {
        let call: Call = serde_json::from_slice(body)
            .map_err(|_| invalid("body", "must be Sudo's event: {type, data: {object}}"))?;
        match call.kind.as_str() {
            "authorization.request" => {
                let auth: Authorization = serde_json::from_str(call.data.object.get()).map_err(|_| {
                    invalid(
                        "data.object",
                        "must be an authorization with _id, card and pendingRequest",
                    )
                })?;
                let currency = Currency::parse("data.object.pendingRequest.currency", &auth.pending_request.currency)?;
                let amount = auth.pending_request.amount.get().trim_matches('"');
                let amount = Amount::from_major_rounded_up(amount).ok_or_else(|| {
                    invalid(
                        "data.object.pendingRequest.amount",
                        "must be a non-negative amount in major units, at most 10000000000000",
                    )
                })?;
                let card = card_id(&auth.card).ok_or_else(|| invalid("data.object.card", "must name the card"))?;
                let merchant = &auth.merchant;
                let name = merchant.name.as_deref().unwrap_or("Card transaction");
                let place = [merchant.city.as_deref(), merchant.country.as_deref()];
                let place: Vec<&str> = place.into_iter().flatten().filter(|p| !p.is_empty()).collect();
                let descriptor = match place.is_empty() {
                    true => name.to_string(),
                    false => format!("{name} {}", place.join(" ")),
                };
                Ok(GatewayCall::Authorization(GatewayAuthorization {
                    id: auth.id,
                    card,
                    amount,
                    currency,
                    merchant: descriptor,
                    merchant_category_code: merchant.category.clone(),
                }))
            }
            "card.balance" => {
                let card: Card = serde_json::from_str(call.data.object.get())
                    .map_err(|_| invalid("data.object", "must be the card, with its _id"))?;
                Ok(GatewayCall::Balance { card: card.id })
            }
            _ => Ok(GatewayCall::Other),
        }
    }

    /// Sudo's pages disagree on where `responseCode` goes (top level on
    /// the real-time authorization page, under `data` on the webhook
    /// page): it goes in both.
    fn reply(&self, answer: &GatewayAnswer) -> (u16, Vec<u8>) {
        let (status, code, balance) = match answer {
            GatewayAnswer::Approved | GatewayAnswer::Acknowledged => (200, "00", None),
            GatewayAnswer::Declined(reason) => (400, response_code(reason), None),
            GatewayAnswer::Balance(amount) => (200, "00", Some(*amount)),
        };
        let reply = Reply {
            status_code: status,
            response_code: code,
            data: ReplyData {
                response_code: code,
                // A JSON number with exactly two decimals, never a float's.
                balance: balance.and_then(|b| RawValue::from_string(b.major_text()).ok()),
            },
        };
        (status, serde_json::to_vec(&reply).unwrap_or_default())
    }
}

//! Sudo's gateway funding source calls `POST /v1/connectors/sudo/gateway`
//! for each authorization (`authorization.request`) and balance enquiry
//! (`card.balance`), with the `authorizationHeader` registered on the
//! funding source as its `Authorization` header, and waits 4 seconds for
//! the answer. Its events are taken there too, with the same header:
//! `transaction.refund` and `authorization.declined` give money back,
//! `transaction.created` reports the capture of an approval,
//! `card.terminated` ends a card Sudo closed; any other is acknowledged. Amounts are in major units with decimals
//! (`25.375`).

use domain::cards::reversal::ReversalKind;
use domain::cards::spending_controls::{Channel, Country};
use domain::{Amount, Currency, InvalidInput, Mode, Secret, text};
use ports::processor_gateway::{
    GatewayAnswer, GatewayAuthorization, GatewayCall, GatewayCapture, GatewayGiveBack, GatewayRefused, ProcessorGateway,
};
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

/// An event as Sudo posts it. Its pages disagree on the shape: most put
/// the object under `data.object`, the card termination page puts it in
/// `data` itself, and some examples show no top-level `type` (the object's
/// own `type` then tells a refund or a capture). Every form is taken.
#[derive(Deserialize)]
struct Call {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    data: Box<RawValue>,
}

#[derive(Deserialize)]
struct Data {
    object: Option<Box<RawValue>>,
}

/// What an object says of itself when the event does not.
#[derive(Deserialize)]
struct Peek {
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

/// A transaction: a refund (`transaction.refund`, of `type` refund) or a
/// capture (`transaction.created`, of `type` capture, its amount written
/// negative), its amounts in major units, naming its authorization (the
/// capture page's example names none, `null`, and may carry no `_id`).
#[derive(Deserialize)]
struct Transaction {
    #[serde(rename = "_id", default)]
    id: Option<String>,
    #[serde(default)]
    card: Value,
    #[serde(default)]
    authorization: Value,
    amount: Option<Box<RawValue>>,
    currency: Option<String>,
}

#[derive(Deserialize)]
struct Authorization {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default)]
    card: Value,
    #[serde(rename = "pendingRequest", default)]
    pending_request: Option<PendingRequest>,
    #[serde(default)]
    merchant: Value,
    /// Where the card was used: `web`, `pos` or `atm` (the channels of
    /// Sudo's simulate-authorization page), said here or in
    /// `transactionMetadata`.
    #[serde(default)]
    channel: Value,
    #[serde(rename = "transactionMetadata", default)]
    transaction_metadata: Value,
}

/// A channel as Sudo names it (its card controls also name `mobile`, an
/// online channel), in the engine's terms; another is unknown.
fn channel(auth: &Authorization) -> Option<Channel> {
    let named = auth
        .channel
        .as_str()
        .or(auth.transaction_metadata["channel"].as_str())?;
    match named.to_ascii_lowercase().as_str() {
        "web" | "mobile" | "online" => Some(Channel::Online),
        "pos" => Some(Channel::Pos),
        "atm" => Some(Channel::Atm),
        "contactless" => Some(Channel::Contactless),
        _ => None,
    }
}

/// The amount is read as written, never through a float.
#[derive(Deserialize)]
struct PendingRequest {
    amount: Option<Box<RawValue>>,
    currency: Option<String>,
}

#[derive(Deserialize)]
struct Card {
    #[serde(rename = "_id")]
    id: String,
}

fn invalid(field: &str, rule: &str) -> InvalidInput {
    InvalidInput::new(field, rule)
}

/// An object as Sudo names it in a payload (a card, an authorization):
/// its id, or the object.
pub(super) fn object_id(object: &Value) -> Option<String> {
    let id = match object {
        Value::String(id) => Some(id.clone()),
        Value::Object(o) => o.get("_id")?.as_str().map(str::to_string),
        _ => None,
    };
    // A control character (a NUL, which PostgreSQL's text refuses) names
    // nothing here: the call is answered as of an unknown card.
    id.filter(|id| text::reference(id).is_ok())
}

/// The ISO 8583 response code Sudo is answered for a decline reason.
pub fn response_code(reason: &str) -> &'static str {
    match reason {
        "insufficient_balance" | "negative_balance" => "51",
        "monthly_limit_exceeded" => "61",
        "card_frozen" => "62",
        // Transaction not permitted to the cardholder; over a limit.
        "spending_control_category" | "spending_control_channel" | "spending_control_country" => "57",
        limit if limit.starts_with("spending_control_limit_") => "61",
        "card_deleted" | "card_not_found" => "14",
        "invalid_amount" => "13",
        ports::processor_gateway::ISSUER_UNAVAILABLE => "91",
        _ => "05",
    }
}

/// The longest merchant descriptor kept, as the processor endpoint's.
const MERCHANT_CHARS: usize = 200;

/// An authorization as the engine takes it, or why it cannot be: Sudo's
/// data is taken as it comes (a merchant's name with a tab, a numeric
/// category, no merchant at all), never refused for its form.
fn authorization(auth: Authorization) -> GatewayCall {
    if text::reference(&auth.id).is_err() {
        return GatewayCall::Unusable("invalid_reference");
    }
    let Some(card) = object_id(&auth.card) else {
        return GatewayCall::Unusable("card_not_found");
    };
    let channel = channel(&auth);
    let Some(pending) = auth.pending_request else {
        return GatewayCall::Unusable("invalid_amount");
    };
    let currency = pending
        .currency
        .as_deref()
        .and_then(|c| Currency::parse("currency", c).ok());
    let Some(currency) = currency else {
        return GatewayCall::Unusable("currency_mismatch");
    };
    // A number as written, or a string holding one.
    let written = pending.amount.as_ref().map(|raw| raw.get().trim_matches('"'));
    let amount = written.and_then(Amount::from_major_rounded_up);
    let Some(amount) = amount.filter(|a| *a > Amount::ZERO) else {
        return GatewayCall::Unusable("invalid_amount");
    };
    let merchant = &auth.merchant;
    let merchant_country = merchant["country"]
        .as_str()
        .and_then(|c| Country::parse("country", c.trim()).ok());
    let text = |field: &str| {
        merchant[field]
            .as_str()
            .and_then(|t| text::printable(t, MERCHANT_CHARS))
    };
    let place: Vec<String> = ["city", "country"].into_iter().filter_map(text).collect();
    let name = text("name").unwrap_or_else(|| "Card transaction".into());
    let descriptor = std::iter::once(name).chain(place).collect::<Vec<_>>().join(" ");
    let category = match &merchant["category"] {
        Value::String(code) => Some(code.clone()),
        Value::Number(code) => Some(format!("{code:0>4}")),
        _ => None,
    };
    GatewayCall::Authorization(GatewayAuthorization {
        id: auth.id,
        card,
        amount,
        currency,
        merchant: text::printable(&descriptor, MERCHANT_CHARS).unwrap_or_else(|| "Card transaction".into()),
        merchant_category_code: category.filter(|c| c.len() == 4 && c.bytes().all(|b| b.is_ascii_digit())),
        channel,
        merchant_country,
    })
}

/// A refund as the engine takes it: its amount rounded up to the minor
/// unit as an authorization's is, so a refund of all of one gives back
/// exactly what it took (and never more: the store bounds it by the
/// debit).
fn give_back(refund: Transaction) -> Result<GatewayGiveBack, InvalidInput> {
    let field = |name: &str, rule: &str| invalid(&format!("data.object.{name}"), rule);
    let id = |name: &str, value: Option<String>| {
        value
            .filter(|v| text::reference(v).is_ok())
            .ok_or_else(|| field(name, "must be Sudo's id: printable, at most 100 characters"))
    };
    let card = id("card", object_id(&refund.card))?;
    let authorization = id("authorization", object_id(&refund.authorization))?;
    let refund_id = id("_id", refund.id)?;
    let currency = refund
        .currency
        .as_deref()
        .and_then(|c| Currency::parse("currency", c).ok())
        .ok_or_else(|| field("currency", "must be NGN or USD"))?;
    let written = refund.amount.as_ref().map(|raw| raw.get().trim_matches('"'));
    let amount = written
        .and_then(Amount::from_major_rounded_up)
        .filter(|a| *a > Amount::ZERO)
        .ok_or_else(|| field("amount", "must be a positive amount within bounds, in major units"))?;
    Ok(GatewayGiveBack {
        id: refund_id,
        authorization,
        card,
        kind: ReversalKind::Refund,
        amount: Some((amount, currency)),
    })
}

/// A capture as reported, when it names a card: what it says is only
/// compared with the approval, so what cannot be read (its own id
/// included) is left out.
fn captured(capture: Transaction) -> Option<GatewayCapture> {
    let usable = |id: Option<String>| id.filter(|v| text::reference(v).is_ok());
    let currency = capture
        .currency
        .as_deref()
        .and_then(|c| Currency::parse("currency", c).ok());
    // Written negative on the capture page (money out of the card).
    let written = capture.amount.as_ref().map(|raw| raw.get().trim_matches('"'));
    let amount = written
        .map(|a| a.strip_prefix('-').unwrap_or(a))
        .and_then(Amount::from_major_rounded_up)
        .zip(currency);
    Some(GatewayCapture {
        id: usable(capture.id),
        card: usable(object_id(&capture.card))?,
        authorization: usable(object_id(&capture.authorization)),
        amount,
    })
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
        // No credential at all is refused as such, whatever is configured.
        let given = authorization.unwrap_or_default().as_bytes();
        if given.is_empty() {
            return Err(GatewayRefused::BadCredential);
        }
        if self.secrets().next().is_none() {
            return Err(GatewayRefused::Disabled);
        }
        let mut found = None;
        // Every secret is compared, each in constant time.
        for (mode, secret) in self.secrets() {
            let bare = secret.expose().as_bytes();
            let bearer = format!("Bearer {}", secret.expose());
            let matches = given.ct_eq(bare) | given.ct_eq(bearer.as_bytes());
            if bool::from(matches) {
                found = Some(mode);
            }
        }
        found.ok_or(GatewayRefused::BadCredential)
    }

    fn read(&self, body: &[u8]) -> Result<GatewayCall, InvalidInput> {
        let call: Call = serde_json::from_slice(body)
            .map_err(|_| invalid("body", "must be Sudo's event: {type, data: {object}}"))?;
        let data: Data = serde_json::from_str(call.data.get())
            .map_err(|_| invalid("data", "must be an object: Sudo's event's data"))?;
        let object = data.object.unwrap_or(call.data);
        let kind = match call.kind {
            Some(kind) => kind,
            None => {
                let peek: Peek =
                    serde_json::from_str(object.get()).map_err(|_| invalid("data.object", "must be an object"))?;
                match peek.kind.as_deref() {
                    Some("refund") => "transaction.refund".into(),
                    Some("capture") => "transaction.created".into(),
                    _ => return Err(invalid("type", "is required: Sudo's event type")),
                }
            }
        };
        let read = |what: &str| invalid("data.object", what);
        match kind.as_str() {
            "authorization.request" => {
                let auth: Authorization =
                    serde_json::from_str(object.get()).map_err(|_| read("must be an authorization with its _id"))?;
                Ok(authorization(auth))
            }
            "card.balance" => {
                let card: Card =
                    serde_json::from_str(object.get()).map_err(|_| read("must be the card, with its _id"))?;
                Ok(match text::reference(&card.id) {
                    Ok(_) => GatewayCall::Balance { card: card.id },
                    Err(_) => GatewayCall::Unusable("card_not_found"),
                })
            }
            "authorization.declined" => {
                let auth: Authorization =
                    serde_json::from_str(object.get()).map_err(|_| read("must be an authorization with its _id"))?;
                let card = object_id(&auth.card).ok_or_else(|| read("must name the authorization's card"))?;
                if text::reference(&auth.id).is_err() {
                    return Err(read("_id: must be Sudo's id: printable, at most 100 characters"));
                }
                Ok(GatewayCall::GiveBack(GatewayGiveBack {
                    id: auth.id.clone(),
                    authorization: auth.id,
                    card,
                    kind: ReversalKind::Reversal,
                    amount: None,
                }))
            }
            "transaction.refund" => {
                let refund: Transaction = serde_json::from_str(object.get())
                    .map_err(|_| read("must be a refund transaction with its _id"))?;
                Ok(GatewayCall::GiveBack(give_back(refund)?))
            }
            "transaction.created" => {
                let capture: Transaction =
                    serde_json::from_str(object.get()).map_err(|_| read("must be a transaction"))?;
                Ok(captured(capture).map_or(GatewayCall::Other, GatewayCall::Captured))
            }
            // Its page puts the card in `data` itself; a card that cannot
            // be Sudo's is none here.
            "card.terminated" => {
                let card: Option<Card> = serde_json::from_str(object.get()).ok();
                Ok(match card.filter(|c| text::reference(&c.id).is_ok()) {
                    Some(card) => GatewayCall::Terminated { card: card.id },
                    None => GatewayCall::Other,
                })
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

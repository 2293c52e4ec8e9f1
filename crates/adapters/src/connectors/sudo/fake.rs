//! A fake Sudo Africa for tests, built from its documentation: customers,
//! cards on a gateway funding source, card status, card tokens and the
//! vault's secure data. It takes the API key as `Authorization: Bearer
//! <key>` or bare (Sudo's pages show both), answers `{statusCode,
//! message, data}`, and refuses what the reference pages mark required
//! with a 400 whose `message` lists the problems, as Sudo's validation
//! does. Every card it issues is a Luhn-valid number it keeps. Its
//! books (authorizations and transactions, written by the test as Sudo
//! would have made them) are listed a page at a time as its pagination
//! page says: `page` from 0, `limit` 25 by default and at most 100, as
//! is a customer's cards (`GET /cards/customer/{id}`), each with the
//! `metadata` its creation attached. Its
//! one account is the business's settlement account
//! ([`SETTLEMENT_ACCOUNT`], as its Accounts page shows one), which a
//! cancellation must name as its `creditAccountId` (Update Card:
//! "Required for canceled status only").

use domain::cards::pan::luhn_check_digit;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The `_id` of the fake's settlement account, listed by `GET /accounts`.
pub const SETTLEMENT_ACCOUNT: &str = "61d48b0000dfcdd1184ef93d";

/// A card the fake keeps.
#[derive(Debug, Clone)]
pub struct FakeCard {
    pub customer: String,
    pub status: String,
    pub number: String,
    pub cvv2: String,
    pub currency: String,
    pub brand: String,
    /// The card's PIN, its default one (`1234`) until changed.
    pub pin: String,
    /// What the creation attached, as sent (an object, or a string).
    pub metadata: Value,
}

#[derive(Default)]
struct State {
    customers: HashMap<String, Value>,
    cards: HashMap<String, FakeCard>,
    /// Card tokens: token → card id.
    tokens: HashMap<String, String>,
    /// Its books, oldest first.
    authorizations: Vec<Value>,
    transactions: Vec<Value>,
    next: u64,
    /// Creations still to answer only after this delay (the card made
    /// first, as a timeout on the way back would leave it).
    late_creations: (u64, std::time::Duration),
}

#[derive(Clone)]
struct Sudo {
    key: String,
    funding_source: String,
    state: Arc<Mutex<State>>,
}

pub struct FakeSudo {
    pub server: MockServer,
    sudo: Sudo,
}

fn answer(status: u16, message: &str, data: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({"statusCode": status, "message": message, "data": data}))
}

fn refused(status: u16, problems: Vec<String>, error: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({"statusCode": status, "message": problems, "error": error}))
}

impl Sudo {
    fn authorized(&self, request: &Request) -> bool {
        let given = request.headers.get("authorization").and_then(|v| v.to_str().ok());
        given.is_some_and(|v| v == self.key || v.strip_prefix("Bearer ") == Some(&self.key))
    }

    fn id(&self, state: &mut State, prefix: &str) -> String {
        state.next += 1;
        format!("{prefix}{:020x}", state.next)
    }

    fn card_json(id: &str, card: &FakeCard) -> Value {
        json!({
            "_id": id,
            "customer": card.customer,
            "type": "virtual",
            "brand": card.brand,
            "currency": card.currency,
            "maskedPan": format!("{}******{}", &card.number[..6], &card.number[card.number.len() - 4..]),
            "expiryMonth": "09",
            "expiryYear": "2029",
            "status": card.status,
            "metadata": card.metadata,
        })
    }

    fn customers(&self, body: &Value) -> ResponseTemplate {
        let mut problems = vec![];
        for field in ["type", "name", "phoneNumber", "status"] {
            if !body[field].is_string() {
                problems.push(format!("{field} should not be empty"));
            }
        }
        for field in ["line1", "city", "state", "postalCode", "country"] {
            if !body["billingAddress"][field].is_string() {
                problems.push(format!("billingAddress.{field} should not be empty"));
            }
        }
        if !matches!(body["type"].as_str(), Some("individual" | "company")) {
            problems.push("type must be one of the following values: individual, company".into());
        }
        if !problems.is_empty() {
            return refused(400, problems, "Bad Request");
        }
        let mut state = self.state.lock().unwrap();
        let id = self.id(&mut state, "61e5");
        let mut customer = body.clone();
        customer["_id"] = json!(id);
        state.customers.insert(id, customer.clone());
        let created = answer(200, "Customer created successfully.", customer);
        Self::late(&mut state, created)
    }

    /// `answer`, late if the test asked the next creations to be.
    fn late(state: &mut State, answer: ResponseTemplate) -> ResponseTemplate {
        match &mut state.late_creations {
            (0, _) => answer,
            (left, delay) => {
                *left -= 1;
                answer.set_delay(*delay)
            }
        }
    }

    fn create_card(&self, body: &Value) -> ResponseTemplate {
        let mut state = self.state.lock().unwrap();
        let mut problems = vec![];
        let customer = body["customerId"].as_str().unwrap_or_default().to_string();
        if !state.customers.contains_key(&customer) {
            problems.push("customerId must be an existing customer".to_string());
        }
        if body["fundingSourceId"] != self.funding_source.as_str() {
            problems.push("fundingSourceId must be an existing funding source".into());
        }
        if body["type"] != "virtual" && body["type"] != "physical" {
            problems.push("type must be one of the following values: physical, virtual".into());
        }
        if body["type"] == "physical" && !body["number"].is_string() {
            problems.push("number is required for physical cards".into());
        }
        let brand = body["brand"].as_str().unwrap_or_default().to_string();
        if body["type"] == "virtual" && !["Verve", "MasterCard", "Visa", "AfriGo"].contains(&brand.as_str()) {
            problems.push("brand must be one of the following values: Verve, MasterCard, Visa, AfriGo".into());
        }
        let currency = body["currency"].as_str().unwrap_or_default().to_string();
        if !["NGN", "USD"].contains(&currency.as_str()) {
            problems.push("currency must be one of the following values: NGN, USD".into());
        }
        if !matches!(body["status"].as_str(), Some("active" | "inactive")) {
            problems.push("status must be one of the following values: active, inactive".into());
        }
        if !problems.is_empty() {
            return refused(400, problems, "Bad Request");
        }
        state.next += 1;
        let bin = if brand == "Verve" { "506099" } else { "539983" };
        let digits = format!("{bin}{:09}", state.next);
        let number = format!("{digits}{}", luhn_check_digit(&digits));
        let card = FakeCard {
            customer,
            status: body["status"].as_str().unwrap_or_default().into(),
            cvv2: format!("{:03}", state.next % 1000),
            number,
            currency,
            brand,
            pin: "1234".into(),
            metadata: body["metadata"].clone(),
        };
        let id = self.id(&mut state, "62a1");
        let json = Self::card_json(&id, &card);
        state.cards.insert(id, card);
        let created = answer(200, "Card created successfully.", json);
        Self::late(&mut state, created)
    }

    /// `PUT /cards/{id}/pin`: Verve and AfriGo cards, from the right old
    /// PIN, to 4 digits.
    fn change_pin(&self, id: &str, body: &Value) -> ResponseTemplate {
        let mut state = self.state.lock().unwrap();
        let Some(card) = state.cards.get_mut(id) else {
            return refused(404, vec!["Card not found.".into()], "Not Found");
        };
        let four = |v: &Value| {
            v.as_str()
                .is_some_and(|p| p.len() == 4 && p.bytes().all(|b| b.is_ascii_digit()))
        };
        if !four(&body["oldPin"]) || !four(&body["newPin"]) {
            return refused(400, vec!["oldPin and newPin must be 4 digits".into()], "Bad Request");
        }
        if !["Verve", "AfriGo"].contains(&card.brand.as_str()) {
            return refused(
                400,
                vec!["PIN change is available for Verve and AfriGo cards only.".into()],
                "Bad Request",
            );
        }
        if body["oldPin"] != card.pin.as_str() {
            return refused(400, vec!["Incorrect old pin.".into()], "Bad Request");
        }
        card.pin = body["newPin"].as_str().unwrap_or_default().into();
        answer(200, "Card pin changed successfully.", json!({}))
    }

    fn update_card(&self, id: &str, body: &Value) -> ResponseTemplate {
        let mut state = self.state.lock().unwrap();
        let Some(card) = state.cards.get_mut(id) else {
            return refused(404, vec!["Card not found.".into()], "Not Found");
        };
        let status = body["status"].as_str().unwrap_or_default();
        if !["active", "inactive", "canceled"].contains(&status) {
            return refused(
                400,
                vec!["status must be one of the following values: active, inactive, canceled".into()],
                "Bad Request",
            );
        }
        if status == "canceled" && !matches!(body["cancellationReason"].as_str(), Some("lost" | "stolen")) {
            return refused(
                400,
                vec!["cancellationReason must be one of the following values: lost, stolen".into()],
                "Bad Request",
            );
        }
        if status == "canceled" && body["creditAccountId"] != SETTLEMENT_ACCOUNT {
            return refused(
                400,
                vec!["creditAccountId must be an existing account".into()],
                "Bad Request",
            );
        }
        if card.status == "canceled" {
            return refused(400, vec!["A canceled card cannot be updated.".into()], "Bad Request");
        }
        card.status = status.into();
        answer(200, "Card updated successfully.", Self::card_json(id, card))
    }
}

/// A page of `items` as `GET` listings answer it, or the 400 of a limit
/// past 100.
fn page_of(request: &Request, items: Vec<Value>, what: &str) -> ResponseTemplate {
    let asked = |name: &str| {
        request
            .url
            .query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.parse::<usize>())
    };
    let (page, limit) = match (asked("page").unwrap_or(Ok(0)), asked("limit").unwrap_or(Ok(25))) {
        (Ok(page), Ok(limit @ 1..=100)) => (page, limit),
        _ => return refused(400, vec!["limit must not be greater than 100".into()], "Bad Request"),
    };
    let total = items.len();
    let data: Vec<Value> = items.into_iter().skip(page * limit).take(limit).collect();
    let mut body = json!({"statusCode": 200, "message": format!("{what} fetched successfully."), "data": data});
    body["pagination"] =
        json!({"total": total, "pages": total.div_ceil(limit), "page": page.to_string(), "limit": limit.to_string()});
    ResponseTemplate::new(200).set_body_json(body)
}

/// `secs` seconds ago, as Sudo writes a time (`2022-01-07T06:43:58+00:00`).
fn created_ago(secs: i64) -> String {
    let now = ports::clock::Clock::now(&crate::system::SystemClock);
    chrono::DateTime::from_timestamp(now.minus(secs).unix(), 0)
        .unwrap_or_default()
        .to_rfc3339()
}

/// Whether a booked object is of the card `id`.
fn of_card(object: &Value, id: &str) -> bool {
    object["card"] == id || object["card"]["_id"] == id
}

impl Respond for Sudo {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let path: Vec<&str> = request.url.path().trim_start_matches('/').split('/').collect();
        // The vault takes card tokens, never the API key.
        if let ["cards", id, "secure-data", what] = path.as_slice() {
            let state = self.state.lock().unwrap();
            let token = request.headers.get("authorization").and_then(|v| v.to_str().ok());
            let token = token.and_then(|t| t.strip_prefix("Bearer ")).unwrap_or_default();
            let (Some(for_card), Some(card)) = (state.tokens.get(token), state.cards.get(*id)) else {
                return refused(401, vec!["Unauthorized".into()], "Unauthorized");
            };
            if for_card != id {
                return refused(401, vec!["Unauthorized".into()], "Unauthorized");
            }
            return match *what {
                "number" => answer(200, "Card number retrieved.", json!({"number": card.number})),
                "cvv2" => answer(200, "Card cvv2 retrieved.", json!({"cvv2": card.cvv2})),
                "defaultPin" => answer(200, "Card default pin retrieved.", json!({"defaultPin": "1234"})),
                _ => refused(404, vec!["Not Found".into()], "Not Found"),
            };
        }
        if !self.authorized(request) {
            return refused(401, vec!["Unauthorized".into()], "Unauthorized");
        }
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        match (request.method.as_str(), path.as_slice()) {
            ("POST", ["customers"]) => self.customers(&body),
            ("POST", ["cards"]) => self.create_card(&body),
            ("PUT", ["cards", id]) => self.update_card(id, &body),
            ("PUT", ["cards", id, "pin"]) => self.change_pin(id, &body),
            ("GET", ["accounts"]) => {
                let settlement = json!({
                    "_id": SETTLEMENT_ACCOUNT, "type": "account", "currency": "USD",
                    "accountName": "Sudo Settlement Account", "accountType": "Current",
                    "currentBalance": 0, "availableBalance": 0, "isDefault": true,
                });
                page_of(request, vec![settlement], "Accounts")
            }
            ("GET", ["customers"]) => {
                let state = self.state.lock().unwrap();
                let mut all: Vec<(&String, &Value)> = state.customers.iter().collect();
                all.sort_by_key(|(id, _)| id.as_str());
                page_of(request, all.into_iter().map(|(_, c)| c.clone()).collect(), "Customers")
            }
            ("GET", ["cards", "customer", customer]) => {
                let state = self.state.lock().unwrap();
                let mut theirs: Vec<(&String, &FakeCard)> =
                    state.cards.iter().filter(|(_, c)| c.customer == *customer).collect();
                theirs.sort_by_key(|(id, _)| id.as_str());
                let listed = theirs.into_iter().map(|(id, c)| Self::card_json(id, c)).collect();
                page_of(request, listed, "Cards")
            }
            ("GET", ["cards", "authorizations"]) => {
                let all = self.state.lock().unwrap().authorizations.clone();
                page_of(request, all, "Authorizations")
            }
            ("GET", ["cards", "transactions"]) => {
                let all = self.state.lock().unwrap().transactions.clone();
                page_of(request, all, "Transactions")
            }
            ("GET", ["cards", "authorizations", id]) => {
                let state = self.state.lock().unwrap();
                match state.authorizations.iter().find(|a| a["_id"] == *id) {
                    Some(found) => answer(200, "Authorization fetched successfully.", found.clone()),
                    None => refused(404, vec!["Authorization not found.".into()], "Not Found"),
                }
            }
            ("GET", ["cards", id, listed @ ("authorizations" | "transactions")]) => {
                let state = self.state.lock().unwrap();
                let books = if *listed == "authorizations" {
                    &state.authorizations
                } else {
                    &state.transactions
                };
                let of_card: Vec<Value> = books.iter().filter(|o| of_card(o, id)).cloned().collect();
                page_of(request, of_card, "Card records")
            }
            ("GET", ["cards", id]) => match self.state.lock().unwrap().cards.get(*id) {
                Some(card) => answer(200, "Card fetched successfully.", Self::card_json(id, card)),
                None => refused(404, vec!["Card not found.".into()], "Not Found"),
            },
            ("GET", ["cards", id, "token"]) => {
                let mut state = self.state.lock().unwrap();
                if !state.cards.contains_key(*id) {
                    return refused(404, vec!["Card not found.".into()], "Not Found");
                }
                let token = format!("eyJhbGciOiJIUzI1NiJ9.{}.{}", id, state.next);
                state.next += 1;
                state.tokens.insert(token.clone(), id.to_string());
                answer(200, "Card token generated successfully.", json!({"token": token}))
            }
            _ => refused(
                404,
                vec![format!("Cannot {} {}", request.method, request.url.path())],
                "Not Found",
            ),
        }
    }
}

impl FakeSudo {
    /// A fake Sudo taking `api_key`, with the gateway funding source
    /// `funding_source`, on a free local port (the API and the vault).
    pub async fn start(api_key: &str, funding_source: &str) -> FakeSudo {
        let sudo = Sudo {
            key: api_key.into(),
            funding_source: funding_source.into(),
            state: Arc::default(),
        };
        let server = MockServer::start().await;
        Mock::given(path_regex("^/"))
            .respond_with(sudo.clone())
            .mount(&server)
            .await;
        FakeSudo { server, sudo }
    }

    pub fn url(&self) -> String {
        self.server.uri()
    }

    /// The next `times` calls of `verb` to paths matching `path` answer
    /// `status` (an outage, a rate limit).
    pub async fn fail(&self, verb: &str, path: &str, status: u16, times: u64) {
        Mock::given(method(verb))
            .and(path_regex(path))
            .respond_with(refused(status, vec!["Service Unavailable".into()], "Error"))
            .up_to_n_times(times)
            .with_priority(1)
            .mount(&self.server)
            .await;
    }

    /// The next `times` creations (of customers or cards) make what they
    /// make, then answer only after `delay` (longer than the connector
    /// waits: the answer is lost).
    pub fn answer_creations_late(&self, times: u64, delay: std::time::Duration) {
        self.sudo.state.lock().unwrap().late_creations = (times, delay);
    }

    pub fn card(&self, id: &str) -> Option<FakeCard> {
        self.sudo.state.lock().unwrap().cards.get(id).cloned()
    }

    pub fn customers(&self) -> usize {
        self.sudo.state.lock().unwrap().customers.len()
    }

    pub fn cards(&self) -> Vec<(String, FakeCard)> {
        let state = self.sudo.state.lock().unwrap();
        state.cards.iter().map(|(id, c)| (id.clone(), c.clone())).collect()
    }

    /// Books an authorization of the card `card` as Sudo's listing shows
    /// it: `amount` in major units, approved or not, with its `status`.
    pub fn book_authorization(&self, id: &str, card: &str, amount: &str, approved: bool, status: &str) {
        let booked = json!({
            "_id": id, "card": {"_id": card}, "approved": approved, "status": status,
            "amount": amount.parse::<f64>().unwrap_or_default(), "currency": "USD",
            "pendingRequest": {"amount": amount.parse::<f64>().unwrap_or_default(), "currency": "USD"},
            "createdAt": created_ago(0),
        });
        self.sudo.state.lock().unwrap().authorizations.push(booked);
    }

    /// Books a transaction of `kind` (`capture`, written negative, or
    /// `refund`) of `amount` major units for the authorization.
    pub fn book_transaction(&self, id: &str, card: &str, authorization: &str, kind: &str, amount: &str) {
        let signed = if kind == "capture" {
            format!("-{amount}")
        } else {
            amount.to_string()
        };
        let booked = json!({
            "_id": id, "card": card, "authorization": authorization, "type": kind,
            "amount": signed.parse::<f64>().unwrap_or_default(), "currency": "USD",
            "createdAt": created_ago(0),
        });
        self.sudo.state.lock().unwrap().transactions.push(booked);
    }

    /// Changes each booked item of id `id` (an authorization or a
    /// transaction) as Sudo's books might hold it: dated earlier, in
    /// another currency, listed twice.
    pub fn edit_booked(&self, id: &str, change: impl Fn(&mut Value)) {
        let mut state = self.sudo.state.lock().unwrap();
        let State {
            authorizations,
            transactions,
            ..
        } = &mut *state;
        authorizations
            .iter_mut()
            .chain(transactions.iter_mut())
            .filter(|item| item["_id"] == id)
            .for_each(change);
    }

    /// Dates each booked item of id `id` `secs` seconds ago.
    pub fn backdate_booked(&self, id: &str, secs: i64) {
        self.edit_booked(id, |item| item["createdAt"] = created_ago(secs).into());
    }

    /// Lists the transaction `id` once more (a listing that shifted
    /// between pages).
    pub fn list_twice(&self, id: &str) {
        let mut state = self.sudo.state.lock().unwrap();
        let again: Vec<Value> = state.transactions.iter().filter(|t| t["_id"] == id).cloned().collect();
        state.transactions.extend(again);
    }

    /// Changes a card's status behind the service's back (an operator on
    /// Sudo's dashboard), for reconciliation to find.
    pub fn set_status(&self, id: &str, status: &str) {
        if let Some(card) = self.sudo.state.lock().unwrap().cards.get_mut(id) {
            card.status = status.into();
        }
    }
}

//! A fake Smile ID for tests, built from its documentation (not from what
//! the connector sends): it checks each request's signature and the
//! fields the Enhanced KYC, async and job-status pages define, and answers
//! their documented bodies, signed. It decides as Smile ID's sandbox does,
//! by the ID number's last digit: 1 not found (1013), 2 bad format
//! (1014), 3 authority unavailable (1015), 4 a record of another person;
//! anything else valid, the authority holding the name sent. An
//! asynchronous job stays in progress until the test has Smile ID finish
//! it ([`FakeSmileId::callback`]).

use super::signature;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The name the fake's authority holds for ID numbers ending in 4.
pub const ANOTHER_PERSON: &str = "BELLO EMEKA";

#[derive(Clone)]
struct Partner {
    id: String,
    key: String,
    /// Asynchronous jobs received, by job id: the request's body, and
    /// whether Smile ID finished it.
    jobs: Arc<Mutex<HashMap<String, (Value, bool)>>>,
    /// Whether a job is finished as soon as it is received.
    at_once: Arc<AtomicBool>,
    /// How often each job's status was asked.
    asked: Arc<Mutex<HashMap<String, usize>>>,
}

pub struct FakeSmileId {
    pub server: MockServer,
    partner: Partner,
}

impl Partner {
    /// `body` with Smile ID's timestamp and signature added.
    fn signed(&self, mut body: Value) -> Value {
        let timestamp = "2026-11-26T10:00:00.000Z";
        body["timestamp"] = json!(timestamp);
        body["signature"] = json!(signature::sign(&self.key, timestamp, &self.id));
        body
    }

    /// The request's body, if it is signed by this partner.
    fn checked(&self, request: &Request) -> Result<Value, Box<ResponseTemplate>> {
        let body: Value = serde_json::from_slice(&request.body).map_err(|_| {
            Box::new(ResponseTemplate::new(400).set_body_json(json!({"error": "Invalid JSON", "code": "2203"})))
        })?;
        let timestamp = body["timestamp"].as_str().unwrap_or_default();
        let signature = body["signature"].as_str().unwrap_or_default();
        let ok = body["partner_id"] == self.id.as_str()
            && chrono::DateTime::parse_from_rfc3339(timestamp).is_ok()
            && signature::verify(&self.key, timestamp, &self.id, signature);
        if !ok {
            let refused = json!({"error": "You are not authorized to do that", "code": "2205"});
            return Err(Box::new(ResponseTemplate::new(401).set_body_json(refused)));
        }
        Ok(body)
    }
}

/// The documented lookup fields, `callback_url` on the async route only.
fn well_formed(body: &Value, callback: bool) -> bool {
    let params = &body["partner_params"];
    let text = |field: &str| body[field].as_str().is_some_and(|v| !v.is_empty());
    [
        "source_sdk_version",
        "country",
        "id_type",
        "id_number",
        "first_name",
        "last_name",
    ]
    .iter()
    .all(|f| text(f))
        && body["source_sdk"] == "rest_api"
        && params["job_type"] == 5
        && params["job_id"].is_string()
        && params["user_id"].is_string()
        && body.get("callback_url").is_some() == callback
}

/// The verdict for a lookup request, as the sandbox's test data gives it.
pub fn verdict(request: &Value) -> Value {
    let id_number = request["id_number"].as_str().unwrap_or_default();
    // Ghana's `VOTER_ID` is the register from before 2020, which the new
    // one replaced (its ID-types page): today's voter's cards are not in it.
    let old_register = request["country"] == "GH" && request["id_type"] == "VOTER_ID";
    let (code, text, verify) = match id_number.chars().last() {
        _ if old_register => ("1013", "Unable To Validate ID - ID Number Not Found", "Not Verified"),
        Some('1') => ("1013", "Unable To Validate ID - ID Number Not Found", "Not Verified"),
        Some('2') => ("1014", "Unsupported ID Number Format", "Not Done"),
        Some('3') => ("1015", "ID Number Service Unavailable", "Issuer Unavailable"),
        _ => ("1012", "ID Number Validated", "Verified"),
    };
    let full_name = match id_number.ends_with('4') {
        true => ANOTHER_PERSON.to_string(),
        false => format!(
            "{} {}",
            request["last_name"].as_str().unwrap_or_default(),
            request["first_name"].as_str().unwrap_or_default()
        )
        .to_uppercase(),
    };
    json!({
        "JSONVersion": "1.0.0",
        "SmileJobID": "0000001096",
        "PartnerParams": request["partner_params"],
        "ResultType": "ID Verification",
        "ResultText": text,
        "ResultCode": code,
        "IsFinalResult": "true",
        "Actions": {"Verify_ID_Number": verify, "Return_Personal_Info": "Returned"},
        "Country": request["country"],
        "IDType": request["id_type"],
        "IDNumber": id_number,
        "FullName": full_name,
        "DOB": "1990-01-01",
        "Photo": "/9j/4AAQSkZJRgABAQAAAQABAAD",
    })
}

struct Lookup(Partner, bool);

impl Respond for Lookup {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let Lookup(partner, callback) = self;
        let body = match partner.checked(request) {
            Ok(body) => body,
            Err(refused) => return *refused,
        };
        if !well_formed(&body, *callback) {
            let missing = json!({"error": "Missing parameter", "code": "2213"});
            return ResponseTemplate::new(400).set_body_json(missing);
        }
        if !callback {
            return ResponseTemplate::new(200).set_body_json(partner.signed(verdict(&body)));
        }
        let job = body["partner_params"]["job_id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let mut jobs = partner.jobs.lock().unwrap();
        if jobs.contains_key(&job) {
            let exists =
                json!({"error": "Job already exists. Did you mean to set the retry flag to true", "code": "2215"});
            return ResponseTemplate::new(400).set_body_json(exists);
        }
        jobs.insert(job, (body, partner.at_once.load(Ordering::Relaxed)));
        ResponseTemplate::new(200).set_body_json(json!({"success": true}))
    }
}

struct JobStatus(Partner);

impl Respond for JobStatus {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = match self.0.checked(request) {
            Ok(body) => body,
            Err(refused) => return *refused,
        };
        let job = body["job_id"].as_str().unwrap_or_default();
        *self.0.asked.lock().unwrap().entry(job.to_string()).or_default() += 1;
        let jobs = self.0.jobs.lock().unwrap();
        let Some((submitted, done)) = jobs
            .get(job)
            .filter(|(s, _)| s["partner_params"]["user_id"] == body["user_id"])
        else {
            return ResponseTemplate::new(400).set_body_json(json!({"error": "No job found", "code": "2210"}));
        };
        // As the SDKs' fixtures show it: `result` the job's summary, the
        // details (the authority's `FullName` among them) in `history`
        // when asked for, oldest first.
        let answer = match done {
            true => {
                let full = verdict(submitted);
                let summary: serde_json::Map<String, Value> = full
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| ["ResultCode", "ResultText", "Actions", "PartnerParams"].contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let mut answer = json!({"job_complete": true, "job_success": true, "code": "2302", "result": summary});
                if body["history"] == true {
                    answer["history"] = json!([full]);
                }
                answer
            }
            false => json!({"job_complete": false, "job_success": false, "code": "2314", "result": "In Progress"}),
        };
        ResponseTemplate::new(200).set_body_json(self.0.signed(answer))
    }
}

impl FakeSmileId {
    /// A fake for `partner_id` with `api_key`, on a free local port.
    pub async fn start(partner_id: &str, api_key: &str) -> FakeSmileId {
        let partner = Partner {
            id: partner_id.into(),
            key: api_key.into(),
            jobs: Arc::default(),
            at_once: Arc::default(),
            asked: Arc::default(),
        };
        let server = MockServer::start().await;
        let post = |at: &str| Mock::given(method("POST")).and(path(at));
        post("/v1/id_verification")
            .respond_with(Lookup(partner.clone(), false))
            .mount(&server)
            .await;
        post("/v1/async_id_verification")
            .respond_with(Lookup(partner.clone(), true))
            .mount(&server)
            .await;
        post("/v1/job_status")
            .respond_with(JobStatus(partner.clone()))
            .mount(&server)
            .await;
        FakeSmileId { server, partner }
    }

    /// The base URL to give the connector.
    pub fn url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// The asynchronous job's request, once it arrived.
    pub fn submitted(&self, job: &str) -> Option<Value> {
        self.partner.jobs.lock().unwrap().get(job).map(|(body, _)| body.clone())
    }

    /// How often the job's status was asked.
    pub fn status_asked(&self, job: &str) -> usize {
        self.partner.asked.lock().unwrap().get(job).copied().unwrap_or_default()
    }

    /// From now on Smile ID finishes each job as soon as it is received
    /// (its job status says so; the callback it would post is not sent).
    pub fn finish_jobs_at_once(&self) {
        self.partner.at_once.store(true, Ordering::Relaxed);
    }

    /// Smile ID finishes the job: the callback it posts, the verdict
    /// signed (and its job status says so from now on).
    pub fn callback(&self, job: &str) -> Option<Vec<u8>> {
        let mut jobs = self.partner.jobs.lock().unwrap();
        let (submitted, done) = jobs.get_mut(job)?;
        *done = true;
        serde_json::to_vec(&self.partner.signed(verdict(submitted))).ok()
    }
}

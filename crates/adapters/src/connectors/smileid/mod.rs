//! Smile ID, the KYC provider: Enhanced KYC by ID number
//! (`POST /v1/id_verification` on the spot, `POST /v1/async_id_verification`
//! with a callback), the job status (`POST /v1/job_status`) to read an
//! outcome, every request signed as [`signature`] describes. What the
//! provider answers beyond the verdict (names, date of birth, photo) is
//! never kept. docs/connectors.md says which pages each part follows.

#[cfg(any(test, feature = "test-support"))]
pub mod fake;
mod id_types;
mod result;
pub mod signature;
#[cfg(test)]
mod tests;

use crate::connectors::http::{CallError, ProviderHttp};
use chrono::SecondsFormat;
use domain::cardholders::Registration;
use domain::cardholders::kyc::KycOutcome;
use domain::{Mode, Secret};
use ports::kyc::{CallbackRefused, KycUnavailable, KycVerifier, Submission};
use reqwest::Method;
use result::Verdict;
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::Duration;

pub const PRODUCTION_URL: &str = "https://api.smileidentity.com/v1";
pub const SANDBOX_URL: &str = "https://testapi.smileidentity.com/v1";

/// Smile ID's job type of Enhanced KYC.
const JOB_TYPE: u8 = 5;
/// A synchronous lookup waits on the ID authority: Smile ID's own SDKs
/// allow it tens of seconds.
const TIMEOUT: Duration = Duration::from_secs(30);
/// Smile ID's error code for a job id it has already taken.
const JOB_EXISTS: &str = "2215";

pub struct SmileIdCredentials {
    pub partner_id: String,
    pub api_key: Secret<String>,
}

/// The connector for one mode: its credentials and, for asynchronous
/// registration, the URL Smile ID posts outcomes to.
pub struct SmileId {
    http: ProviderHttp,
    mode: Mode,
    credentials: SmileIdCredentials,
    callback_url: String,
}

#[derive(Deserialize)]
struct Signed {
    timestamp: Option<Value>,
    signature: Option<String>,
}

#[derive(Deserialize)]
struct CallbackBody {
    #[serde(flatten)]
    signed: Signed,
    #[serde(rename = "PartnerParams")]
    partner_params: Option<PartnerParams>,
}

#[derive(Deserialize)]
struct PartnerParams {
    job_id: Option<String>,
}

#[derive(Deserialize)]
struct Lookup {
    #[serde(flatten)]
    signed: Signed,
    #[serde(flatten)]
    verdict: Verdict,
}

#[derive(Deserialize)]
struct JobStatus {
    #[serde(flatten)]
    signed: Signed,
    #[serde(default)]
    job_complete: bool,
    result: Option<Value>,
    /// The job's results, oldest first, when asked for: where Smile ID's
    /// SDKs read the details `result` may leave out.
    #[serde(default)]
    history: Vec<Value>,
}

/// Smile ID's words in an error body (`{"error": "...", "code": "2213"}`).
fn error_message(body: &Value) -> Option<String> {
    let code = body.get("code").map(|c| c.to_string().trim_matches('"').to_string());
    let error = body.get("error").and_then(Value::as_str);
    match (code, error) {
        (Some(code), Some(error)) => Some(format!("{code} {error}")),
        (None, Some(error)) => Some(error.to_string()),
        (Some(code), None) => Some(code),
        _ => None,
    }
}

fn unavailable(e: CallError) -> KycUnavailable {
    KycUnavailable(e.to_string())
}

impl SmileId {
    pub fn new(
        api_url: &str,
        mode: Mode,
        credentials: SmileIdCredentials,
        callback_url: String,
    ) -> Result<Self, String> {
        Ok(Self {
            http: ProviderHttp::new("Smile ID", api_url, TIMEOUT)?,
            mode,
            credentials,
            callback_url,
        })
    }

    /// A fresh timestamp and its signature.
    fn signed(&self) -> (String, String) {
        let now = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now());
        let timestamp = now.to_rfc3339_opts(SecondsFormat::Millis, true);
        let signature = signature::sign(
            self.credentials.api_key.expose(),
            &timestamp,
            &self.credentials.partner_id,
        );
        (timestamp, signature)
    }

    /// Whether Smile ID signed `signed` (an answer or a callback). A
    /// numeric timestamp is taken as its digits, or as Smile ID's JS SDK
    /// signs one: Unix milliseconds turned into ISO 8601
    /// (`new Date(ms).toISOString()`) before the HMAC.
    fn is_signed(&self, signed: &Signed) -> bool {
        let timestamps = match &signed.timestamp {
            Some(Value::String(t)) => vec![t.clone()],
            Some(Value::Number(t)) => {
                let iso = t
                    .as_i64()
                    .and_then(chrono::DateTime::from_timestamp_millis)
                    .map(|at| at.to_rfc3339_opts(SecondsFormat::Millis, true));
                std::iter::once(t.to_string()).chain(iso).collect()
            }
            _ => return false,
        };
        signed.signature.as_deref().is_some_and(|s| {
            timestamps.iter().any(|timestamp| {
                signature::verify(
                    self.credentials.api_key.expose(),
                    timestamp,
                    &self.credentials.partner_id,
                    s,
                )
            })
        })
    }

    /// The lookup request's body, or why this document goes to review.
    fn lookup(&self, job: &str, registration: &Registration, callback: bool) -> Result<Value, &'static str> {
        let identity = &registration.identity;
        let id_type = id_types::smile_id_type(identity.id_type)?;
        let (timestamp, signature) = self.signed();
        let gender = match identity.gender.as_deref() {
            Some("male") => Some("M"),
            Some("female") => Some("F"),
            _ => None,
        };
        let mut body = json!({
            "partner_id": self.credentials.partner_id,
            "source_sdk": "rest_api",
            "source_sdk_version": env!("CARGO_PKG_VERSION"),
            "timestamp": timestamp,
            "signature": signature,
            "country": registration.address.country.iso(),
            "id_type": id_type,
            "id_number": identity.number(),
            "first_name": identity.first_name.as_deref().unwrap_or(&registration.first_name),
            "last_name": identity.last_name.as_deref().unwrap_or(&registration.last_name),
            "phone_number": registration.phone,
            "partner_params": { "job_id": job, "user_id": job, "job_type": JOB_TYPE },
        });
        let optional = [
            ("middle_name", identity.middle_name.clone()),
            ("dob", identity.date_of_birth.map(|d| d.format("%Y-%m-%d").to_string())),
            ("gender", gender.map(String::from)),
            ("callback_url", callback.then(|| self.callback_url.clone())),
        ];
        for (field, value) in optional {
            if let Some(value) = value {
                body[field] = Value::String(value);
            }
        }
        Ok(body)
    }

    async fn post<T: serde::de::DeserializeOwned>(&self, path: &str, body: Value) -> Result<T, CallError> {
        self.http
            .call(Method::POST, path, &[], Some(&body), error_message)
            .await
    }
}

#[async_trait::async_trait]
impl KycVerifier for SmileId {
    async fn verify(&self, _mode: Mode, job: &str, registration: &Registration) -> Result<KycOutcome, KycUnavailable> {
        let body = match self.lookup(job, registration, false) {
            Ok(body) => body,
            Err(reason) => return Ok(KycOutcome::ManualReview(reason)),
        };
        let answer: Lookup = self.post("/id_verification", body).await.map_err(unavailable)?;
        if !self.is_signed(&answer.signed) {
            return Err(KycUnavailable("Smile ID's answer does not carry its signature".into()));
        }
        answer.verdict.outcome(registration)
    }

    async fn submit(&self, _mode: Mode, job: &str, registration: &Registration) -> Result<Submission, KycUnavailable> {
        let body = match self.lookup(job, registration, true) {
            Ok(body) => body,
            Err(reason) => return Ok(Submission::Decided(KycOutcome::ManualReview(reason))),
        };
        match self.post::<Value>("/async_id_verification", body).await {
            Ok(_) => Ok(Submission::Awaiting),
            // Taken by an earlier attempt whose answer was lost.
            Err(CallError::Refused { message, .. }) if message.starts_with(JOB_EXISTS) => Ok(Submission::Awaiting),
            Err(e) => Err(unavailable(e)),
        }
    }

    fn callback_job(&self, body: &[u8]) -> Result<(Mode, String), CallbackRefused> {
        let callback: CallbackBody =
            serde_json::from_slice(body).map_err(|_| CallbackRefused("the callback is not Smile ID's JSON"))?;
        if !self.is_signed(&callback.signed) {
            return Err(CallbackRefused("the callback's signature is not Smile ID's"));
        }
        let job = callback
            .partner_params
            .and_then(|p| p.job_id)
            .ok_or(CallbackRefused("the callback names no PartnerParams.job_id"))?;
        Ok((self.mode, job))
    }

    async fn outcome(
        &self,
        _mode: Mode,
        job: &str,
        registration: &Registration,
    ) -> Result<Option<KycOutcome>, KycUnavailable> {
        let (timestamp, signature) = self.signed();
        let body = json!({
            "partner_id": self.credentials.partner_id,
            "timestamp": timestamp,
            "signature": signature,
            "user_id": job,
            "job_id": job,
            "image_links": false,
            "history": true,
        });
        let status: JobStatus = self.post("/job_status", body).await.map_err(unavailable)?;
        if !self.is_signed(&status.signed) {
            return Err(KycUnavailable("Smile ID's answer does not carry its signature".into()));
        }
        if !status.job_complete {
            return Ok(None);
        }
        // `result` is an object once the job is done (a string before);
        // the authority's name, when it leaves it out, is the newest
        // result's in `history` that holds one.
        let read = |v: Value| serde_json::from_value::<Verdict>(v).ok();
        let mut verdict = status.result.and_then(read).unwrap_or_default();
        if verdict.full_name.is_none() {
            verdict.full_name = status
                .history
                .into_iter()
                .rev()
                .filter_map(read)
                .find_map(|v| v.full_name);
        }
        verdict.outcome(registration).map(Some)
    }
}

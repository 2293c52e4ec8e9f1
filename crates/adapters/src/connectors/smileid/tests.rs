//! The connector against the fake Smile ID ([`super::fake`]), and against
//! the failures its docs name: error bodies, 429, 5xx, timeouts, answers
//! without its signature.

use super::fake::FakeSmileId;
use super::*;
use domain::cardholders::fixtures::{nigerian, regions};
use domain::cardholders::kyc::KycFailure;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const PARTNER: &str = "085";
const KEY: &str = "test-api-key";

/// The fixtures' registration with this BVN.
fn registration(bvn: &str) -> Registration {
    let mut input = nigerian();
    if let Some(identity) = input.identity.as_mut() {
        identity.bvn = Some(bvn.into());
    }
    input.check(&regions()).unwrap()
}

fn connector(url: &str, key: &str) -> SmileId {
    let credentials = SmileIdCredentials {
        partner_id: PARTNER.into(),
        api_key: Secret::new(key.into()),
    };
    let callback = "https://issuing.example/v1/connectors/smileid/callback".to_string();
    SmileId::new(url, Mode::Live, credentials, callback).unwrap()
}

/// A server answering every request with `answer`.
async fn answering(answer: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(answer).mount(&server).await;
    server
}

#[tokio::test]
async fn a_synchronous_lookup_is_signed_and_its_verdict_mapped() {
    let fake = FakeSmileId::start(PARTNER, KEY).await;
    let smile = connector(&fake.url(), KEY);
    let verify = async |bvn: &str| smile.verify(Mode::Live, "ch_1", &registration(bvn)).await;
    assert_eq!(verify("22212345670").await.unwrap(), KycOutcome::Verified);
    assert_eq!(
        verify("22212345671").await.unwrap(),
        KycOutcome::Failed(KycFailure::NotVerifiable)
    );
    assert_eq!(
        verify("22212345672").await.unwrap(),
        KycOutcome::Failed(KycFailure::NotVerifiable)
    );
    // The authority holds another person's name for this number.
    assert_eq!(
        verify("22212345674").await.unwrap(),
        KycOutcome::Failed(KycFailure::NameMismatch)
    );
    let unavailable = verify("22212345673").await.unwrap_err();
    assert!(unavailable.0.contains("ID authority is unavailable"), "{unavailable}");
}

#[tokio::test]
async fn a_ghanaian_voters_card_is_looked_up_as_the_new_register_smile_id_lists() {
    let fake = FakeSmileId::start(PARTNER, KEY).await;
    let smile = connector(&fake.url(), KEY);
    let mut ghanaian = registration("22212345670");
    ghanaian.address.country = domain::cardholders::Country::Ghana;
    ghanaian.identity.id_type = domain::cardholders::identity::IdType::GhanianVotersId;
    ghanaian.identity.bvn = None;
    ghanaian.identity.id_no = Some("4823001760".into());
    let outcome = smile.verify(Mode::Live, "ch_gh", &ghanaian).await.unwrap();
    assert_eq!(outcome, KycOutcome::Verified);
}

#[tokio::test]
async fn a_wrong_key_and_provider_failures_are_unavailable_never_a_pass() {
    let r = registration("22212345670");
    let fake = FakeSmileId::start(PARTNER, KEY).await;
    let refused = connector(&fake.url(), "not-the-key")
        .verify(Mode::Live, "ch_1", &r)
        .await;
    let refused = refused.unwrap_err().to_string();
    assert!(refused.contains("401") && refused.contains("2205"), "{refused}");
    assert!(!refused.contains("not-the-key"));
    for status in [429, 500, 503] {
        let server = answering(ResponseTemplate::new(status)).await;
        let e = connector(&server.uri(), KEY)
            .verify(Mode::Live, "ch_1", &r)
            .await
            .unwrap_err();
        assert!(e.0.contains(&status.to_string()), "{e}");
    }
    // An answer without Smile ID's signature is not believed.
    let request = serde_json::json!({"id_number": "22212345670", "first_name": "Adaeze", "last_name": "Okafor"});
    let server = answering(ResponseTemplate::new(200).set_body_json(fake::verdict(&request))).await;
    let e = connector(&server.uri(), KEY)
        .verify(Mode::Live, "ch_1", &r)
        .await
        .unwrap_err();
    assert!(e.0.contains("signature"), "{e}");
    let server = answering(ResponseTemplate::new(200).set_delay(Duration::from_secs(3))).await;
    let mut smile = connector(&server.uri(), KEY);
    smile.http = ProviderHttp::new("Smile ID", &server.uri(), Duration::from_millis(300)).unwrap();
    let e = smile.verify(Mode::Live, "ch_1", &r).await.unwrap_err();
    assert!(e.0.contains("did not answer in time"), "{e}");
}

#[tokio::test]
async fn documents_smile_id_cannot_look_up_go_to_review_without_a_call() {
    let fake = FakeSmileId::start(PARTNER, KEY).await;
    let mut input = nigerian();
    if let Some(identity) = input.identity.as_mut() {
        identity.id_type = Some("NIGERIAN_INTERNATIONAL_PASSPORT".into());
        identity.id_no = Some("A12345678".into());
        identity.id_image = Some("https://example.com/id.png".into());
    }
    let r = input.check(&regions()).unwrap();
    let smile = connector(&fake.url(), KEY);
    assert!(matches!(
        smile.verify(Mode::Live, "ch_1", &r).await,
        Ok(KycOutcome::ManualReview(_))
    ));
    assert!(matches!(
        smile.submit(Mode::Live, "ch_1", &r).await,
        Ok(Submission::Decided(KycOutcome::ManualReview(_)))
    ));
    assert!(fake.server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn an_asynchronous_job_is_submitted_once_and_read_back_after_its_callback() {
    let r = registration("22212345670");
    let fake = FakeSmileId::start(PARTNER, KEY).await;
    let smile = connector(&fake.url(), KEY);
    assert_eq!(smile.outcome(Mode::Live, "ch_1", &r).await.ok(), None, "no job yet");
    assert_eq!(
        smile.submit(Mode::Live, "ch_1", &r).await.unwrap(),
        Submission::Awaiting
    );
    assert_eq!(
        smile.outcome(Mode::Live, "ch_1", &r).await.unwrap(),
        None,
        "in progress"
    );
    let sent = fake.submitted("ch_1").unwrap();
    assert_eq!(
        sent["callback_url"],
        "https://issuing.example/v1/connectors/smileid/callback"
    );
    // A second attempt after a lost answer: Smile ID has the job already.
    assert_eq!(
        smile.submit(Mode::Live, "ch_1", &r).await.unwrap(),
        Submission::Awaiting
    );
    let callback = fake.callback("ch_1").unwrap();
    assert_eq!(smile.callback_job(&callback).unwrap(), (Mode::Live, "ch_1".to_string()));
    assert_eq!(
        smile.outcome(Mode::Live, "ch_1", &r).await.unwrap(),
        Some(KycOutcome::Verified)
    );
    let server = answering(ResponseTemplate::new(502)).await;
    assert!(
        connector(&server.uri(), KEY)
            .submit(Mode::Live, "ch_2", &r)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_callback_not_signed_by_the_partner_or_naming_no_job_is_refused() {
    let fake = FakeSmileId::start(PARTNER, KEY).await;
    let smile = connector(&fake.url(), KEY);
    smile
        .submit(Mode::Live, "ch_1", &registration("22212345670"))
        .await
        .unwrap();
    let good: Value = serde_json::from_slice(&fake.callback("ch_1").unwrap()).unwrap();
    let mut forged = good.clone();
    forged["signature"] = json!(signature::sign("guess", "2026-11-26T10:00:00.000Z", PARTNER));
    let mut unsigned = good.clone();
    unsigned.as_object_mut().unwrap().remove("signature");
    let mut no_job = good.clone();
    no_job["PartnerParams"] = json!({});
    for body in [&forged, &unsigned, &no_job] {
        assert!(
            smile.callback_job(&serde_json::to_vec(body).unwrap()).is_err(),
            "{body}"
        );
    }
    assert!(smile.callback_job(b"\0not json").is_err());
    // Another partner's key verifies none of them.
    let other = connector(&fake.url(), "another-key");
    assert!(other.callback_job(&fake.callback("ch_1").unwrap()).is_err());
    // A numeric timestamp, signed as its digits or as the JS SDK signs
    // one (Unix milliseconds as ISO 8601); any other reading is refused.
    let ms = 1_676_300_862_214_i64;
    for signed_as in [ms.to_string(), "2023-02-13T15:07:42.214Z".to_string()] {
        let mut numeric = good.clone();
        numeric["timestamp"] = json!(ms);
        numeric["signature"] = json!(signature::sign(KEY, &signed_as, PARTNER));
        let body = serde_json::to_vec(&numeric).unwrap();
        assert!(smile.callback_job(&body).is_ok(), "{signed_as}");
    }
    let mut as_seconds = good.clone();
    as_seconds["timestamp"] = json!(ms);
    as_seconds["signature"] = json!(signature::sign(KEY, "2023-02-13T15:07:42Z", PARTNER));
    assert!(smile.callback_job(&serde_json::to_vec(&as_seconds).unwrap()).is_err());
}

#[test]
fn the_signature_matches_smile_ids_own_sdk() {
    // The Java SDK's SignatureTest: partner "partner", key "apiKey".
    assert_eq!(
        signature::sign("apiKey", "2023-02-13T15:07:42.214Z", "partner"),
        "XxThLHZy2ij1WINkqNEPgzVs9RvUDHWlebDYzprqS74="
    );
}

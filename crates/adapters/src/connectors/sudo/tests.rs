//! The connector against the fake Sudo ([`super::fake`]), and against the
//! failures its docs name.

use super::fake::{FakeSudo, SETTLEMENT_ACCOUNT};
use super::*;
use domain::cardholders::CardholderStatus;
use domain::cardholders::fixtures::{nigerian, regions};
use domain::ids::{AccountId, CardholderId};
use domain::{Timestamp, cards::pan::is_luhn_valid};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk_sudo_test";
const FUNDING: &str = "63f0c0ffee0000000000000a";

fn cardholder() -> CardholderRecord {
    CardholderRecord {
        id: CardholderId::new("ch_1"),
        account_id: AccountId::new("acct_1"),
        mode: Mode::Live,
        registration: nigerian().check(&regions()).unwrap(),
        status: CardholderStatus::Verified,
        blacklisted: false,
        error_description: None,
        meta_data: None,
        created_at: Timestamp::from_unix(1),
    }
}

fn connector(fake: &FakeSudo, key: &str) -> Sudo {
    connector_crediting(fake, key, SETTLEMENT_ACCOUNT)
}

fn connector_crediting(fake: &FakeSudo, key: &str, credit_account: &str) -> Sudo {
    Sudo::new(SudoSettings {
        api_url: fake.url(),
        vault_url: fake.url(),
        api_key: Secret::new(key.into()),
        funding_source: FUNDING.into(),
        credit_account: credit_account.into(),
    })
    .unwrap()
}

fn to_issue<'a>(holder: &'a CardholderRecord, customer: Option<&'a str>, currency: Currency) -> CardToIssue<'a> {
    CardToIssue {
        card_type: CardType::Virtual,
        currency,
        now: Timestamp::from_unix(1),
        cardholder: holder,
        customer,
        key: None,
    }
}

#[tokio::test]
async fn a_customer_then_its_cards_are_made_and_their_numbers_read_from_the_vault_only() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let sudo = connector(&fake, KEY);
    let holder = cardholder();
    let customer = sudo.create_customer(Mode::Live, &holder).await.unwrap();
    for currency in [Currency::Usd, Currency::Ngn] {
        let IssuedCard::AtProcessor(card) = sudo
            .issue(Mode::Live, to_issue(&holder, Some(&customer), currency))
            .await
            .unwrap()
        else {
            panic!("Sudo keeps its cards");
        };
        let kept = fake.card(&card.card).unwrap();
        assert_eq!(kept.customer, customer);
        assert_eq!(kept.currency, currency.code());
        assert_eq!(
            kept.brand,
            if currency == Currency::Ngn {
                "Verve"
            } else {
                "MasterCard"
            }
        );
        assert_eq!((card.expiry_month.as_str(), card.expiry_year.as_str()), ("09", "2029"));
        assert_eq!(card.last_4, kept.number[kept.number.len() - 4..]);
        let shown = sudo.reveal(Mode::Live, &card.card).await.unwrap();
        assert_eq!(shown.pan.expose(), &kept.number);
        assert!(is_luhn_valid(shown.pan.expose()));
        assert_eq!(shown.cvv.expose(), &kept.cvv2);
    }
    assert_eq!(fake.customers(), 1);
}

/// A USD card Sudo issued to `holder`, made its customer first.
async fn usd_card(sudo: &Sudo, holder: &CardholderRecord) -> ProcessorCard {
    let customer = sudo.create_customer(Mode::Live, holder).await.unwrap();
    let IssuedCard::AtProcessor(card) = sudo
        .issue(Mode::Live, to_issue(holder, Some(&customer), Currency::Usd))
        .await
        .unwrap()
    else {
        panic!("Sudo keeps its cards");
    };
    card
}

#[tokio::test]
async fn a_cards_status_follows_ours_and_is_read_back() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let sudo = connector(&fake, KEY);
    let holder = cardholder();
    let card = usd_card(&sudo, &holder).await;
    let id = card.card.as_str();
    for (state, at_sudo) in [
        (NetworkCardState::Frozen, "inactive"),
        (NetworkCardState::Active, "active"),
        (NetworkCardState::Terminated, "canceled"),
    ] {
        sudo.set_state(Mode::Live, id, state).await.unwrap();
        assert_eq!(fake.card(id).unwrap().status, at_sudo);
        assert_eq!(sudo.state(Mode::Live, id).await.unwrap(), Some(state));
    }
    assert_eq!(sudo.state(Mode::Live, "62a1ffffffffffffffffffff").await.unwrap(), None);
    // Never a path of our making: a card id must be Sudo's shape.
    assert!(sudo.state(Mode::Live, "../customers").await.is_err());
}

#[tokio::test]
async fn a_cancellation_names_the_credit_account_sudo_requires() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let holder = cardholder();
    let card = usd_card(&connector(&fake, KEY), &holder).await;
    let id = card.card.as_str();
    let elsewhere = connector_crediting(&fake, KEY, "61d48b0000dfcdd1184effff");
    let e = elsewhere
        .set_state(Mode::Live, id, NetworkCardState::Terminated)
        .await
        .unwrap_err();
    assert!(e.0.contains("creditAccountId must be an existing account"), "{e}");
    assert_eq!(fake.card(id).unwrap().status, "active");
    // Freezing names no account, as the reference asks it only to cancel.
    elsewhere
        .set_state(Mode::Live, id, NetworkCardState::Frozen)
        .await
        .unwrap();
    connector(&fake, KEY)
        .set_state(Mode::Live, id, NetworkCardState::Terminated)
        .await
        .unwrap();
    assert_eq!(fake.card(id).unwrap().status, "canceled");
}

#[tokio::test]
async fn a_creation_whose_answer_was_lost_is_taken_by_its_retry_not_made_twice() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let holder = cardholder();
    let mut sudo = connector(&fake, KEY);
    let customer = sudo.create_customer(Mode::Live, &holder).await.unwrap();
    sudo.http = ProviderHttp::new("Sudo", &fake.url(), Duration::from_millis(300)).unwrap();
    let keyed = |key| CardToIssue {
        key: Some(key),
        ..to_issue(&holder, Some(&customer), Currency::Usd)
    };
    fake.answer_creations_late(1, Duration::from_secs(2));
    let lost = sudo.issue(Mode::Live, keyed("ref-1")).await.unwrap_err();
    assert!(lost.0.contains("did not answer in time"), "{lost}");
    assert_eq!(fake.cards().len(), 1, "Sudo made it all the same");
    let IssuedCard::AtProcessor(retried) = sudo.issue(Mode::Live, keyed("ref-1")).await.unwrap() else {
        panic!("Sudo keeps its cards");
    };
    let (made, card) = fake.cards().pop().unwrap();
    assert_eq!((fake.cards().len(), retried.card.as_str()), (1, made.as_str()));
    assert_eq!(card.metadata["issuing_creation_key"], "ref-1");
    // Another key, or a card cancelled since, makes a new one.
    sudo.issue(Mode::Live, keyed("ref-2")).await.unwrap();
    assert_eq!(fake.cards().len(), 2);
    fake.set_status(&made, "canceled");
    sudo.issue(Mode::Live, keyed("ref-1")).await.unwrap();
    assert_eq!(fake.cards().len(), 3);
}

/// A customer Sudo made but whose answer was lost is found by the
/// cardholder it names (its metadata), not made again; a failed call for
/// a cardholder Sudo has no customer of stays failed.
#[tokio::test]
async fn a_customer_whose_answer_was_lost_is_found_not_made_twice() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let holder = cardholder();
    let mut sudo = connector(&fake, KEY);
    sudo.http = ProviderHttp::new("Sudo", &fake.url(), Duration::from_millis(300)).unwrap();
    fake.answer_creations_late(1, Duration::from_secs(2));
    let found = sudo.create_customer(Mode::Live, &holder).await.unwrap();
    assert_eq!(fake.customers(), 1, "Sudo made one, the connector took it");
    let again = sudo.create_customer(Mode::Live, &holder).await.unwrap();
    assert_ne!(again, found, "a call answered in time makes its own");
    assert_eq!(fake.customers(), 2);
    // A failure for a cardholder Sudo knows no customer of is the failure.
    let mut other = cardholder();
    other.id = domain::ids::CardholderId::new("ch_other");
    fake.fail("POST", "^/customers$", 503, 1).await;
    let failed = sudo.create_customer(Mode::Live, &other).await.unwrap_err();
    assert!(failed.0.contains("503"), "{failed}");
    assert_eq!(fake.customers(), 2);
}

#[tokio::test]
async fn refusals_and_outages_are_unavailable_with_sudos_words_and_no_secret() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let holder = cardholder();
    let e = connector(&fake, "sk_wrong")
        .create_customer(Mode::Live, &holder)
        .await
        .unwrap_err();
    assert!(e.0.contains("401") && !e.0.contains("sk_wrong"), "{e}");
    let sudo = connector(&fake, KEY);
    // Sudo's validation answer: `message` is a list.
    let e = sudo
        .issue(Mode::Live, to_issue(&holder, Some("61e5nobody"), Currency::Usd))
        .await
        .unwrap_err();
    assert!(
        e.0.contains("400") && e.0.contains("customerId must be an existing customer"),
        "{e}"
    );
    for status in [429, 500, 503] {
        fake.fail("POST", "^/customers$", status, 1).await;
        let e = sudo.create_customer(Mode::Live, &holder).await.unwrap_err();
        assert!(e.0.contains(&status.to_string()), "{e}");
    }
    assert_eq!(fake.customers(), 0);
    let slow = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3)))
        .mount(&slow)
        .await;
    let mut sudo = connector(&fake, KEY);
    sudo.http = ProviderHttp::new("Sudo", &slow.uri(), Duration::from_millis(300)).unwrap();
    let e = sudo.create_customer(Mode::Live, &holder).await.unwrap_err();
    assert!(e.0.contains("did not answer in time"), "{e}");
}

#[tokio::test]
async fn a_verve_cards_pin_changes_at_sudo_from_the_old_one_and_a_mastercards_never() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let sudo = connector(&fake, KEY);
    let holder = cardholder();
    let customer = sudo.create_customer(Mode::Live, &holder).await.unwrap();
    let issue = async |currency| match sudo
        .issue(Mode::Live, to_issue(&holder, Some(&customer), currency))
        .await
    {
        Ok(IssuedCard::AtProcessor(card)) => card.card,
        other => panic!("{other:?}"),
    };
    let pin = |p: &str| domain::cards::pin::Pin::parse("pin", &Secret::new(p.into())).unwrap();
    let verve = issue(Currency::Ngn).await;
    let changed = sudo
        .change_pin(
            Mode::Live,
            &verve,
            PinSwap {
                old: None,
                new: &pin("2468"),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (changed, fake.card(&verve).unwrap().pin.as_str()),
        (PinChange::Changed, "2468")
    );
    sudo.change_pin(
        Mode::Live,
        &verve,
        PinSwap {
            old: Some(&pin("2468")),
            new: &pin("1357"),
        },
    )
    .await
    .unwrap();
    assert_eq!(fake.card(&verve).unwrap().pin, "1357");
    let wrong = sudo
        .change_pin(
            Mode::Live,
            &verve,
            PinSwap {
                old: Some(&pin("0000")),
                new: &pin("1111"),
            },
        )
        .await;
    assert!(wrong.is_err() && !wrong.unwrap_err().0.contains("1111"));
    let mastercard = issue(Currency::Usd).await;
    let unchanged = sudo
        .change_pin(
            Mode::Live,
            &mastercard,
            PinSwap {
                old: None,
                new: &pin("2468"),
            },
        )
        .await
        .unwrap();
    assert_eq!(
        (unchanged, fake.card(&mastercard).unwrap().pin.as_str()),
        (PinChange::NotSupported, "1234")
    );
}

#[tokio::test]
async fn a_card_sudo_answers_unreadably_is_cancelled_there_at_once() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let sudo = connector(&fake, KEY);
    let holder = cardholder();
    let customer = sudo.create_customer(Mode::Live, &holder).await.unwrap();
    let IssuedCard::AtProcessor(made) = sudo
        .issue(Mode::Live, to_issue(&holder, Some(&customer), Currency::Usd))
        .await
        .unwrap()
    else {
        panic!("Sudo keeps its cards");
    };
    // Sudo makes the card, but answers it without a readable number.
    let unreadable = json!({"statusCode": 200, "message": "Card created successfully.",
        "data": {"_id": made.card, "maskedPan": "", "expiryMonth": "09", "expiryYear": "2029"}});
    Mock::given(wiremock::matchers::method("POST"))
        .and(wiremock::matchers::path("/cards"))
        .respond_with(ResponseTemplate::new(200).set_body_json(unreadable))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&fake.server)
        .await;
    let e = sudo
        .issue(Mode::Live, to_issue(&holder, Some(&customer), Currency::Usd))
        .await
        .unwrap_err();
    assert!(e.0.contains("maskedPan"), "{e}");
    assert_eq!(fake.card(&made.card).unwrap().status, "canceled");
}

#[tokio::test]
async fn a_physical_card_is_refused_before_any_call() {
    let fake = FakeSudo::start(KEY, FUNDING).await;
    let holder = cardholder();
    let card = CardToIssue {
        card_type: CardType::Physical,
        ..to_issue(&holder, Some("61e5"), Currency::Usd)
    };
    assert!(connector(&fake, KEY).issue(Mode::Live, card).await.is_err());
    assert!(fake.server.received_requests().await.unwrap().is_empty());
}

#[test]
fn sudos_error_bodies_and_expiry_forms_are_read_in_each_documented_shape() {
    assert_eq!(
        error_message(&json!({"message": "Card not found."})).unwrap(),
        "Card not found."
    );
    assert_eq!(
        error_message(&json!({"message": ["name should not be empty", "type must be one of"]})).unwrap(),
        "name should not be empty; type must be one of"
    );
    let nested = json!({"message": [{"property": "status", "constraints": {"isIn": "status must be one of"}}]});
    assert_eq!(error_message(&nested).unwrap(), "status must be one of");
    assert_eq!(error_message(&json!({"statusCode": 500})), None);
    assert_eq!(month(&json!("9")).as_deref(), Some("09"));
    assert_eq!(month(&json!(12)).as_deref(), Some("12"));
    assert_eq!(month(&json!("13")), None);
    assert_eq!(year(&json!("29")).as_deref(), Some("2029"));
    assert_eq!(year(&json!(2031)).as_deref(), Some("2031"));
    assert_eq!(year(&json!("202")), None);
    for odd in ["+029", "0029", "+9", "-1", " 29", "2029.0", ""] {
        assert_eq!((year(&json!(odd)), month(&json!(odd))), (None, None), "{odd:?}");
    }
}

mod the_gateway {
    use super::super::gateway::{SudoGateway, response_code};
    use domain::cards::reversal::ReversalKind;
    use domain::cards::spending_controls::Channel;
    use domain::{Amount, Currency, Mode, Secret};
    use ports::processor_gateway::{GatewayAnswer, GatewayCall, GatewayCapture, GatewayRefused, ProcessorGateway};
    use serde_json::{Value, json};

    const LIVE: &str = "live-gateway-secret-0123456789abcdef";
    const TEST: &str = "test-gateway-secret-0123456789abcdef";

    fn gateway() -> SudoGateway {
        SudoGateway {
            live: Some(Secret::new(LIVE.into())),
            test: Some(Secret::new(TEST.into())),
        }
    }

    #[test]
    fn the_registered_header_says_the_mode_and_nothing_else_passes() {
        let g = gateway();
        assert_eq!(g.authenticate(Some(&format!("Bearer {LIVE}"))), Ok(Mode::Live));
        assert_eq!(g.authenticate(Some(LIVE)), Ok(Mode::Live));
        assert_eq!(g.authenticate(Some(&format!("Bearer {TEST}"))), Ok(Mode::Test));
        let prefix = &LIVE[..LIVE.len() - 1];
        for wrong in [
            None,
            Some(""),
            Some("Bearer "),
            Some(prefix),
            Some("bearer live"),
            Some(&*format!("{LIVE} ")),
        ] {
            assert_eq!(g.authenticate(wrong), Err(GatewayRefused::BadCredential), "{wrong:?}");
        }
        let off = SudoGateway { live: None, test: None };
        assert_eq!(off.authenticate(Some(LIVE)), Err(GatewayRefused::Disabled));
        assert_eq!(off.authenticate(None), Err(GatewayRefused::BadCredential));
    }

    fn authorization(card: Value, amount: &str, currency: &str) -> Vec<u8> {
        format!(
            r#"{{"type":"authorization.request","data":{{"object":{{"_id":"auth_1","card":{card},
            "pendingRequest":{{"amount":{amount},"currency":"{currency}"}},
            "merchant":{{"category":"5411","name":"SHOPRITE","city":"LAGOS","country":"NG"}}}}}}}}"#
        )
        .into_bytes()
    }

    #[test]
    fn an_authorization_is_read_in_minor_units_rounded_up_whatever_names_the_card() {
        let g = gateway();
        for card in [json!("62a1aa"), json!({"_id": "62a1aa", "type": "virtual"})] {
            let GatewayCall::Authorization(a) = g.read(&authorization(card, "25.375", "NGN")).unwrap() else {
                panic!("an authorization");
            };
            assert_eq!((a.id.as_str(), a.card.as_str()), ("auth_1", "62a1aa"));
            assert_eq!((a.amount, a.currency), (Amount::from_const(2538), Currency::Ngn));
            assert_eq!(a.merchant, "SHOPRITE LAGOS NG");
            assert_eq!(a.merchant_category_code.as_deref(), Some("5411"));
            assert_eq!(
                (a.channel, a.merchant_country.map(String::from)),
                (None, Some("NG".into()))
            );
        }
        let read = |amount: &str, currency: &str| g.read(&authorization(json!("62a1aa"), amount, currency)).unwrap();
        assert!(matches!(read("\"12.5\"", "USD"), GatewayCall::Authorization(a) if a.amount.minor() == 1250));
        for bad in ["0", "-1", "1e3", "1E-2", "99999999999999999", "null", "\"\"", "true"] {
            assert_eq!(read(bad, "USD"), GatewayCall::Unusable("invalid_amount"), "{bad}");
        }
        assert_eq!(read("1", "EUR"), GatewayCall::Unusable("currency_mismatch"));
        // An id with a control character names nothing here: the documented
        // decline, never a lookup the database would refuse.
        let nul_card = br#"{"type":"authorization.request","data":{"object":{"_id":"a9","card":"62a1\u0000aa",
            "pendingRequest":{"amount":1,"currency":"USD"}}}}"#;
        assert_eq!(g.read(nul_card).unwrap(), GatewayCall::Unusable("card_not_found"));
        let nul_balance = br#"{"type":"card.balance","data":{"object":{"_id":"62a1\u0000aa"}}}"#;
        assert_eq!(g.read(nul_balance).unwrap(), GatewayCall::Unusable("card_not_found"));
        let nul_decline = br#"{"type":"authorization.declined","data":{"object":{"_id":"a9","card":"62\u0001aa"}}}"#;
        assert!(g.read(nul_decline).is_err(), "a 400 naming the card");
        // A network's merchant data is taken as it comes.
        let odd = br#"{"type":"authorization.request","data":{"object":{"_id":"a2","card":"62a1aa",
            "pendingRequest":{"amount":1,"currency":"USD"},"merchant":{"name":"SHOP\tLAGOS","category":5812}}}}"#;
        let GatewayCall::Authorization(a) = g.read(odd).unwrap() else {
            panic!("an authorization")
        };
        assert_eq!(
            (a.merchant.as_str(), a.merchant_category_code.as_deref()),
            ("SHOP LAGOS", Some("5812"))
        );
        let bare = br#"{"type":"authorization.request","data":{"object":{"_id":"a3","card":"62a1aa",
            "pendingRequest":{"amount":1,"currency":"USD"},"merchant":null}}}"#;
        let GatewayCall::Authorization(a) = g.read(bare).unwrap() else {
            panic!("an authorization")
        };
        assert_eq!(
            (a.merchant.as_str(), a.merchant_category_code),
            ("Card transaction", None)
        );
        // The channel as Sudo names it, on the object or in its metadata;
        // a country that is not two letters is unknown.
        for (said, channel) in [
            (r#""channel":"web""#, Some(Channel::Online)),
            (r#""transactionMetadata":{"channel":"POS"}"#, Some(Channel::Pos)),
            (r#""channel":"atm""#, Some(Channel::Atm)),
            (r#""channel":"mobile""#, Some(Channel::Online)),
            (r#""channel":"teleport""#, None),
        ] {
            let body = format!(
                r#"{{"type":"authorization.request","data":{{"object":{{"_id":"a4","card":"62a1aa",{said},
                "pendingRequest":{{"amount":1,"currency":"USD"}},"merchant":{{"country":"Nigeria"}}}}}}}}"#
            );
            let GatewayCall::Authorization(a) = g.read(body.as_bytes()).unwrap() else {
                panic!("an authorization")
            };
            assert_eq!((a.channel, a.merchant_country), (channel, None), "{said}");
        }
        assert_eq!(response_code("spending_control_country"), "57");
        assert_eq!(response_code("spending_control_limit_daily"), "61");
        let balance = br#"{"type":"card.balance","data":{"object":{"_id":"62a1aa"}}}"#;
        assert_eq!(g.read(balance).unwrap(), GatewayCall::Balance { card: "62a1aa".into() });
        // Its page puts the card in `data`; `data.object` is read as well.
        let ended = br#"{"type":"card.terminated","data":{"_id":"62a1aa","status":"canceled"}}"#;
        assert_eq!(
            g.read(ended).unwrap(),
            GatewayCall::Terminated { card: "62a1aa".into() }
        );
        let ended = br#"{"type":"card.terminated","data":{"object":{"_id":"62a1aa"}}}"#;
        assert_eq!(
            g.read(ended).unwrap(),
            GatewayCall::Terminated { card: "62a1aa".into() }
        );
        let nameless = br#"{"type":"card.terminated","data":{"_id":"a\u0000","status":"canceled"}}"#;
        assert_eq!(g.read(nameless).unwrap(), GatewayCall::Other);
        let other = br#"{"type":"card.updated","data":{"_id":"t","status":"inactive"}}"#;
        assert_eq!(g.read(other).unwrap(), GatewayCall::Other);
        assert!(g.read(b"{\"type\":\"authorization.request\"}").is_err());
        assert!(g.read(b"\0").is_err());
    }

    /// `transaction.refund` as its page shows it (`data.object`, the
    /// refund's own `type`), with and without the event's `type`.
    fn refund(kind: &str, amount: &str, currency: &str) -> Vec<u8> {
        format!(
            r#"{{{kind}"environment":"production","business":"b1","data":{{"object":{{"_id":"rf_1","business":"b1",
            "customer":"c1","card":"62a1aa","authorization":"auth_1","amount":{amount},"fee":5,"vat":0,
            "currency":"{currency}","type":"refund","merchantAmount":20000,"merchant":{{"category":"6014"}}}}}}}}"#
        )
        .into_bytes()
    }

    #[test]
    fn refunds_and_late_declines_give_back_by_sudos_ids_in_every_documented_shape() {
        let g = gateway();
        for kind in [r#""type":"transaction.refund","#, ""] {
            let GatewayCall::GiveBack(back) = g.read(&refund(kind, "200.05", "NGN")).unwrap() else {
                panic!("a refund");
            };
            assert_eq!(
                (back.id.as_str(), back.authorization.as_str(), back.card.as_str()),
                ("rf_1", "auth_1", "62a1aa")
            );
            assert_eq!(back.kind, ReversalKind::Refund);
            assert_eq!(back.amount, Some((Amount::from_const(20005), Currency::Ngn)));
        }
        let kind = r#""type":"transaction.refund","#;
        for bad in ["0", "-5", "1e3", "99999999999999999", "null"] {
            let refused = g.read(&refund(kind, bad, "USD")).unwrap_err();
            assert!(refused.to_string().contains("data.object.amount"), "{bad}: {refused}");
        }
        assert!(
            g.read(&refund(kind, "1", "EUR"))
                .unwrap_err()
                .to_string()
                .contains("currency")
        );
        let long = format!(
            r#"{{"type":"transaction.refund","data":{{"object":{{"_id":"{}","card":"c","authorization":"a","amount":1,"currency":"USD"}}}}}}"#,
            "x".repeat(101)
        );
        assert!(g.read(long.as_bytes()).is_err(), "an id past 100 characters");
        // A late decline gives back all of the authorization, by its id;
        // the card termination page's form (the object in `data`) reads too.
        let declined =
            br#"{"type":"authorization.declined","data":{"_id":"auth_9","card":{"_id":"62a1aa"},"amount":0}}"#;
        let GatewayCall::GiveBack(back) = g.read(declined).unwrap() else {
            panic!("a reversal");
        };
        assert_eq!((back.id.as_str(), back.authorization.as_str()), ("auth_9", "auth_9"));
        assert_eq!((back.kind, back.amount), (ReversalKind::Reversal, None));
        let no_type = br#"{"data":{"object":{"_id":"t","type":"purchase"}}}"#;
        assert!(g.read(no_type).unwrap_err().to_string().contains("type"));
    }

    #[test]
    fn a_capture_is_read_as_its_page_shows_it_and_what_is_unreadable_is_left_out() {
        let g = gateway();
        let page = |kind: &str, authorization: &str, amount: &str| {
            format!(
                r#"{{{kind}"environment":"production","business":"b1","data":{{"object":{{"business":"b1",
                "card":"62a1aa","authorization":{authorization},"amount":{amount},"fee":0,"vat":0,"currency":"USD",
                "type":"capture","merchantAmount":{amount},"_id":"tx_1"}}}}}}"#
            )
        };
        for kind in [r#""type":"transaction.created","#, ""] {
            let read = g.read(page(kind, "null", "-0.15").as_bytes()).unwrap();
            let expected = GatewayCapture {
                id: Some("tx_1".into()),
                card: "62a1aa".into(),
                authorization: None,
                amount: Some((Amount::from_const(15), Currency::Usd)),
            };
            assert_eq!(read, GatewayCall::Captured(expected.clone()), "{kind}");
            let named = g
                .read(page(kind, r#"{"_id":"auth_1"}"#, "\"-12.505\"").as_bytes())
                .unwrap();
            let expected = GatewayCapture {
                authorization: Some("auth_1".into()),
                amount: Some((Amount::from_const(1251), Currency::Usd)),
                ..expected
            };
            assert_eq!(named, GatewayCall::Captured(expected), "{kind}");
        }
        let GatewayCall::Captured(odd) = g.read(page("", r#""a\u0000""#, "1e3").as_bytes()).unwrap() else {
            panic!("a capture");
        };
        assert_eq!((odd.authorization, odd.amount), (None, None));
        // The sample on its page, with no `_id` of its own.
        let unnamed = br#"{"environment":"production","business":"b1","data":{"object":{"card":"62a1aa",
            "authorization":null,"amount":-0.15,"currency":"USD","type":"capture"}}}"#;
        let GatewayCall::Captured(unnamed) = g.read(unnamed).unwrap() else {
            panic!("a capture");
        };
        assert_eq!((unnamed.id, unnamed.card.as_str()), (None, "62a1aa"));
        let no_card = br#"{"type":"transaction.created","data":{"object":{"_id":"tx_2","type":"capture"}}}"#;
        assert_eq!(g.read(no_card).unwrap(), GatewayCall::Other);
    }

    #[test]
    fn each_answer_is_in_both_of_sudos_documented_shapes() {
        let g = gateway();
        let body = |answer: &GatewayAnswer| {
            let (status, bytes) = g.reply(answer);
            (status, serde_json::from_slice::<Value>(&bytes).unwrap())
        };
        let (status, approved) = body(&GatewayAnswer::Approved);
        assert_eq!(status, 200);
        assert_eq!(
            approved,
            json!({"statusCode": 200, "responseCode": "00", "data": {"responseCode": "00"}})
        );
        let (status, declined) = body(&GatewayAnswer::Declined("insufficient_balance"));
        assert_eq!(
            (
                status,
                declined["responseCode"].as_str(),
                declined["data"]["responseCode"].as_str()
            ),
            (400, Some("51"), Some("51"))
        );
        let (_, frozen) = body(&GatewayAnswer::Declined("card_frozen"));
        assert_eq!(frozen["responseCode"], "62");
        let (_, balance) = g.reply(&GatewayAnswer::Balance(Amount::from_const(1234)));
        let text = String::from_utf8(balance).unwrap();
        assert!(text.contains(r#""balance":12.34"#), "{text}");
        let (_, most) = g.reply(&GatewayAnswer::Balance(Amount::MAX));
        assert!(
            String::from_utf8(most)
                .unwrap()
                .contains(r#""balance":10000000000000.00"#)
        );
    }
}

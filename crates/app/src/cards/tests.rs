//! Card use cases against mocked ports: what is refused before any store
//! or network call, which PIN is sealed, and how settlement decides.

use super::{ActivationRequest, CardError, CardRequest, TransferRequest};
use crate::testing::{Mocks, caller, nigerian, regions};
use domain::cardholders::CardholderStatus;
use domain::cards::transfer::{Settlement, TransferKind, TransferState};
use domain::ids::{AccountId, CardId, CardholderId, TransferId};
use domain::{Amount, DomainError, ErrorKind, Mode, Secret};
use ports::card_network::{IssuedCard, KeptDetails, NetworkDecline};
use ports::cardholders::CardholderRecord;
use ports::cards::{ReserveError, Settled, Transfer};
use ports::field_cipher::UndecryptableField;

fn owner(status: CardholderStatus, blacklisted: bool) -> CardholderRecord {
    CardholderRecord {
        id: CardholderId::new("ch_1"),
        account_id: AccountId::new("acct_1"),
        mode: Mode::Test,
        registration: nigerian().check(&regions()).unwrap(),
        status,
        blacklisted,
        error_description: None,
        meta_data: None,
        created_at: domain::Timestamp::from_unix(1),
    }
}

fn request() -> CardRequest {
    CardRequest {
        cardholder_id: Some("ch_1".into()),
        card_type: Some("virtual".into()),
        card_brand: Some("Mastercard".into()),
        card_currency: Some("USD".into()),
        card_limit: Some("500000".into()),
        funding_amount: Some("300".into()),
        pin: None,
        transaction_reference: None,
        meta_data: None,
        nin: None,
    }
}

/// A network that issues every card as Mastercard.
fn mastercard(m: &mut Mocks) {
    m.network
        .expect_brand()
        .return_const(domain::cards::CardBrand::Mastercard);
}

/// Mocks that issue one card and accept its creation; the vault "seals"
/// by copying, so the test can read what was sealed.
fn issuing(m: &mut Mocks) {
    m.clock.expect_now().return_const(domain::Timestamp::from_unix(100));
    m.test_clocks.expect_offset().returning(|_| Ok(0));
    m.ids.expect_unique().returning(|| "u".into());
    m.network.expect_keeps_customers().return_const(false);
    m.network.expect_issues_physical().return_const(true);
    mastercard(m);
    m.wallets.expect_balances().returning(|_, _| {
        Ok(ports::wallets::WalletBalances {
            usd: Amount::MAX,
            ngn: Amount::MAX,
        })
    });
    m.network.expect_issue().returning(|_, _| {
        Ok(IssuedCard::Kept(KeptDetails {
            pan: Secret::new("5399830123456789".into()),
            cvv: Secret::new("123".into()),
            expiry_month: Secret::new("11".into()),
            expiry_year: Secret::new("2029".into()),
        }))
    });
    m.vault.expect_seal().returning(|plain, _| plain.to_vec());
}

#[tokio::test]
async fn bad_fields_are_refused_before_any_lookup_naming_the_field() {
    let mut m = Mocks::default();
    mastercard(&mut m);
    let app = m.app();
    type Change = fn(&mut CardRequest);
    let cases: [(Change, &str, &str); 8] = [
        (|r| r.cardholder_id = None, "cardholder_id:", "invalid_request"),
        (|r| r.card_type = Some("metal".into()), "card_type:", "invalid_request"),
        (
            |r| r.card_brand = Some("Visa".into()),
            "card_brand:",
            "card_type_unavailable",
        ),
        (
            |r| r.card_currency = Some("EUR".into()),
            "card_currency:",
            "card_type_unavailable",
        ),
        (
            |r| {
                r.card_currency = Some("NGN".into());
                r.card_type = Some("physical".into());
            },
            "card_currency:",
            "card_type_unavailable",
        ),
        (
            |r| {
                r.card_currency = Some("NGN".into());
                r.nin = Some("1234".into());
            },
            "nin:",
            "invalid_request",
        ),
        (|r| r.card_limit = Some("1".into()), "card_limit:", "invalid_request"),
        (
            |r| r.funding_amount = Some("299".into()),
            "funding_amount:",
            "invalid_request",
        ),
    ];
    for (change, field, code) in cases {
        let mut r = request();
        change(&mut r);
        let e = app.create_card(&caller(Mode::Test), r).await.unwrap_err();
        assert_eq!((e.kind(), e.code()), (ErrorKind::InvalidRequest, code), "{e}");
        assert!(e.to_string().starts_with(field), "{e}");
    }
}

#[tokio::test]
async fn only_verified_cardholders_in_good_standing_get_cards() {
    for (status, blacklisted, code, says) in [
        (CardholderStatus::Failed, true, "cardholder_deactivated", "deactivated"),
        (
            CardholderStatus::Failed,
            false,
            "cardholder_not_verified",
            "failed or was rejected",
        ),
        (
            CardholderStatus::ManualReview,
            false,
            "cardholder_not_verified",
            "in manual review",
        ),
        (
            CardholderStatus::Pending,
            false,
            "cardholder_not_verified",
            "not verified yet",
        ),
    ] {
        let mut m = Mocks::default();
        mastercard(&mut m);
        m.cardholders
            .expect_get()
            .returning(move |_, _, _| Ok(Some(owner(status, blacklisted))));
        let e = m.app().create_card(&caller(Mode::Test), request()).await.unwrap_err();
        assert_eq!((e.kind(), e.code()), (ErrorKind::Unauthorized, code));
        assert!(e.to_string().contains(says), "{status:?}: {e}");
    }
}

#[tokio::test]
async fn an_empty_pin_defaults_to_digits_7_to_10_and_a_sent_pin_is_decrypted_with_the_key() {
    for (pin, sealed, physical) in [
        (None, "0123", false),
        (Some("ciphertext"), "2468", false),
        (None, "0123", true),
        (Some("ciphertext"), "2468", true),
    ] {
        let mut m = Mocks::default();
        issuing(&mut m);
        m.cardholders
            .expect_get()
            .returning(|_, _, _| Ok(Some(owner(CardholderStatus::Verified, false))));
        m.field_cipher
            .expect_decrypt()
            .withf(|c, key| c == "ciphertext" && key.expose() == "sk_test_x")
            .returning(|_, _| Ok(Secret::new("2468".into())));
        m.cards
            .expect_create()
            .withf(move |card, event, _, _| {
                card.sealed_pin == sealed.as_bytes()
                    && card.card.last_4 == "6789"
                    && card.card.name == "Adaeze Okafor"
                    && event.event == "card_creation_event.successful"
            })
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let app = m.app();
        let id = match physical {
            // An activated physical card takes a PIN as a created one does.
            true => {
                let activation = ActivationRequest {
                    cardholder_id: Some("ch_1".into()),
                    card_type: Some("physical".into()),
                    card_brand: Some("Mastercard".into()),
                    card_currency: Some("USD".into()),
                    card_token_number: Some("1234567890123".into()),
                    pin: pin.map(str::to_string),
                    meta_data: None,
                };
                app.activate_physical_card(&caller(Mode::Test), activation)
                    .await
                    .unwrap()
            }
            false => {
                let mut r = request();
                r.pin = pin.map(str::to_string);
                app.create_card(&caller(Mode::Test), r).await.unwrap().0
            }
        };
        assert_eq!(id, CardId::new("card_u"));
    }
}

#[tokio::test]
async fn a_pin_that_does_not_decrypt_to_four_digits_is_a_400_that_does_not_echo_it() {
    for decrypted in [Err(UndecryptableField), Ok(Secret::new("12345".to_string()))] {
        let mut m = Mocks::default();
        mastercard(&mut m);
        m.field_cipher.expect_decrypt().return_once(move |_, _| decrypted);
        let mut r = request();
        r.pin = Some("secret-ciphertext".into());
        let e = m.app().create_card(&caller(Mode::Test), r).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert!(e.to_string().starts_with("pin:") && !e.to_string().contains("12345"));
    }
}

fn pending(kind: TransferKind) -> Transfer {
    Transfer {
        id: TransferId::new("ctr_1"),
        account_id: AccountId::new("acct_1"),
        mode: Mode::Test,
        card_id: CardId::new("card_1"),
        cardholder_id: CardholderId::new("ch_1"),
        kind,
        currency: domain::Currency::Usd,
        amount: Amount::from_const(10_013),
        transaction_reference: "ref-1".into(),
        state: TransferState::Pending,
        created_at: domain::Timestamp::from_unix(1),
    }
}

async fn settle(m: Mocks) -> Vec<Result<(), String>> {
    m.app().settle_card_transfers(&[TransferId::new("ctr_1")]).await
}

fn settling(m: &mut Mocks, transfer: Transfer) {
    m.clock.expect_now().return_const(domain::Timestamp::from_unix(100));
    m.test_clocks.expect_offset().returning(|_| Ok(0));
    m.ids.expect_unique().returning(|| "u".into());
    m.cards.expect_transfers().return_once(move |_| Ok(vec![transfer]));
}

#[tokio::test]
async fn a_network_decline_reverses_the_transfer_with_a_failed_event() {
    let mut m = Mocks::default();
    settling(&mut m, pending(TransferKind::Unload));
    m.network
        .expect_unload()
        .times(1)
        .returning(|_, _, _| Err(NetworkDecline("declined".into())));
    m.cards
        .expect_settle()
        .withf(|batch| {
            let [item] = batch.as_slice() else { return false };
            item.settlement == Settlement::Reverse
                && item.event.event == "card_unload_event.failed"
                && item.event.data.contains(r#""error_description":"declined""#)
                && item.event.data.contains(r#""amount":"10013""#)
        })
        .times(1)
        .returning(|_| vec![Settled::Done]);
    assert_eq!(settle(m).await, vec![Ok(())]);
}

#[tokio::test]
async fn a_funding_the_ledger_refuses_is_taken_back_at_the_network_and_reversed() {
    let mut m = Mocks::default();
    settling(&mut m, pending(TransferKind::Fund));
    m.network.expect_load().times(1).returning(|_, _, _| Ok(()));
    m.network.expect_unload().times(1).returning(|_, _, _| Ok(()));
    let mut seq = mockall::Sequence::new();
    m.cards
        .expect_settle()
        .withf(|b| b[0].settlement == Settlement::Complete && b[0].event.event == "card_credit_event.successful")
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_| vec![Settled::Refused]);
    m.cards
        .expect_settle()
        .withf(|b| b[0].settlement == Settlement::Reverse && b[0].event.event == "card_credit_event.failed")
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_| vec![Settled::Done]);
    assert_eq!(settle(m).await, vec![Ok(())]);
}

#[tokio::test]
async fn a_settlement_the_store_leaves_unanswered_is_retried_not_completed() {
    let mut m = Mocks::default();
    settling(&mut m, pending(TransferKind::Fund));
    m.network.expect_load().times(1).returning(|_, _, _| Ok(()));
    m.cards.expect_settle().times(1).returning(|_| vec![]);
    let outcomes = settle(m).await;
    assert!(
        matches!(&outcomes[..], [Err(e)] if e.contains("answered 0 of 1")),
        "{outcomes:?}"
    );
}

#[tokio::test]
async fn a_settled_transfer_is_left_alone() {
    let mut m = Mocks::default();
    let mut done = pending(TransferKind::Fund);
    done.state = TransferState::Succeeded;
    m.cards.expect_transfers().return_once(move |_| Ok(vec![done]));
    m.cards.expect_settle().never();
    assert_eq!(settle(m).await, vec![Ok(())]);
}

#[tokio::test]
async fn a_transfer_too_soon_is_a_420_with_the_wait() {
    let mut m = Mocks::default();
    m.clock.expect_now().return_const(domain::Timestamp::from_unix(100));
    m.test_clocks.expect_offset().returning(|_| Ok(0));
    m.ids.expect_unique().returning(|| "u".into());
    // No read before the reservation: the card is read under its lock.
    m.cards
        .expect_reserve()
        .returning(|_, _| Err(ReserveError::TooSoon(TransferKind::Fund, 42)));
    let e = fund(&m.app()).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RateLimited { retry_after_secs: 42 });
    assert_eq!(e.code(), "card_funded_recently");
}

/// A synchronous funding answers once its job settled it, 400 once it
/// failed, and 504 when it has not settled in time (on paused time: the
/// ten seconds pass at once).
#[tokio::test(start_paused = true)]
async fn a_synchronous_funding_answers_its_settlement_or_504_in_time() {
    for (states, expected) in [
        (vec![TransferState::Pending, TransferState::Succeeded], Ok(())),
        (vec![TransferState::Failed], Err("transfer_failed")),
        (vec![TransferState::Pending], Err("settlement_pending")),
    ] {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(100));
        m.ids.expect_unique().returning(|| "u".into());
        m.cards.expect_reserve().times(1).returning(|_, _| Ok(()));
        let mut states = states.into_iter();
        let mut last = TransferState::Pending;
        m.cards.expect_transfers().returning(move |_| {
            last = states.next().unwrap_or(last);
            Ok(vec![Transfer {
                state: last,
                ..pending(TransferKind::Fund)
            }])
        });
        let answered = m
            .app()
            .settled_card_transfer(
                &caller(Mode::Live),
                TransferKind::Fund,
                domain::Currency::Usd,
                funding(),
            )
            .await;
        assert_eq!(answered.map(drop).map_err(|e| e.code()), expected);
    }
}

fn funding() -> TransferRequest {
    TransferRequest {
        card_id: Some("card_1".into()),
        amount: Some("100".into()),
        transaction_reference: Some("r".into()),
        currency: Some("USD".into()),
    }
}

/// A reservation's stamp: created at, and the offset its batch checks.
type Stamps = std::sync::Arc<std::sync::Mutex<Vec<(i64, Option<i64>)>>>;

/// Mocks for sandbox fundings at real time 100: the clock's offset as each
/// read in turn finds it, and each reservation's stamp kept, answered by
/// `answer` from the stamps so far.
fn stamping(
    reads: &[i64],
    answer: impl Fn(&[(i64, Option<i64>)]) -> Result<(), ReserveError> + Send + 'static,
) -> (Mocks, Stamps) {
    let mut m = Mocks::default();
    m.clock.expect_now().return_const(domain::Timestamp::from_unix(100));
    let offsets = std::sync::Mutex::new(reads.iter().rev().copied().collect::<Vec<_>>());
    m.test_clocks
        .expect_offset()
        .times(reads.len())
        .returning(move |_| Ok(offsets.lock().unwrap().pop().unwrap()));
    m.ids.expect_unique().returning(|| "u".into());
    let stamps = Stamps::default();
    let seen = stamps.clone();
    m.cards.expect_reserve().returning(move |t, _| {
        let mut seen = seen.lock().unwrap();
        seen.push((t.created_at.unix(), t.clock_ahead_secs));
        answer(&seen)
    });
    (m, stamps)
}

/// A sandbox funding of 1 USD on card_1.
async fn fund(app: &crate::App) -> Result<(CardId, String), CardError> {
    app.request_card_transfer(
        &caller(Mode::Test),
        TransferKind::Fund,
        domain::Currency::Usd,
        funding(),
    )
    .await
}

/// Sandbox fundings are stamped from the offset this process read last,
/// with no read; one its batch sends back (the clock was advanced through
/// another process) is stamped again from a fresh read.
#[tokio::test]
async fn sandbox_money_requests_are_stamped_without_a_read_until_the_clock_moved() {
    // The second request's first stamp is from before the advance.
    let (m, stamps) = stamping(&[10, 70], |seen| match seen.len() {
        2 => Err(ReserveError::ClockMoved),
        _ => Ok(()),
    });
    let app = m.app();
    fund(&app).await.unwrap();
    fund(&app).await.unwrap();
    assert_eq!(
        *stamps.lock().unwrap(),
        vec![(110, Some(10)), (110, Some(10)), (170, Some(70))]
    );
}

#[tokio::test]
async fn a_clock_advanced_through_this_process_stamps_its_next_request() {
    // Read by the first funding and by the second (the advance is one
    // conditional write).
    let (mut m, stamps) = stamping(&[0, 600], |_| Ok(()));
    m.test_clocks.expect_advance().returning(|_, _, _| Ok(Some(600)));
    let app = m.app();
    fund(&app).await.unwrap();
    app.advance_test_clock(&caller(Mode::Test), 600).await.unwrap();
    fund(&app).await.unwrap();
    assert_eq!(*stamps.lock().unwrap(), vec![(100, Some(0)), (700, Some(600))]);
}

/// A storm of advances cannot hold a request back: sent back twice, it is
/// stamped a third time from a fresh read and not checked.
#[tokio::test]
async fn a_request_sent_back_twice_goes_unchecked_the_third_time() {
    let (m, stamps) = stamping(&[10, 20, 30], |seen| match seen.last() {
        Some((_, Some(_))) => Err(ReserveError::ClockMoved),
        _ => Ok(()),
    });
    fund(&m.app()).await.unwrap();
    assert_eq!(
        *stamps.lock().unwrap(),
        vec![(110, Some(10)), (120, Some(20)), (130, None)]
    );
}

mod debits {
    use super::*;
    use crate::cards::MockDebit;
    use domain::cards::authorization::{Decision, DeclineReason};
    use domain::rewards::rules::RewardRules;
    use ports::card_transactions::DebitOutcome;
    use ports::jobs::JobKind;
    use ports::merchants::Merchant;

    fn posting(m: &mut Mocks, decision: Decision, card_deleted: bool) {
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(100));
        m.test_clocks.expect_offset().returning(|_| Ok(0));
        m.ids.expect_unique().returning(|| "u".into());
        m.merchants.expect_merchant().returning(|_, _| Merchant {
            name: "Netflix".into(),
            city: None,
            code: Some("4899".into()),
            logo: None,
            website: None,
            category: "Cable".into(),
            group: "Utilities".into(),
        });
        m.merchants
            .expect_group_of()
            .returning(|code| (code == "4899").then(|| "Utilities".to_string()));
        m.card_transactions
            .expect_charged_in_each()
            .returning(|_, _, _| Ok(true));
        m.card_transactions.expect_debit().return_once(move |attempt, notices| {
            assert_eq!(attempt.merchant_group.as_deref(), Some("Utilities"), "the code's group");
            assert!(
                attempt.enriched_data.contains(r#""is_recurring":true"#),
                "{}",
                attempt.enriched_data
            );
            let outcome = DebitOutcome {
                decision,
                card_deleted,
                cardholder_id: CardholderId::new("ch_1"),
                currency: domain::Currency::Usd,
                held: None,
            };
            let events: Vec<&str> = notices(&outcome).iter().map(|(e, _)| e.event).collect();
            let expected: &[&str] = match (decision, card_deleted) {
                (Decision::Approve, _) => &["card_debit_event.successful"],
                (_, false) => &["card_debit_event.declined"],
                (_, true) => &["card_debit_event.declined", "card_delete_event.successful"],
            };
            assert_eq!(events, expected);
            Ok(outcome)
        });
    }

    fn body() -> MockDebit {
        MockDebit {
            card_id: Some("card_1".into()),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn an_approval_is_told_and_answers_with_a_generated_reference() {
        let mut m = Mocks::default();
        posting(&mut m, Decision::Approve, false);
        // Rewards are off: no reward job.
        m.rewards
            .expect_rules()
            .times(1)
            .returning(|_, _| Ok(RewardRules::default()));
        let (card, reference, done) = m
            .app()
            .mock_debit_transaction(&caller(Mode::Test), domain::Currency::Usd, body())
            .await
            .unwrap();
        assert_eq!((card.as_str(), reference.as_str()), ("card_1", "mock_u"));
        assert_eq!(done, crate::cards::Completion::Approved);
    }

    #[tokio::test]
    async fn approvals_of_an_account_with_rewards_on_queue_its_cardholders_rule_job() {
        let mut m = Mocks::default();
        posting(&mut m, Decision::Approve, false);
        let on = RewardRules {
            enabled: true,
            ..RewardRules::default()
        };
        m.rewards.expect_rules().times(1).returning(move |_, _| Ok(on));
        m.jobs
            .expect_schedule()
            .withf(|job, _, mode| job.kind == JobKind::RewardRules && job.subject == "ch_1" && *mode == Mode::Test)
            .times(1)
            .returning(|_, _, _| Ok(()));
        let app = m.app();
        app.mock_debit_transaction(&caller(Mode::Test), domain::Currency::Usd, body())
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_failing_reward_switch_never_fails_the_approved_debit() {
        let mut m = Mocks::default();
        posting(&mut m, Decision::Approve, false);
        m.rewards
            .expect_rules()
            .returning(|_, _| Err(ports::StoreError::new("connection reset".to_string())));
        let done = m
            .app()
            .mock_debit_transaction(&caller(Mode::Test), domain::Currency::Usd, body())
            .await;
        assert!(done.is_ok());
    }

    #[tokio::test]
    async fn a_decline_is_reported_and_answered_with_its_reason() {
        for (reason, deleted, kind) in [
            (DeclineReason::InsufficientBalance, false, ErrorKind::InsufficientFunds),
            (DeclineReason::InsufficientBalance, true, ErrorKind::InsufficientFunds),
            (DeclineReason::NegativeBalance, true, ErrorKind::InvalidRequest),
        ] {
            let mut m = Mocks::default();
            posting(&mut m, Decision::Decline(reason), deleted);
            let e = m
                .app()
                .mock_debit_transaction(&caller(Mode::Test), domain::Currency::Usd, body())
                .await
                .unwrap_err();
            assert_eq!((e.kind(), e.code()), (kind, reason.code()));
        }
    }

    #[tokio::test]
    async fn live_keys_and_bad_fields_are_refused_before_any_lookup() {
        let app = Mocks::default().app();
        let e = app
            .mock_debit_transaction(&caller(Mode::Live), domain::Currency::Usd, body())
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        for (change, field) in [
            (
                MockDebit {
                    amount: Some("0".into()),
                    ..body()
                },
                "amount:",
            ),
            (
                MockDebit {
                    currency: Some("NGN".into()),
                    ..body()
                },
                "currency:",
            ),
            (
                MockDebit {
                    merchant_category_code: Some("48".into()),
                    ..body()
                },
                "merchant_category_code:",
            ),
            (
                MockDebit {
                    card_id: None,
                    ..body()
                },
                "card_id:",
            ),
        ] {
            let e = app
                .mock_debit_transaction(&caller(Mode::Test), domain::Currency::Usd, change)
                .await
                .unwrap_err();
            assert!(e.to_string().starts_with(field), "{e}");
        }
    }
}

#[tokio::test]
async fn a_card_that_would_be_refused_is_never_issued_at_the_network() {
    for (reference_taken, wallet, code) in [
        (true, Amount::MAX, "transaction_reference_used"),
        (false, Amount::from_const(299), "insufficient_wallet_balance"),
    ] {
        let mut m = Mocks::default();
        mastercard(&mut m);
        m.clock.expect_now().return_const(domain::Timestamp::from_unix(100));
        m.test_clocks.expect_offset().returning(|_| Ok(0));
        m.cardholders
            .expect_get()
            .returning(|_, _, _| Ok(Some(owner(CardholderStatus::Verified, false))));
        m.cards
            .expect_reference_taken()
            .returning(move |_, _, reference| Ok(reference_taken && reference == "create-1"));
        m.wallets.expect_balances().returning(move |_, _| {
            Ok(ports::wallets::WalletBalances {
                usd: wallet,
                ngn: Amount::MAX,
            })
        });
        m.network.expect_issue().times(0);
        m.cards.expect_create().times(0);
        let mut r = request();
        r.transaction_reference = Some("create-1".into());
        r.funding_amount = Some("300".into());
        let e = m.app().create_card(&caller(Mode::Test), r).await.unwrap_err();
        assert_eq!(e.code(), code);
    }
}

#[tokio::test]
async fn a_status_push_changes_the_processor_only_where_it_differs() {
    use ports::card_network::NetworkCardState::{Active, Frozen, Terminated};
    // (the card here, the processor's state, whether a change is sent)
    for (here, there, sent) in [
        (None, Some(Terminated), false),
        (None, None, false),
        (None, Some(Active), true),
        (Some(false), Some(Active), true),
        (Some(false), Some(Frozen), false),
    ] {
        let mut m = Mocks::default();
        m.cards
            .expect_processor_cards()
            .returning(|ids| Ok(vec![(ids[0].clone(), "62a1aa".into())]));
        m.cards.expect_get().returning(move |_, _, _| {
            Ok(here.map(|active| ports::cards::CardRecord {
                state: match active {
                    true => domain::cards::state::CardState::Active,
                    false => domain::cards::state::CardState::Frozen,
                },
                ..crate::testing::card("card_1")
            }))
        });
        m.network.expect_state().returning(move |_, _| Ok(there));
        m.network
            .expect_set_state()
            .times(usize::from(sent))
            .returning(|_, _, _| Ok(()));
        let account = AccountId::new("acct_1");
        let done = m
            .app()
            .sync_processor_card((&account, Mode::Live), &CardId::new("card_1"))
            .await;
        assert_eq!(done, Ok(()), "{here:?} {there:?}");
    }
}

//! Writes sent with an `Idempotency-Key`: the first runs and its answer is
//! kept; a retry of the same request gets that answer again and runs
//! nothing (`domain::idempotency` decides how each is met).

use crate::{App, Caller};
use domain::idempotency::{self, Fingerprint, IdempotencyKey, Mismatch, Verdict};
use domain::ids::AccountId;
use domain::{DomainError, ErrorKind, Mode};
use ports::StoreError;
use ports::idempotency::{Claimed, KeptAnswer, KeyOf, NewClaim};

/// How many times a claim is tried when others keep taking the key
/// between its reads (then it is in use).
const CLAIM_TRIES: usize = 3;

/// The pauses between tries to keep an answer while storage fails.
const END_RETRIES_MS: [u64; 3] = [100, 500, 2_000];

/// How a request with a key begins.
#[derive(Debug)]
pub enum Begun {
    /// It runs: its answer is to be given to [`App::end_idempotent`].
    Run(KeyClaim),
    /// It ran before: this is its answer.
    Replay(KeptAnswer),
}

/// A key this request holds while it runs.
#[derive(Debug)]
pub struct KeyClaim {
    account: AccountId,
    mode: Mode,
    key: IdempotencyKey,
    token: String,
}

#[derive(Debug, thiserror::Error)]
pub enum IdempotencyError {
    #[error(
        "Idempotency-Key: a request with this key is still running; retry once it is answered, \
         and the same answer comes back"
    )]
    InFlight,
    #[error("{}", .0.describe())]
    Mismatch(Mismatch),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DomainError for IdempotencyError {
    fn kind(&self) -> ErrorKind {
        match self {
            IdempotencyError::InFlight => ErrorKind::Conflict,
            IdempotencyError::Mismatch(_) => ErrorKind::Unprocessable,
            IdempotencyError::Store(e) => e.kind(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            IdempotencyError::InFlight => "idempotency_key_in_use",
            IdempotencyError::Mismatch(_) => "idempotency_key_reused",
            IdempotencyError::Store(e) => e.code(),
        }
    }
}

impl App {
    /// Claims `key` of the caller for the request `asked`, or says how the
    /// key's request stands.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn begin_idempotent(
        &self,
        caller: &Caller,
        key: IdempotencyKey,
        asked: Fingerprint,
    ) -> Result<Begun, IdempotencyError> {
        let store = &self.ports.idempotency;
        let key_of = KeyOf {
            account: &caller.account_id,
            mode: caller.mode,
            key: &key,
        };
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        for _ in 0..CLAIM_TRIES {
            let real_now = self.ports.clock.now().unix();
            let token = self.ports.ids.unique();
            let claim = NewClaim {
                fingerprint: &asked,
                created_at: now,
                lease_until: real_now.saturating_add(idempotency::LEASE_SECS),
                token: &token,
            };
            let claimed = match store.claim(key_of, claim.clone()).await? {
                Claimed::Now => {
                    // The account's keys past their day go as new ones come
                    // (a later claim forgets them if this one cannot: the
                    // claim holds, and the request runs).
                    let expired = now.minus(idempotency::KEEP_SECS);
                    if let Err(e) = store
                        .forget_before(&caller.account_id, caller.mode, expired, real_now)
                        .await
                    {
                        tracing::warn!(error = %e, "expired idempotency keys could not be forgotten");
                    }
                    true
                }
                Claimed::Again => false,
                Claimed::Already(held) => {
                    match (idempotency::judge(&held.record, &asked, now, real_now), held.answer) {
                        (Verdict::Replay, Some(answer)) => return Ok(Begun::Replay(answer)),
                        (Verdict::Mismatch(mismatch), _) => return Err(IdempotencyError::Mismatch(mismatch)),
                        (Verdict::TakeOver, _) => store.take_over(key_of, &held.token, claim).await?,
                        (Verdict::InFlight | Verdict::Replay, _) => return Err(IdempotencyError::InFlight),
                    }
                }
            };
            if claimed {
                return Ok(Begun::Run(KeyClaim {
                    account: caller.account_id.clone(),
                    mode: caller.mode,
                    key,
                    token,
                }));
            }
        }
        Err(IdempotencyError::InFlight)
    }

    /// Keeps the answer of the request that held `held` for its retries,
    /// or frees the key when the answer asks for a retry
    /// ([`idempotency::kept`]). Storage failing is tried again a few
    /// times: a key left held is taken over once its lease ends, and its
    /// request would then run again.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn end_idempotent(&self, held: KeyClaim, answer: &KeptAnswer) {
        for pause_ms in END_RETRIES_MS {
            match self.keep_or_free(&held, answer).await {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "an idempotency key's answer could not be kept yet");
                    tokio::time::sleep(std::time::Duration::from_millis(pause_ms)).await;
                }
            }
        }
        if let Err(e) = self.keep_or_free(&held, answer).await {
            tracing::error!(error = %e, "an idempotency key's answer could not be kept: its key is free after its lease");
        }
    }

    async fn keep_or_free(&self, held: &KeyClaim, answer: &KeptAnswer) -> Result<(), StoreError> {
        let key_of = KeyOf {
            account: &held.account,
            mode: held.mode,
            key: &held.key,
        };
        let store = &self.ports.idempotency;
        match idempotency::kept(answer.status) {
            true => {
                // The day counts from the answer: a request that moves the
                // sandbox clock (an advance) does not age its own key.
                let at = self.now_for(&held.account, held.mode).await?;
                if !store.answer(key_of, &held.token, answer, at).await? {
                    // Taken over meanwhile (this process was taken for
                    // dead): the request that took it keeps its own answer.
                    tracing::warn!("an idempotency key was taken over before its answer was kept");
                }
                Ok(())
            }
            false => store.free(key_of, &held.token).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Mocks, caller};
    use domain::Timestamp;
    use domain::idempotency::{KeyRecord, KeyState};
    use ports::idempotency::HeldKey as Held;

    fn asked() -> Fingerprint {
        Fingerprint {
            request: "POST /v1/issuing/cards/create_card".into(),
            params_hash: "h".into(),
        }
    }

    fn held_by(token: &str, lease_until: i64) -> Claimed {
        Claimed::Already(Held {
            record: KeyRecord {
                fingerprint: asked(),
                created_at: Timestamp::from_unix(900),
                state: KeyState::Running { lease_until },
            },
            answer: None,
            token: token.into(),
        })
    }

    fn mocks() -> Mocks {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.ids.expect_unique().returning(|| "mine".into());
        m
    }

    fn key() -> IdempotencyKey {
        IdempotencyKey::parse(b"k").unwrap()
    }

    #[tokio::test]
    async fn a_live_lease_is_in_use_and_a_dead_one_is_taken_over() {
        let mut m = mocks();
        m.idempotency
            .expect_claim()
            .returning(|_, _| Ok(held_by("theirs", 1_001)));
        let busy = m.app().begin_idempotent(&caller(Mode::Live), key(), asked()).await;
        assert!(matches!(busy, Err(IdempotencyError::InFlight)), "{busy:?}");

        let mut m = mocks();
        m.idempotency
            .expect_claim()
            .returning(|_, _| Ok(held_by("theirs", 1_000)));
        m.idempotency
            .expect_take_over()
            .withf(|_, seen, claim| seen == "theirs" && claim.token == "mine" && claim.lease_until == 1_120)
            .times(1)
            .returning(|_, _, _| Ok(true));
        let taken = m.app().begin_idempotent(&caller(Mode::Live), key(), asked()).await;
        assert!(
            matches!(taken, Ok(Begun::Run(ref held)) if held.token == "mine"),
            "{taken:?}"
        );
    }

    #[tokio::test]
    async fn a_takeover_lost_to_another_is_read_again() {
        let mut m = mocks();
        let mut reads = 0;
        m.idempotency.expect_claim().times(2).returning(move |_, _| {
            reads += 1;
            Ok(held_by(
                if reads == 1 { "dead" } else { "winner" },
                if reads == 1 { 0 } else { 2_000 },
            ))
        });
        m.idempotency.expect_take_over().times(1).returning(|_, _, _| Ok(false));
        let lost = m.app().begin_idempotent(&caller(Mode::Live), key(), asked()).await;
        assert!(matches!(lost, Err(IdempotencyError::InFlight)), "{lost:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_is_kept_through_storage_failing_for_a_while() {
        let mut m = mocks();
        m.idempotency.expect_claim().returning(|_, _| Ok(Claimed::Now));
        m.idempotency.expect_forget_before().returning(|_, _, _, _| Ok(0));
        let mut tries = 0;
        m.idempotency.expect_answer().times(3).returning(move |_, _, _, _| {
            tries += 1;
            match tries {
                3 => Ok(true),
                _ => Err(StoreError::new(std::io::Error::other("connection lost"))),
            }
        });
        let app = m.app();
        let Ok(Begun::Run(held)) = app.begin_idempotent(&caller(Mode::Live), key(), asked()).await else {
            panic!("a free key is claimed");
        };
        let answer = KeptAnswer {
            status: 200,
            content_type: None,
            body: vec![],
        };
        app.end_idempotent(held, &answer).await;
    }

    #[tokio::test]
    async fn a_final_answer_is_kept_and_a_retry_answer_frees_the_key() {
        for (status, kept) in [(200, true), (404, true), (504, false), (420, false)] {
            let mut m = mocks();
            m.idempotency.expect_claim().returning(|_, _| Ok(Claimed::Now));
            m.idempotency.expect_forget_before().returning(|_, _, _, _| Ok(0));
            m.idempotency
                .expect_answer()
                .times(usize::from(kept))
                .returning(|_, _, _, _| Ok(true));
            m.idempotency
                .expect_free()
                .times(usize::from(!kept))
                .returning(|_, _| Ok(()));
            let app = m.app();
            let Ok(Begun::Run(held)) = app.begin_idempotent(&caller(Mode::Live), key(), asked()).await else {
                panic!("a free key is claimed");
            };
            let answer = KeptAnswer {
                status,
                content_type: None,
                body: vec![],
            };
            app.end_idempotent(held, &answer).await;
        }
    }
}

use crate::db::schema::idempotency_keys as keys;
use crate::db::{Db, with_conn};
use diesel::{BoolExpressionMethods, ExpressionMethods, OptionalExtension, QueryDsl};
use diesel_async::RunQueryDsl;
use domain::idempotency::{Fingerprint, KeyRecord, KeyState};
use domain::ids::AccountId;
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::idempotency::{Claimed, HeldKey, IdempotencyKeys, KeptAnswer, KeyOf, NewClaim};

type Row = (
    String,
    String,
    i64,
    String,
    Option<i64>,
    Option<i32>,
    Option<String>,
    Option<Vec<u8>>,
);

/// The key's row, by its primary key.
macro_rules! the_key {
    ($key:expr) => {
        keys::account_id
            .eq($key.account.as_str())
            .and(keys::livemode.eq($key.mode.is_live()))
            .and(keys::idempotency_key.eq($key.key.as_str()))
    };
}

fn held((request, params_hash, created_at, token, lease_until, status, content_type, body): Row) -> HeldKey {
    let answer = status.map(|status| KeptAnswer {
        status: u16::try_from(status).unwrap_or(500),
        content_type,
        body: body.unwrap_or_default(),
    });
    let state = match answer {
        Some(_) => KeyState::Answered,
        None => KeyState::Running {
            lease_until: lease_until.unwrap_or(i64::MIN),
        },
    };
    HeldKey {
        record: KeyRecord {
            fingerprint: Fingerprint { request, params_hash },
            created_at: Timestamp::from_unix(created_at),
            state,
        },
        answer,
        token,
    }
}

#[async_trait::async_trait]
impl IdempotencyKeys for Db {
    async fn claim<'a>(&self, key: KeyOf<'a>, claim: NewClaim<'a>) -> Result<Claimed, StoreError> {
        Ok(with_conn!(self.pool(), |conn| {
            async {
                let inserted = diesel::insert_into(keys::table)
                    .values((
                        keys::account_id.eq(key.account.as_str()),
                        keys::livemode.eq(key.mode.is_live()),
                        keys::idempotency_key.eq(key.key.as_str()),
                        keys::request.eq(&claim.fingerprint.request),
                        keys::params_hash.eq(&claim.fingerprint.params_hash),
                        keys::created_at.eq(claim.created_at.unix()),
                        keys::claim_token.eq(claim.token),
                        keys::lease_until.eq(Some(claim.lease_until)),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                if inserted == 1 {
                    return Ok(Claimed::Now);
                }
                let row: Option<Row> = keys::table
                    .filter(the_key!(key))
                    .select((
                        keys::request,
                        keys::params_hash,
                        keys::created_at,
                        keys::claim_token,
                        keys::lease_until,
                        keys::answer_status,
                        keys::answer_content_type,
                        keys::answer_body,
                    ))
                    .first(conn)
                    .await
                    .optional()?;
                // Forgotten between the two statements: free again.
                Ok::<_, diesel::result::Error>(row.map_or(Claimed::Again, |row| Claimed::Already(held(row))))
            }
            .await
        })?)
    }

    async fn take_over<'a>(&self, key: KeyOf<'a>, seen: &'a str, claim: NewClaim<'a>) -> Result<bool, StoreError> {
        let taken = with_conn!(self.pool(), |conn| {
            diesel::update(keys::table)
                .filter(the_key!(key))
                .filter(keys::claim_token.eq(seen))
                .set((
                    keys::request.eq(&claim.fingerprint.request),
                    keys::params_hash.eq(&claim.fingerprint.params_hash),
                    keys::created_at.eq(claim.created_at.unix()),
                    keys::claim_token.eq(claim.token),
                    keys::lease_until.eq(Some(claim.lease_until)),
                    keys::answer_status.eq(None::<i32>),
                    keys::answer_content_type.eq(None::<String>),
                    keys::answer_body.eq(None::<Vec<u8>>),
                ))
                .execute(conn)
                .await
        })?;
        Ok(taken == 1)
    }

    async fn answer<'a>(
        &self,
        key: KeyOf<'a>,
        token: &'a str,
        answer: &'a KeptAnswer,
        at: Timestamp,
    ) -> Result<bool, StoreError> {
        let kept = with_conn!(self.pool(), |conn| {
            diesel::update(keys::table)
                .filter(the_key!(key))
                .filter(keys::claim_token.eq(token))
                .set((
                    keys::created_at.eq(at.unix()),
                    keys::lease_until.eq(None::<i64>),
                    keys::answer_status.eq(Some(i32::from(answer.status))),
                    keys::answer_content_type.eq(answer.content_type.as_deref()),
                    keys::answer_body.eq(Some(&answer.body[..])),
                ))
                .execute(conn)
                .await
        })?;
        Ok(kept == 1)
    }

    async fn free<'a>(&self, key: KeyOf<'a>, token: &'a str) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::delete(keys::table)
                .filter(the_key!(key))
                .filter(keys::claim_token.eq(token))
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn forget_before(
        &self,
        account: &AccountId,
        mode: Mode,
        before: Timestamp,
        real_now: i64,
    ) -> Result<u64, StoreError> {
        let forgotten = with_conn!(self.pool(), |conn| {
            diesel::delete(keys::table)
                .filter(keys::account_id.eq(account.as_str()))
                .filter(keys::livemode.eq(mode.is_live()))
                .filter(keys::created_at.lt(before.unix()))
                // A running key stays until its request answers or its
                // lease runs out (its process died): the day's end frees
                // answered keys only.
                .filter(keys::lease_until.is_null().or(keys::lease_until.lt(real_now)))
                .execute(conn)
                .await
        })?;
        Ok(forgotten as u64)
    }
}

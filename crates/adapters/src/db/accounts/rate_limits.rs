use crate::db::schema::rate_limits;
use crate::db::{Db, with_conn};
use diesel::{BoolExpressionMethods, ExpressionMethods, QueryDsl};
use diesel_async::RunQueryDsl;
use domain::ids::AccountId;
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::rate_limits::{Permit, RateLimits};

#[async_trait::async_trait]
impl RateLimits for Db {
    /// Grants when no call was accepted in the last `window_secs`. Each
    /// step is one atomic statement, so concurrent callers in any number of
    /// processes get at most one grant per window.
    async fn acquire(
        &self,
        account: &AccountId,
        mode: Mode,
        action: &str,
        subject: &str,
        window_secs: i64,
        now: Timestamp,
    ) -> Result<Permit, StoreError> {
        let now = now.unix();
        let key = rate_limits::account_id
            .eq(account.as_str())
            .and(rate_limits::livemode.eq(mode.is_live()))
            .and(rate_limits::action.eq(action))
            .and(rate_limits::subject.eq(subject));
        let last_at = with_conn!(self.pool(), |conn| {
            async {
                let inserted = diesel::insert_into(rate_limits::table)
                    .values((
                        rate_limits::account_id.eq(account.as_str()),
                        rate_limits::livemode.eq(mode.is_live()),
                        rate_limits::action.eq(action),
                        rate_limits::subject.eq(subject),
                        rate_limits::last_at.eq(now),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                if inserted == 1 {
                    return Ok(None);
                }
                let renewed = diesel::update(rate_limits::table)
                    .filter(key)
                    .filter(rate_limits::last_at.le(now - window_secs))
                    .set(rate_limits::last_at.eq(now))
                    .execute(conn)
                    .await?;
                if renewed == 1 {
                    return Ok(None);
                }
                rate_limits::table
                    .filter(key)
                    .select(rate_limits::last_at)
                    .first::<i64>(conn)
                    .await
                    .map(Some)
            }
            .await
        })?;
        Ok(match last_at {
            None => Permit::Granted,
            Some(last) => Permit::Denied {
                retry_after_secs: u64::try_from(last + window_secs - now).unwrap_or(0).max(1),
            },
        })
    }

    async fn release(
        &self,
        account: &AccountId,
        mode: Mode,
        action: &str,
        subject: &str,
        granted_at: Timestamp,
    ) -> Result<(), StoreError> {
        let granted = rate_limits::table
            .filter(rate_limits::account_id.eq(account.as_str()))
            .filter(rate_limits::livemode.eq(mode.is_live()))
            .filter(rate_limits::action.eq(action))
            .filter(rate_limits::subject.eq(subject))
            .filter(rate_limits::last_at.eq(granted_at.unix()));
        with_conn!(self.pool(), |conn| diesel::delete(granted).execute(conn).await)?;
        Ok(())
    }
}

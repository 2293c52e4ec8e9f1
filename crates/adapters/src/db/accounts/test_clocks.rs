use crate::db::schema::{jobs, test_clocks};
use crate::db::{Db, with_conn};
use diesel::prelude::*;

use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ids::AccountId;
use ports::StoreError;
use ports::test_clocks::TestClocks;

#[async_trait::async_trait]
impl TestClocks for Db {
    async fn offset(&self, account: &AccountId) -> Result<i64, StoreError> {
        let offset = with_conn!(self.pool(), |conn| {
            test_clocks::table
                .filter(test_clocks::account_id.eq(account.as_str()))
                .select(test_clocks::offset_secs)
                .first::<i64>(conn)
                .await
                .optional()
        })?;
        Ok(offset.unwrap_or(0))
    }

    async fn advance(&self, account: &AccountId, secs: i64, max_offset: i64) -> Result<Option<i64>, StoreError> {
        if secs > max_offset {
            return Ok(None);
        }
        let offset = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                // The limit is the statement's own guard: advances raced
                // together each see the others' offset.
                let upsert = diesel::insert_into(test_clocks::table)
                    .values((
                        test_clocks::account_id.eq(account.as_str()),
                        test_clocks::offset_secs.eq(secs),
                    ))
                    .on_conflict(test_clocks::account_id)
                    .do_update()
                    .set(test_clocks::offset_secs.eq(test_clocks::offset_secs + secs));
                // `ON CONFLICT ... DO UPDATE ... WHERE`: the trait, named,
                // as `QueryDsl::filter` does not reach insert statements.
                let guarded = diesel::query_dsl::methods::FilterDsl::filter(
                    upsert,
                    (test_clocks::offset_secs + secs).le(max_offset),
                );
                let Some(offset) = guarded
                    .returning(test_clocks::offset_secs)
                    .get_result::<i64>(conn)
                    .await
                    .optional()?
                else {
                    return Ok(None);
                };
                // Jobs run on real time; the sandbox's pending ones come
                // forward by the jump.
                diesel::update(
                    jobs::table
                        .filter(jobs::account_id.eq(account.as_str()))
                        .filter(jobs::livemode.eq(false))
                        .filter(jobs::state.eq("pending")),
                )
                .set(jobs::run_at.eq(jobs::run_at - secs))
                .execute(conn)
                .await?;
                Ok(Some(offset))
            })
            .await
        })?;
        Ok(offset)
    }
}

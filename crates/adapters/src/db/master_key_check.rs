//! What tells a start whether its master key is the one the data was
//! sealed under: a stored check value, or else any sealed value.

use super::schema::{api_keys, master_key_check};
use super::{Db, with_conn};
use diesel::{ExpressionMethods, OptionalExtension, QueryDsl};
use diesel_async::RunQueryDsl;
use ports::StoreError;

impl Db {
    /// The sealed check value, once stored.
    pub async fn master_key_check(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(with_conn!(self.pool(), |conn| {
            master_key_check::table
                .select(master_key_check::sealed)
                .first::<Vec<u8>>(conn)
                .await
                .optional()
        })?)
    }

    /// Stores the check value, unless one is stored already.
    pub async fn set_master_key_check(&self, sealed: &[u8]) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::insert_into(master_key_check::table)
                .values((master_key_check::id.eq(1), master_key_check::sealed.eq(sealed)))
                .on_conflict_do_nothing()
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    /// One value sealed under the master key (an API key), if the database
    /// holds any.
    pub async fn any_sealed_value(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(with_conn!(self.pool(), |conn| {
            api_keys::table
                .select(api_keys::sealed_key)
                .first::<Vec<u8>>(conn)
                .await
                .optional()
        })?)
    }
}

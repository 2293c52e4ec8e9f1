//! What tells a start whether its master key is the one the data was
//! sealed under: a stored check value (row 1), or else any sealed value.
//! Row 2 keeps the key of keyed hashes, sealed, so that it outlives a
//! rotation of the master key.

use crate::db::schema::{api_keys, master_key_check};
use crate::db::{Db, with_conn};
use diesel::{ExpressionMethods, OptionalExtension, QueryDsl};
use diesel_async::RunQueryDsl;
use ports::StoreError;

/// The row of the check value, and its place's row.
pub const CHECK_ROW: i32 = 1;
/// The row of the kept key of keyed hashes, and its place's row.
pub const HASH_KEY_ROW: i32 = 2;

impl Db {
    /// The sealed check value, once stored.
    pub async fn master_key_check(&self) -> Result<Option<Vec<u8>>, StoreError> {
        self.vault_row(CHECK_ROW).await
    }

    /// Stores the check value, unless one is stored already.
    pub async fn set_master_key_check(&self, sealed: &[u8]) -> Result<(), StoreError> {
        self.set_vault_row(CHECK_ROW, sealed).await
    }

    /// The sealed key of keyed hashes, once kept.
    pub async fn kept_hash_key(&self) -> Result<Option<Vec<u8>>, StoreError> {
        self.vault_row(HASH_KEY_ROW).await
    }

    /// Keeps the key of keyed hashes, unless one is kept already.
    pub async fn keep_hash_key(&self, sealed: &[u8]) -> Result<(), StoreError> {
        self.set_vault_row(HASH_KEY_ROW, sealed).await
    }

    async fn vault_row(&self, id: i32) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(with_conn!(self.pool(), |conn| {
            master_key_check::table
                .filter(master_key_check::id.eq(id))
                .select(master_key_check::sealed)
                .first::<Vec<u8>>(conn)
                .await
                .optional()
        })?)
    }

    async fn set_vault_row(&self, id: i32, sealed: &[u8]) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::insert_into(master_key_check::table)
                .values((master_key_check::id.eq(id), master_key_check::sealed.eq(sealed)))
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

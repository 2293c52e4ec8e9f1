use super::{Db, DbPool};
use diesel_async::AsyncMigrationHarness;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use ports::StoreError;

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");

/// Applies every pending embedded migration; returns how many ran.
pub async fn migrate(db: &Db) -> Result<usize, StoreError> {
    let fail = |e: Box<dyn std::error::Error + Send + Sync>| StoreError::new(format!("migration failed: {e}"));
    let pool_error = |e: diesel_async::pooled_connection::deadpool::PoolError| StoreError::new(e);
    let applied = match db.pool() {
        DbPool::Pg(pool) => {
            let mut harness = AsyncMigrationHarness::new(pool.get().await.map_err(pool_error)?);
            harness.run_pending_migrations(POSTGRES).map_err(fail)?.len()
        }
        DbPool::Sqlite(pool) => {
            let mut harness = AsyncMigrationHarness::new(pool.get().await.map_err(pool_error)?);
            harness.run_pending_migrations(SQLITE).map_err(fail)?.len()
        }
    };
    Ok(applied)
}

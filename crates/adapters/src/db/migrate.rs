use super::{Db, DbPool};
use diesel_async::AsyncMigrationHarness;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use ports::StoreError;

const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");

/// Applies every pending embedded migration; returns how many ran.
pub async fn migrate(db: &Db) -> Result<usize, StoreError> {
    migrations(db, true).await
}

/// How many embedded migrations the database has not had yet.
pub async fn pending_migrations(db: &Db) -> Result<usize, StoreError> {
    migrations(db, false).await
}

async fn migrations(db: &Db, apply: bool) -> Result<usize, StoreError> {
    let fail = |e: Box<dyn std::error::Error + Send + Sync>| StoreError::new(format!("migration failed: {e}"));
    let pool_error = |e: diesel_async::pooled_connection::deadpool::PoolError| StoreError::new(e);
    // The same steps on either backend's harness, whose types differ.
    macro_rules! on {
        ($pool:expr, $migrations:expr) => {{
            let mut harness = AsyncMigrationHarness::new($pool.get().await.map_err(pool_error)?);
            match apply {
                true => harness.run_pending_migrations($migrations).map_err(fail)?.len(),
                false => harness.pending_migrations($migrations).map_err(fail)?.len(),
            }
        }};
    }
    Ok(match db.pool() {
        DbPool::Pg(pool) => on!(pool, POSTGRES),
        DbPool::Sqlite(pool) => on!(pool, SQLITE),
    })
}

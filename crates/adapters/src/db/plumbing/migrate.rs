use crate::db::{Db, DbPool};
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
        DbPool::Pg(pool) if pool.transaction_pooling => {
            let pending = pending_through_pgbouncer(db).await?;
            if apply && pending > 0 {
                return Err(StoreError::new(format!(
                    "{pending} migrations are pending, and migrations need a session of their own: \
                     run `issuing migrate` against the database itself, not through PgBouncer (pgbouncer=true)"
                )));
            }
            pending
        }
        DbPool::Pg(pool) => on!(pool, POSTGRES),
        DbPool::Sqlite(pool) => on!(pool, SQLITE),
    })
}

/// The embedded migrations the database has not recorded, read in one
/// transaction: the harness prepares statements outside any, which a
/// transaction-mode PgBouncer hands to whichever server connection is free.
async fn pending_through_pgbouncer(db: &Db) -> Result<usize, StoreError> {
    use diesel::migration::MigrationSource;
    use diesel_async::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Applied {
        #[diesel(sql_type = diesel::sql_types::Text)]
        version: String,
    }
    let embedded = MigrationSource::<diesel::pg::Pg>::migrations(&POSTGRES)
        .map_err(|e| StoreError::new(format!("reading the embedded migrations: {e}")))?;
    let applied: Vec<Applied> = crate::db::with_conn!(db.pool(), |conn| diesel::sql_query(
        "SELECT version FROM __diesel_schema_migrations"
    )
    .load::<Applied>(conn)
    .await)?;
    let applied: std::collections::HashSet<String> = applied.into_iter().map(|a| a.version).collect();
    Ok(embedded
        .iter()
        .filter(|m| !applied.contains(&m.name().version().to_string()))
        .count())
}

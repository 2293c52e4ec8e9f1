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
    let fail = |e: Box<dyn std::error::Error + Send + Sync>| crate::db::hinted(format!("migration failed: {e}"));
    let pool_error = crate::db::hinted::<diesel_async::pooled_connection::deadpool::PoolError>;
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
                    "{pending} migrations are pending: {MIGRATE_DIRECTLY}"
                )));
            }
            pending
        }
        DbPool::Pg(pool) => on!(pool, POSTGRES),
        DbPool::Sqlite(pool) => on!(pool, SQLITE),
    })
}

/// What to do about pending migrations through a transaction pooler:
/// migrations need a session of their own.
pub const MIGRATE_DIRECTLY: &str =
    "run `issuing migrate` against the database directly, not through PgBouncer (a URL without pgbouncer=true)";

/// The embedded migrations the database has not recorded (all of them on
/// a database never migrated), read in one transaction: the harness
/// prepares statements outside any, which a transaction-mode PgBouncer
/// hands to whichever server connection is free.
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
    #[derive(diesel::QueryableByName)]
    struct Migrated {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        migrated: bool,
    }
    // A database never migrated has no table to read: nothing applied.
    let applied: Vec<Applied> = crate::db::with_conn!(db.pool(), |conn| async {
        let table = diesel::sql_query("SELECT to_regclass('__diesel_schema_migrations') IS NOT NULL AS migrated")
            .get_result::<Migrated>(conn)
            .await?;
        match table.migrated {
            false => Ok(Vec::new()),
            true => {
                diesel::sql_query("SELECT version FROM __diesel_schema_migrations")
                    .load::<Applied>(conn)
                    .await
            }
        }
    }
    .await)?;
    let applied: std::collections::HashSet<String> = applied.into_iter().map(|a| a.version).collect();
    Ok(embedded
        .iter()
        .filter(|m| !applied.contains(&m.name().version().to_string()))
        .count())
}

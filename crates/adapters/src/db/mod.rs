//! One database handle over PostgreSQL or SQLite. Repository methods are
//! written once: [`with_conn!`] expands a query body into both arms, each
//! compiled for its own backend.

mod accounts;
mod cardholders;
mod cards;
mod console;
mod jobs;
mod money;
mod plumbing;
mod rewards;
mod rows;
mod schema;

pub use plumbing::master_key_check::{CHECK_ROW, HASH_KEY_ROW};
pub use plumbing::migrate::{MIGRATE_DIRECTLY, migrate, pending_migrations};

use diesel::ConnectionResult;
use diesel::SqliteConnection;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::pooled_connection::{AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod};
use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};
use ports::StoreError;
use std::sync::Arc;

pub type SqliteAsync = SyncConnectionWrapper<SqliteConnection>;

/// A PostgreSQL pool, and whether a PgBouncer in transaction mode stands
/// between it and the database (`pgbouncer=true` in the URL).
#[derive(Clone)]
pub struct PgPool {
    pool: Pool<AsyncPgConnection>,
    transaction_pooling: bool,
}

impl std::ops::Deref for PgPool {
    type Target = Pool<AsyncPgConnection>;
    fn deref(&self) -> &Self::Target {
        &self.pool
    }
}

/// A pool of connections to one of the two supported databases.
#[derive(Clone)]
pub enum DbPool {
    Pg(PgPool),
    Sqlite(Pool<SqliteAsync>),
}

/// Runs `$body` with `$conn` bound to a pooled connection of whichever
/// backend the pool holds, in a span of its own. `$body` is an expression of type
/// `Result<T, E>` with `E: Into<DbError>`; the macro yields
/// `Result<T, DbError>`.
macro_rules! with_conn {
    ($pool:expr, |$conn:ident| $body:expr) => {
        tracing::Instrument::instrument(
            async {
                match $pool {
                    $crate::db::DbPool::Pg(pool) => {
                        $crate::db::on_pg(pool, async |$conn| $body.map_err($crate::db::DbError::from)).await
                    }
                    $crate::db::DbPool::Sqlite(pool) => {
                        let mut guard = $crate::db::pooled(pool.get()).await?;
                        let $conn = &mut *guard;
                        $body.map_err($crate::db::DbError::from)
                    }
                }
            },
            // A repository step's span (for the traces), named by where it is.
            tracing::debug_span!("db", at = concat!(module_path!(), ":", line!())),
        )
        .await
    };
}
pub(crate) use with_conn;

/// Runs `body` on a pooled PostgreSQL connection. Through PgBouncer in
/// transaction mode (`pgbouncer=true` in the URL), in a transaction of its
/// own: there a server connection is this client's only inside a
/// transaction, and each statement's prepare, execute and close must reach
/// the same one. A transaction `body` begins itself becomes a savepoint.
pub(crate) async fn on_pg<T>(
    pool: &PgPool,
    body: impl AsyncFnOnce(&mut AsyncPgConnection) -> Result<T, DbError>,
) -> Result<T, DbError> {
    let mut conn = pooled(pool.get()).await?;
    if !pool.transaction_pooling {
        return body(&mut conn).await;
    }
    money::batches::transaction_begun_by(&mut conn, "BEGIN", async |conn| {
        body(conn).await.map_err(money::steps::TxError::Db)
    })
    .await
    .map_err(DbError::from)
}

/// A pooled connection, its wait timed (`issuing_db_pool_wait_seconds`).
/// The wait has no bound: a request's later steps, after it wrote, must not
/// be refused (load is shed at the group committers, before any write).
pub(crate) async fn pooled<C, E: std::error::Error + Send + Sync + 'static>(
    get: impl std::future::Future<Output = Result<C, E>>,
) -> Result<C, DbError> {
    let asked = std::time::Instant::now();
    let got = get.await;
    metrics::histogram!("issuing_db_pool_wait_seconds").record(asked.elapsed().as_secs_f64());
    got.map_err(DbError::pool)
}

/// What went wrong below a repository method.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
    #[error("connection pool: {0}")]
    Pool(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A conditional update matched no row: the rule it guards refused.
    #[error("a conditional update matched no row")]
    Refused,
    /// A step inside a transaction failed as a store (an unreadable row).
    #[error(transparent)]
    Store(StoreError),
}

impl DbError {
    pub(crate) fn pool(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        DbError::Pool(Box::new(e))
    }
}

impl From<DbError> for StoreError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Store(e) => e,
            e => hinted(e),
        }
    }
}

/// `e` as a store error, with what to do when a pooler caused it.
pub(crate) fn hinted<E>(e: E) -> StoreError
where
    E: Into<Box<dyn std::error::Error + Send + Sync>> + std::fmt::Display,
{
    match pooler_hint(&e.to_string()) {
        Some(said) => StoreError::new(said),
        None => StoreError::new(e),
    }
}

/// `error` with what to do, when it is what a transaction-mode pooler
/// does to a process not told of it: another client's statement met on
/// the server connection, or this one's left on another. PostgreSQL says
/// so only in words (diesel keeps no SQLSTATE); English is its default.
pub(crate) fn pooler_hint(error: &str) -> Option<String> {
    let prepared = error.find("prepared statement \"")?;
    let rest = &error[prepared..];
    (rest.contains("\" already exists") || rest.contains("\" does not exist")).then(|| {
        format!(
            "{error} (a pooler in transaction mode, PgBouncer say, stands between this process and \
             PostgreSQL: add pgbouncer=true to the database URL; docs/operations.md, PgBouncer)"
        )
    })
}

/// The repositories over one pool. Implements every store port.
#[derive(Clone)]
pub struct Db {
    pool: DbPool,
    /// The group committers of debits and of reservations, each started
    /// on its first request (on the runtime that makes it), and again if
    /// that runtime went away.
    debits: Slot<money::debits::DebitCommitter>,
    reservations: Slot<money::reservations::ReserveCommitter>,
}

/// A group committer, once started.
type Slot<C> = Arc<std::sync::Mutex<Option<Arc<C>>>>;

/// The committer in `slot`, started by `start` unless it runs.
fn started<I: Send + 'static, A: Send + 'static>(
    slot: &Slot<money::committer::Committer<I, A>>,
    start: impl FnOnce() -> money::committer::Committer<I, A>,
) -> Arc<money::committer::Committer<I, A>> {
    let mut slot = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match &*slot {
        Some(committer) if !committer.is_closed() => committer.clone(),
        _ => slot.insert(Arc::new(start())).clone(),
    }
}

/// How many connections SQLite gets. One: SQLite serialises writers
/// anyway, and a single connection means a write transaction never meets
/// a concurrent one inside the process (no SQLITE_BUSY on lock upgrade).
const SQLITE_POOL_SIZE: usize = 1;

impl Db {
    /// Connects to `url`: `sqlite://path` (created when missing) or
    /// `postgres://...`. Does not run migrations.
    pub async fn connect(url: &str, pg_pool_size: usize) -> Result<Self, StoreError> {
        let pool = if let Some(path) = sqlite_path(url) {
            create_private(path).map_err(|e| StoreError::new(format!("creating the database file {path}: {e}")))?;
            let manager = manager::<SqliteAsync>(path, SQLITE_SESSION, |url| {
                Box::pin(async move { SqliteAsync::establish(&url).await })
            });
            DbPool::Sqlite(
                Pool::builder(manager)
                    .max_size(SQLITE_POOL_SIZE)
                    .build()
                    .map_err(DbError::pool)?,
            )
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let target = Arc::new(plumbing::pg_tls::PgTarget::parse(url).map_err(StoreError::new)?);
            let transaction_pooling = target.transaction_pooling;
            // PgBouncer would run a session's settings on whichever server
            // connection was linked at the time.
            let session = if transaction_pooling { "" } else { POSTGRES_SESSION };
            let manager = manager::<AsyncPgConnection>(url, session, move |_| {
                let target = target.clone();
                Box::pin(async move { target.connect().await })
            });
            let pool = Pool::builder(manager)
                .max_size(pg_pool_size)
                .build()
                .map_err(DbError::pool)?;
            DbPool::Pg(PgPool {
                pool,
                transaction_pooling,
            })
        } else {
            return Err(StoreError::new(
                "database URL must start with sqlite:// or postgres://".to_string(),
            ));
        };
        let db = Db {
            pool,
            debits: Arc::default(),
            reservations: Arc::default(),
        };
        db.ping().await?;
        Ok(db)
    }

    pub fn is_sqlite(&self) -> bool {
        matches!(self.pool, DbPool::Sqlite(_))
    }

    /// Whether the URL said a transaction pooler stands between
    /// (`pgbouncer=true`): migrations must then go to the database itself.
    pub fn through_transaction_pooler(&self) -> bool {
        matches!(&self.pool, DbPool::Pg(pool) if pool.transaction_pooling)
    }

    pub(crate) fn pool(&self) -> &DbPool {
        &self.pool
    }

    fn debits(&self) -> Arc<money::debits::DebitCommitter> {
        started(&self.debits, || money::batches::committer(self.pool.clone()))
    }

    fn reservations(&self) -> Arc<money::reservations::ReserveCommitter> {
        started(&self.reservations, || money::batches::committer(self.pool.clone()))
    }

    #[cfg(any(test, feature = "test-support"))]
    pub(crate) async fn execute_raw(&self, sql: &str) -> Result<usize, StoreError> {
        Ok(with_conn!(self.pool(), |conn| diesel::sql_query(sql)
            .execute(conn)
            .await)?)
    }

    /// The database's plan for `sql`, one line per step (`EXPLAIN` on
    /// PostgreSQL, `EXPLAIN QUERY PLAN` on SQLite).
    #[cfg(test)]
    pub(crate) async fn explain(&self, sql: &str) -> Vec<String> {
        use diesel::sql_types::Text;
        #[derive(diesel::QueryableByName)]
        struct PgLine {
            #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
            line: String,
        }
        #[derive(diesel::QueryableByName)]
        struct SqliteLine {
            #[diesel(sql_type = Text)]
            detail: String,
        }
        let lines = match &self.pool {
            DbPool::Pg(pool) => {
                let mut conn = pool.get().await.expect("a connection");
                diesel::sql_query(format!("EXPLAIN {sql}"))
                    .load::<PgLine>(&mut *conn)
                    .await
                    .map(|rows| rows.into_iter().map(|r| r.line).collect())
            }
            DbPool::Sqlite(pool) => {
                let mut conn = pool.get().await.expect("a connection");
                diesel::sql_query(format!("EXPLAIN QUERY PLAN {sql}"))
                    .load::<SqliteLine>(&mut *conn)
                    .await
                    .map(|rows| rows.into_iter().map(|r| r.detail).collect())
            }
        };
        lines.expect("EXPLAIN runs")
    }

    async fn ping(&self) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| diesel::sql_query("SELECT 1").execute(conn).await)?;
        Ok(())
    }
}

/// Run on every new SQLite connection: WAL so readers never wait for the
/// writer, a busy timeout for other processes' writes, foreign keys on;
/// and the statistics the planner needs, gathered for each table that has
/// none or has grown since, as SQLite's docs advise a connection to do
/// when it opens (`PRAGMA optimize=0x10002`), from a sample of each index
/// (`analysis_limit`, within the 100 to 1,000 rows the docs suggest) so
/// that opening a large database stays quick. Without them it read every
/// transaction of an account for each card in `ledger check`'s card rules.
const SQLITE_SESSION: &str = "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000; \
     PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; \
     PRAGMA analysis_limit = 1000; PRAGMA optimize = 0x10002;";

/// Run on every new PostgreSQL connection: a name in `pg_stat_activity`,
/// and no transaction left idle (a bug) holding locks for long.
const POSTGRES_SESSION: &str = "SET application_name = 'issuing'; SET idle_in_transaction_session_timeout = '60s';";

/// A connection being made.
type Connecting<C> = std::pin::Pin<Box<dyn std::future::Future<Output = ConnectionResult<C>> + Send>>;

/// One pool manager per backend: connections are checked out without a
/// test query (`Fast`), each is made by `establish` from the URL, and
/// runs `session` first.
fn manager<C>(
    url: &str,
    session: &'static str,
    establish: impl Fn(String) -> Connecting<C> + Send + Sync + 'static,
) -> AsyncDieselConnectionManager<C>
where
    C: AsyncConnection + SimpleAsyncConnection + 'static,
{
    let mut config = ManagerConfig::<C>::default();
    config.recycling_method = RecyclingMethod::Fast;
    let establish = Arc::new(establish);
    config.custom_setup = Box::new(move |url| {
        let connecting = establish(url.to_string());
        Box::pin(async move {
            let mut conn = connecting.await?;
            if !session.is_empty() {
                conn.batch_execute(session)
                    .await
                    .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
            }
            Ok(conn)
        })
    });
    AsyncDieselConnectionManager::new_with_config(url, config)
}

/// Creates the SQLite file, when missing, readable and writable by its
/// owner only: it holds BVNs, ID numbers and dates of birth. SQLite gives
/// its WAL and shared-memory files the mode of the database file.
fn create_private(path: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path);
    match created {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// The file path of a `sqlite://` URL, `None` for any other URL.
pub fn sqlite_path(url: &str) -> Option<&str> {
    url.strip_prefix("sqlite://")
}

#[async_trait::async_trait]
impl ports::health::Health for Db {
    async fn ping(&self) -> Result<(), StoreError> {
        Db::ping(self).await
    }
}

#[cfg(test)]
mod fixtures;

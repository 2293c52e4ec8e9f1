//! The webhook event log and its delivery attempts.

use crate::db::jobs::queue::JobRow;
use crate::db::schema::{accounts, api_keys, event_deliveries, events, jobs};
use crate::db::{Db, DbError, with_conn};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::events::DeliveryState;
use domain::ids::{AccountId, EventId};
use domain::paging::Page;
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::events::{AttemptOutcome, DeliveryAttempt, DeliveryTarget, EventRecord, EventStore, NewEvent};
use ports::jobs::NewJob;

#[derive(Insertable)]
#[diesel(table_name = events)]
pub struct EventRow {
    pub(in crate::db) id: String,
    pub(in crate::db) account_id: String,
    pub(in crate::db) livemode: bool,
    pub(in crate::db) event: &'static str,
    pub(in crate::db) data: String,
    pub(in crate::db) created_at: i64,
    pub(in crate::db) delivery_state: &'static str,
    pub(in crate::db) attempts: i32,
}

impl EventRow {
    pub fn new(event: NewEvent) -> Self {
        EventRow {
            id: event.id.to_string(),
            account_id: event.account_id.to_string(),
            livemode: event.mode.is_live(),
            event: event.event,
            data: event.data,
            created_at: event.created_at.unix(),
            delivery_state: DeliveryState::Pending.as_str(),
            attempts: 0,
        }
    }
}

/// Inside the caller's transaction: stores an event and the jobs its
/// change queued. The event's delivery job is queued only when its account
/// has a webhook URL for its mode; without one the event is stored
/// `no_endpoint` at once (a redelivery, once a URL is set, sends it). The
/// inserts read the URL themselves (`INSERT ... SELECT` from the account),
/// so this costs no statement more than plain inserts, and no runner
/// claims, updates and deletes a job that has nowhere to deliver. Each
/// insert reads the URL anew: one set between them gives a `no_endpoint`
/// event a job, which then delivers it (URLs are set, never removed).
macro_rules! store_event {
    ($conn:expr, $event:expr, $jobs:expr) => {{
        let event: &$crate::db::jobs::events::EventRow = $event;
        match event.livemode {
            true => $crate::db::jobs::events::store_event!(@url $conn, event, $jobs, webhook_url_live),
            false => $crate::db::jobs::events::store_event!(@url $conn, event, $jobs, webhook_url_test),
        }
    }};
    (@url $conn:expr, $event:expr, $jobs:expr, $url:ident) => {{
        use diesel::IntoSql;
        use diesel::sql_types::{BigInt, Bool, Integer, Text};
        use $crate::db::schema::{accounts, events, jobs};
        let e = $event;
        let account = accounts::table.filter(accounts::id.eq(e.account_id.as_str()));
        let state = diesel::dsl::case_when(
            accounts::$url.is_null(),
            domain::events::DeliveryState::NoEndpoint.as_str().into_sql::<Text>(),
        )
        .otherwise(e.delivery_state.into_sql::<Text>());
        diesel::insert_into(events::table)
            .values(account.select((
                e.id.as_str().into_sql::<Text>(),
                e.account_id.as_str().into_sql::<Text>(),
                e.livemode.into_sql::<Bool>(),
                e.event.into_sql::<Text>(),
                e.data.as_str().into_sql::<Text>(),
                e.created_at.into_sql::<BigInt>(),
                state,
                e.attempts.into_sql::<Integer>(),
            )))
            .into_columns((
                events::id,
                events::account_id,
                events::livemode,
                events::event,
                events::data,
                events::created_at,
                events::delivery_state,
                events::attempts,
            ))
            .execute($conn)
            .await?;
        for job in $jobs {
            let job: &$crate::db::jobs::queue::JobRow = job;
            if job.kind != ports::jobs::JobKind::DeliverWebhook.as_str() {
                diesel::insert_into(jobs::table).values(job).execute($conn).await?;
                continue;
            }
            diesel::insert_into(jobs::table)
                .values(account.filter(accounts::$url.is_not_null()).select((
                    job.id.as_str().into_sql::<Text>(),
                    job.account_id.as_str().into_sql::<Text>(),
                    job.livemode.into_sql::<Bool>(),
                    job.kind.into_sql::<Text>(),
                    job.subject.as_str().into_sql::<Text>(),
                    job.state.into_sql::<Text>(),
                    job.attempts.into_sql::<Integer>(),
                    job.max_attempts.into_sql::<Integer>(),
                    job.run_at.into_sql::<BigInt>(),
                    job.created_at.into_sql::<BigInt>(),
                    job.updated_at.into_sql::<BigInt>(),
                )))
                .into_columns((
                    jobs::id,
                    jobs::account_id,
                    jobs::livemode,
                    jobs::kind,
                    jobs::subject,
                    jobs::state,
                    jobs::attempts,
                    jobs::max_attempts,
                    jobs::run_at,
                    jobs::created_at,
                    jobs::updated_at,
                ))
                .execute($conn)
                .await?;
        }
    }};
}
pub(crate) use store_event;

#[derive(Queryable, Selectable)]
#[diesel(table_name = events)]
struct StoredEvent {
    id: String,
    livemode: bool,
    event: String,
    data: String,
    created_at: i64,
    delivery_state: String,
    attempts: i32,
    delivered_at: Option<i64>,
}

impl StoredEvent {
    fn record(self) -> Result<EventRecord, StoreError> {
        let delivery_state = DeliveryState::parse(&self.delivery_state)
            .ok_or_else(|| StoreError::new(format!("event {} has unknown delivery state", self.id)))?;
        Ok(EventRecord {
            id: EventId::new(self.id),
            mode: Mode::from_live(self.livemode),
            event: self.event,
            data: self.data,
            created_at: Timestamp::from_unix(self.created_at),
            delivery_state,
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            delivered_at: self.delivered_at.map(Timestamp::from_unix),
        })
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = event_deliveries)]
struct StoredAttempt {
    attempt: i32,
    attempted_at: i64,
    url: String,
    status_code: Option<i32>,
    error: Option<String>,
    duration_ms: i64,
}

/// The events an account sees in a mode.
#[diesel::dsl::auto_type]
fn of_account<'a>(account: &'a str, livemode: bool) -> _ {
    events::account_id.eq(account).and(events::livemode.eq(livemode))
}

/// A mode's webhook URL, secret, and previous secret with its expiry.
type ModeWebhook = (Option<String>, Option<Vec<u8>>, Option<Vec<u8>>, Option<i64>);

#[async_trait::async_trait]
impl EventStore for Db {
    async fn emit_with(&self, event: NewEvent, jobs: Vec<NewJob>) -> Result<(), StoreError> {
        let job_rows = &jobs
            .into_iter()
            .map(|job| JobRow::new(job, &event.account_id, event.mode))
            .collect::<Vec<_>>();
        let row = &EventRow::new(event);
        with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                store_event!(conn, row, job_rows);
                Ok(())
            })
            .await
        })?;
        Ok(())
    }

    async fn list_events(
        &self,
        account: &AccountId,
        mode: Mode,
        page: Page,
    ) -> Result<(Vec<EventRecord>, u64), StoreError> {
        let (rows, total) = with_conn!(self.pool(), |conn| {
            async {
                let total = events::table
                    .filter(of_account(account.as_str(), mode.is_live()))
                    .count()
                    .get_result::<i64>(conn)
                    .await?;
                let rows = events::table
                    .filter(of_account(account.as_str(), mode.is_live()))
                    .order(events::id.desc())
                    .limit(i64::from(page.size))
                    .offset(page.offset())
                    .select(StoredEvent::as_select())
                    .load::<StoredEvent>(conn)
                    .await?;
                Ok::<_, diesel::result::Error>((rows, total))
            }
            .await
        })?;
        let records = rows.into_iter().map(StoredEvent::record).collect::<Result<_, _>>()?;
        Ok((records, u64::try_from(total).unwrap_or(0)))
    }

    async fn get_event(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &EventId,
    ) -> Result<Option<(EventRecord, Vec<DeliveryAttempt>)>, StoreError> {
        let found = with_conn!(self.pool(), |conn| {
            async {
                let Some(event) = events::table
                    .filter(of_account(account.as_str(), mode.is_live()))
                    .filter(events::id.eq(id.as_str()))
                    .select(StoredEvent::as_select())
                    .first::<StoredEvent>(conn)
                    .await
                    .optional()?
                else {
                    return Ok(None);
                };
                let attempts = event_deliveries::table
                    .filter(event_deliveries::account_id.eq(account.as_str()))
                    .filter(event_deliveries::event_id.eq(id.as_str()))
                    .order(event_deliveries::attempt)
                    .select(StoredAttempt::as_select())
                    .load::<StoredAttempt>(conn)
                    .await?;
                Ok::<_, diesel::result::Error>(Some((event, attempts)))
            }
            .await
        })?;
        let Some((event, attempts)) = found else {
            return Ok(None);
        };
        let attempts = attempts
            .into_iter()
            .map(|a| DeliveryAttempt {
                attempt: u32::try_from(a.attempt).unwrap_or(0),
                outcome: AttemptOutcome {
                    attempted_at: Timestamp::from_unix(a.attempted_at),
                    url: a.url,
                    status_code: a.status_code.and_then(|s| u16::try_from(s).ok()),
                    error: a.error,
                    duration_ms: a.duration_ms,
                },
            })
            .collect();
        Ok(Some((event.record()?, attempts)))
    }

    async fn redeliver(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &EventId,
        delivery: NewJob,
    ) -> Result<bool, StoreError> {
        let job = &JobRow::new(delivery, account, mode);
        let queued = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, DbError, _>(async |conn| {
                let found = diesel::update(
                    events::table
                        .filter(of_account(account.as_str(), mode.is_live()))
                        .filter(events::id.eq(id.as_str())),
                )
                .set(events::delivery_state.eq(DeliveryState::Pending.as_str()))
                .execute(conn)
                .await?;
                if found == 0 {
                    return Ok(false);
                }
                diesel::insert_into(jobs::table).values(job).execute(conn).await?;
                Ok(true)
            })
            .await
        })?;
        Ok(queued)
    }

    async fn delivery_target(&self, id: &EventId) -> Result<Option<DeliveryTarget>, StoreError> {
        let found = with_conn!(self.pool(), |conn| {
            async {
                let Some((event, account_id)) = events::table
                    .filter(events::id.eq(id.as_str()))
                    .select((StoredEvent::as_select(), events::account_id))
                    .first::<(StoredEvent, String)>(conn)
                    .await
                    .optional()?
                else {
                    return Ok(None);
                };
                let (test, live) = accounts::table
                    .filter(accounts::id.eq(&account_id))
                    .select((
                        (
                            accounts::webhook_url_test,
                            accounts::test_webhook_secret_sealed,
                            accounts::test_previous_webhook_secret_sealed,
                            accounts::test_previous_webhook_secret_expires_at,
                        ),
                        (
                            accounts::webhook_url_live,
                            accounts::live_webhook_secret_sealed.nullable(),
                            accounts::live_previous_webhook_secret_sealed,
                            accounts::live_previous_webhook_secret_expires_at,
                        ),
                    ))
                    .first::<(ModeWebhook, ModeWebhook)>(conn)
                    .await?;
                let secret_key = api_keys::table
                    .filter(api_keys::account_id.eq(&account_id))
                    .filter(api_keys::livemode.eq(event.livemode))
                    // The mode's current key: after a roll, the new one.
                    .order((api_keys::expires_at.is_null().desc(), api_keys::created_at.desc()))
                    .select((api_keys::lookup_hash, api_keys::sealed_key))
                    .first::<(String, Vec<u8>)>(conn)
                    .await?;
                let webhook = if event.livemode { live } else { test };
                Ok::<_, diesel::result::Error>(Some((event, account_id, secret_key, webhook)))
            }
            .await
        })?;
        let Some((event, account_id, (secret_key_hash, sealed_secret_key), webhook)) = found else {
            return Ok(None);
        };
        let (url, sealed_webhook_secret, previous, previous_expires_at) = webhook;
        Ok(Some(DeliveryTarget {
            event: event.record()?,
            account_id: domain::ids::AccountId::new(account_id),
            url,
            secret_key_hash,
            sealed_secret_key,
            sealed_webhook_secret,
            previous_webhook_secret: previous.zip(previous_expires_at.map(Timestamp::from_unix)),
        }))
    }

    async fn record_attempt(
        &self,
        id: &EventId,
        outcome: AttemptOutcome,
        state: DeliveryState,
    ) -> Result<(), StoreError> {
        let outcome = &outcome;
        let delivered_at = (state == DeliveryState::Delivered).then_some(outcome.attempted_at.unix());
        with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                let this = events::table.filter(events::id.eq(id.as_str()));
                let (attempt, account) = diesel::update(this)
                    .set(events::attempts.eq(events::attempts + 1))
                    .returning((events::attempts, events::account_id))
                    .get_result::<(i32, String)>(conn)
                    .await?;
                diesel::insert_into(event_deliveries::table)
                    .values((
                        event_deliveries::account_id.eq(&account),
                        event_deliveries::event_id.eq(id.as_str()),
                        event_deliveries::attempt.eq(attempt),
                        event_deliveries::attempted_at.eq(outcome.attempted_at.unix()),
                        event_deliveries::url.eq(&outcome.url),
                        event_deliveries::status_code.eq(outcome.status_code.map(i32::from)),
                        event_deliveries::error.eq(&outcome.error),
                        event_deliveries::duration_ms.eq(outcome.duration_ms),
                    ))
                    .execute(conn)
                    .await?;
                // A delivered event stays delivered, whatever a concurrent
                // attempt met.
                diesel::update(this.filter(events::delivery_state.ne(DeliveryState::Delivered.as_str())))
                    .set((
                        events::delivery_state.eq(state.as_str()),
                        events::delivered_at.eq(delivered_at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(())
            })
            .await
        })?;
        Ok(())
    }

    async fn mark_no_endpoint(&self, id: &EventId) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::update(events::table.filter(events::id.eq(id.as_str())))
                .set(events::delivery_state.eq(DeliveryState::NoEndpoint.as_str()))
                .execute(conn)
                .await
        })?;
        Ok(())
    }
}

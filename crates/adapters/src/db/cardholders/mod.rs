//! Cardholders (`ports::cardholders::CardholderStore`). A BVN and a phone belong to one cardholder per account and
//! mode (checked in the transaction, with unique indexes behind). Over
//! 400 lines as one thing: the one `CardholderStore` impl.

use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::schema::{accounts, cardholders, jobs, processor_customers};
use crate::db::{Db, DbError, with_conn};
use chrono::NaiveDate;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::cardholders::identity::{IdType, Identity};
use domain::cardholders::{Address, CardholderStatus, Country, Registration};
use domain::ids::{AccountId, CardholderId};
use domain::paging::Page;
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::cardholders::{CardholderRecord, CardholderStore, CustomerClaim, Decision, SaveCardholderError};
use ports::events::NewEvent;
use ports::jobs::NewJob;

/// As a changeset (a profile update) it writes the profile only: who the
/// cardholder is, its status and decision are never rewritten by an edit.
#[derive(Insertable, Queryable, Selectable, AsChangeset)]
#[diesel(table_name = cardholders)]
struct CardholderRow {
    #[diesel(skip_update)]
    id: String,
    #[diesel(skip_update)]
    account_id: String,
    #[diesel(skip_update)]
    livemode: bool,
    first_name: String,
    last_name: String,
    email_address: Option<String>,
    phone: String,
    address: String,
    city: String,
    state: String,
    country: String,
    postal_code: String,
    house_no: String,
    lga: Option<String>,
    id_type: String,
    bvn: Option<String>,
    id_no: Option<String>,
    id_image: Option<String>,
    selfie_image: Option<String>,
    id_first_name: Option<String>,
    id_last_name: Option<String>,
    id_middle_name: Option<String>,
    date_of_birth: Option<String>,
    gender: Option<String>,
    #[diesel(skip_update)]
    status: String,
    #[diesel(skip_update)]
    blacklisted: bool,
    #[diesel(skip_update)]
    error_description: Option<String>,
    meta_data: Option<String>,
    #[diesel(skip_update)]
    created_at: i64,
}

impl From<CardholderRecord> for CardholderRow {
    fn from(r: CardholderRecord) -> Self {
        let Registration {
            first_name,
            last_name,
            address,
            phone,
            email_address,
            identity,
        } = r.registration;
        CardholderRow {
            id: r.id.to_string(),
            account_id: r.account_id.to_string(),
            livemode: r.mode.is_live(),
            first_name,
            last_name,
            email_address,
            phone,
            address: address.address,
            city: address.city,
            state: address.state,
            country: address.country.name().to_string(),
            postal_code: address.postal_code,
            house_no: address.house_no,
            lga: address.lga,
            id_type: identity.id_type.as_str().to_string(),
            bvn: identity.bvn,
            id_no: identity.id_no,
            id_image: identity.id_image,
            selfie_image: identity.selfie_image,
            id_first_name: identity.first_name,
            id_last_name: identity.last_name,
            id_middle_name: identity.middle_name,
            date_of_birth: identity.date_of_birth.map(|d| d.format("%Y-%m-%d").to_string()),
            gender: identity.gender,
            status: r.status.as_str().to_string(),
            blacklisted: r.blacklisted,
            error_description: r.error_description,
            meta_data: r.meta_data,
            created_at: r.created_at.unix(),
        }
    }
}

impl CardholderRow {
    fn record(self) -> Result<CardholderRecord, StoreError> {
        let corrupt = |what: &str| StoreError::new(format!("cardholder {} has an unreadable {what}", self.id));
        let country = Country::parse("country", &self.country).map_err(|_| corrupt("country"))?;
        let id_type = IdType::parse(&self.id_type, country).map_err(|_| corrupt("id_type"))?;
        let date_of_birth = match &self.date_of_birth {
            Some(d) => Some(NaiveDate::parse_from_str(d, "%Y-%m-%d").map_err(|_| corrupt("date_of_birth"))?),
            None => None,
        };
        let status = CardholderStatus::parse(&self.status).ok_or_else(|| corrupt("status"))?;
        Ok(CardholderRecord {
            id: CardholderId::new(self.id),
            account_id: AccountId::new(self.account_id),
            mode: Mode::from_live(self.livemode),
            registration: Registration {
                first_name: self.first_name,
                last_name: self.last_name,
                address: Address {
                    address: self.address,
                    city: self.city,
                    state: self.state,
                    country,
                    postal_code: self.postal_code,
                    house_no: self.house_no,
                    lga: self.lga,
                },
                phone: self.phone,
                email_address: self.email_address,
                identity: Identity {
                    id_type,
                    bvn: self.bvn,
                    id_no: self.id_no,
                    id_image: self.id_image,
                    selfie_image: self.selfie_image,
                    first_name: self.id_first_name,
                    last_name: self.id_last_name,
                    middle_name: self.id_middle_name,
                    date_of_birth,
                    gender: self.gender,
                },
            },
            status,
            blacklisted: self.blacklisted,
            error_description: self.error_description,
            meta_data: self.meta_data,
            created_at: Timestamp::from_unix(self.created_at),
        })
    }
}

/// Why a save was refused, inside its transaction.
enum SaveError {
    BvnUsed,
    PhoneUsed,
    Db(DbError),
}

impl From<DieselError> for SaveError {
    fn from(e: DieselError) -> Self {
        // The unique indexes stand behind the checks below; a race that
        // reaches them is reported the same way.
        if let DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) = &e {
            let message = info.message().to_string() + info.constraint_name().unwrap_or_default();
            if message.contains("phone") {
                return SaveError::PhoneUsed;
            }
            if message.contains("bvn") {
                return SaveError::BvnUsed;
            }
        }
        SaveError::Db(DbError::from(e))
    }
}

impl From<SaveError> for SaveCardholderError {
    fn from(e: SaveError) -> Self {
        match e {
            SaveError::BvnUsed => SaveCardholderError::BvnUsed,
            SaveError::PhoneUsed => SaveCardholderError::PhoneUsed,
            SaveError::Db(e) => SaveCardholderError::Store(e.into()),
        }
    }
}

/// Live cardholders of the account and mode, other than the row itself, with
/// this BVN or phone: refuses the save naming which.
macro_rules! check_free {
    ($conn:expr, $row:expr) => {{
        let others = cardholders::table
            .filter(cardholders::account_id.eq(&$row.account_id))
            .filter(cardholders::livemode.eq($row.livemode))
            .filter(cardholders::deleted_at.is_null())
            .filter(cardholders::id.ne(&$row.id));
        if let Some(bvn) = &$row.bvn {
            let taken = others
                .filter(cardholders::bvn.eq(bvn))
                .count()
                .get_result::<i64>($conn)
                .await?;
            if taken > 0 {
                return Err(SaveError::BvnUsed);
            }
        }
        let taken = others
            .filter(cardholders::phone.eq(&$row.phone))
            .count()
            .get_result::<i64>($conn)
            .await?;
        if taken > 0 {
            return Err(SaveError::PhoneUsed);
        }
    }};
}

fn live(account: &AccountId, mode: Mode) -> (String, bool) {
    (account.to_string(), mode.is_live())
}

#[async_trait::async_trait]
impl CardholderStore for Db {
    async fn account_profile_complete(&self, account: &AccountId) -> Result<bool, StoreError> {
        let profile = with_conn!(self.pool(), |conn| {
            accounts::table
                .filter(accounts::id.eq(account.as_str()))
                .select((accounts::company_address, accounts::utility_bill_url))
                .first::<(Option<String>, Option<String>)>(conn)
                .await
                .optional()
        })?;
        Ok(matches!(profile, Some((Some(_), Some(_)))))
    }

    async fn insert(&self, record: CardholderRecord, verification: Option<NewJob>) -> Result<(), SaveCardholderError> {
        let job = &verification.map(|j| JobRow::new(j, &record.account_id, record.mode));
        let row = &CardholderRow::from(record);
        let saved = with_conn!(self.pool(), |conn| {
            let saved = conn
                .transaction::<_, SaveError, _>(async |conn| {
                    check_free!(conn, row);
                    diesel::insert_into(cardholders::table)
                        .values(row)
                        .execute(conn)
                        .await?;
                    if let Some(job) = job {
                        diesel::insert_into(jobs::table).values(job).execute(conn).await?;
                    }
                    Ok(())
                })
                .await;
            Ok::<_, DbError>(saved)
        })
        .map_err(StoreError::from)?;
        Ok(saved?)
    }

    async fn get(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardholderId,
    ) -> Result<Option<CardholderRecord>, StoreError> {
        let (account, livemode) = live(account, mode);
        let row = with_conn!(self.pool(), |conn| {
            cardholders::table
                .filter(cardholders::id.eq(id.as_str()))
                .filter(cardholders::account_id.eq(&account))
                .filter(cardholders::livemode.eq(livemode))
                .filter(cardholders::deleted_at.is_null())
                .select(CardholderRow::as_select())
                .first::<CardholderRow>(conn)
                .await
                .optional()
        })?;
        row.map(CardholderRow::record).transpose()
    }

    async fn get_any(&self, id: &CardholderId) -> Result<Option<CardholderRecord>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            cardholders::table
                .filter(cardholders::id.eq(id.as_str()))
                .filter(cardholders::deleted_at.is_null())
                .select(CardholderRow::as_select())
                .first::<CardholderRow>(conn)
                .await
                .optional()
        })?;
        row.map(CardholderRow::record).transpose()
    }

    async fn decide(
        &self,
        id: &CardholderId,
        from: CardholderStatus,
        decision: Decision,
        event: NewEvent,
        delivery: NewJob,
    ) -> Result<bool, StoreError> {
        let job = &JobRow::new(delivery, &event.account_id, event.mode);
        let event = &EventRow::new(event);
        let decision = &decision;
        let decided = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, DieselError, _>(async |conn| {
                let still = cardholders::table
                    .filter(cardholders::id.eq(id.as_str()))
                    .filter(cardholders::status.eq(from.as_str()))
                    .filter(cardholders::deleted_at.is_null());
                let changed = diesel::update(still)
                    .set((
                        cardholders::status.eq(decision.status.as_str()),
                        cardholders::blacklisted.eq(decision.blacklisted),
                        cardholders::error_description.eq(&decision.error_description),
                    ))
                    .execute(conn)
                    .await?;
                if changed == 0 {
                    return Ok(false);
                }
                store_event!(conn, event, [job]);
                Ok(true)
            })
            .await
        })?;
        Ok(decided)
    }

    async fn update_profile(&self, record: CardholderRecord) -> Result<bool, SaveCardholderError> {
        let row = &CardholderRow::from(record);
        let saved = with_conn!(self.pool(), |conn| {
            let saved = conn
                .transaction::<_, SaveError, _>(async |conn| {
                    check_free!(conn, row);
                    let mine = cardholders::table
                        .filter(cardholders::id.eq(&row.id))
                        .filter(cardholders::account_id.eq(&row.account_id))
                        .filter(cardholders::livemode.eq(row.livemode))
                        .filter(cardholders::deleted_at.is_null());
                    Ok(diesel::update(mine).set(row).execute(conn).await? == 1)
                })
                .await;
            Ok::<_, DbError>(saved)
        })
        .map_err(StoreError::from)?;
        Ok(saved?)
    }

    async fn delete(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardholderId,
        now: Timestamp,
        finish: NewJob,
    ) -> Result<bool, StoreError> {
        let now = now.unix();
        let job = &JobRow::new(finish, account, mode);
        let (account, livemode) = live(account, mode);
        let deleted = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, DieselError, _>(async |conn| {
                let deleted = diesel::update(
                    cardholders::table
                        .filter(cardholders::id.eq(id.as_str()))
                        .filter(cardholders::account_id.eq(&account))
                        .filter(cardholders::livemode.eq(livemode))
                        .filter(cardholders::deleted_at.is_null()),
                )
                .set(cardholders::deleted_at.eq(now))
                .execute(conn)
                .await?;
                if deleted == 1 {
                    diesel::insert_into(jobs::table).values(job).execute(conn).await?;
                }
                Ok(deleted == 1)
            })
            .await
        })?;
        Ok(deleted)
    }

    async fn list(
        &self,
        account: &AccountId,
        mode: Mode,
        page: Page,
    ) -> Result<(Vec<CardholderRecord>, u64), StoreError> {
        self.page_of(account, mode, None, page).await
    }

    async fn search(
        &self,
        account: &AccountId,
        mode: Mode,
        text: String,
        page: Page,
    ) -> Result<(Vec<CardholderRecord>, u64), StoreError> {
        self.page_of(account, mode, Some(text), page).await
    }

    async fn in_review(&self) -> Result<Vec<CardholderRecord>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            cardholders::table
                .filter(cardholders::status.eq(CardholderStatus::ManualReview.as_str()))
                .filter(cardholders::deleted_at.is_null())
                .order(cardholders::created_at)
                .select(CardholderRow::as_select())
                .load::<CardholderRow>(conn)
                .await
        })?;
        rows.into_iter().map(CardholderRow::record).collect()
    }

    async fn claim_processor_customer(
        &self,
        id: &CardholderId,
        now: Timestamp,
        stale_secs: i64,
    ) -> Result<CustomerClaim, StoreError> {
        use processor_customers::dsl as pc;
        let (id, now) = (id.as_str(), now.unix());
        let claim = with_conn!(self.pool(), |conn| {
            async {
                let account = cardholders::table
                    .filter(cardholders::id.eq(id))
                    .select(cardholders::account_id)
                    .first::<String>(conn)
                    .await?;
                let fresh = diesel::insert_into(pc::processor_customers)
                    .values((
                        pc::account_id.eq(&account),
                        pc::cardholder_id.eq(id),
                        pc::claimed_at.eq(now),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                let stale = now.saturating_sub(stale_secs);
                let taken_over = match fresh {
                    1 => 0,
                    _ => {
                        diesel::update(pc::processor_customers.filter(pc::cardholder_id.eq(id)))
                            .filter(pc::customer_id.is_null())
                            .filter(pc::claimed_at.lt(stale))
                            .set(pc::claimed_at.eq(now))
                            .execute(conn)
                            .await?
                    }
                };
                if fresh + taken_over == 1 {
                    return Ok(CustomerClaim::Claimed);
                }
                let known = pc::processor_customers
                    .filter(pc::cardholder_id.eq(id))
                    .select(pc::customer_id)
                    .first::<Option<String>>(conn)
                    .await?;
                Ok::<_, DieselError>(known.map_or(CustomerClaim::Busy, CustomerClaim::Known))
            }
            .await
        })?;
        Ok(claim)
    }

    async fn set_processor_customer(&self, id: &CardholderId, customer: &str) -> Result<(), StoreError> {
        use processor_customers::dsl as pc;
        with_conn!(self.pool(), |conn| {
            diesel::update(pc::processor_customers.filter(pc::cardholder_id.eq(id.as_str())))
                .set(pc::customer_id.eq(customer))
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn release_processor_customer(&self, id: &CardholderId) -> Result<(), StoreError> {
        use processor_customers::dsl as pc;
        with_conn!(self.pool(), |conn| {
            diesel::delete(pc::processor_customers.filter(pc::cardholder_id.eq(id.as_str())))
                .filter(pc::customer_id.is_null())
                .execute(conn)
                .await
        })?;
        Ok(())
    }
}

diesel::define_sql_function! {
    /// SQL's `lower`, the same on both databases.
    fn lower(text: diesel::sql_types::Text) -> diesel::sql_types::Text;
}

/// `%text%` for LIKE, in lower case, with LIKE's own characters escaped.
fn holding(text: &str) -> String {
    let escaped = text
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

impl Db {
    /// A page of the account's cardholders of `mode`, newest first, and
    /// how many there are: those `search` finds, when given.
    async fn page_of(
        &self,
        account: &AccountId,
        mode: Mode,
        search: Option<String>,
        page: Page,
    ) -> Result<(Vec<CardholderRecord>, u64), StoreError> {
        let (account, livemode) = live(account, mode);
        let pattern = search.as_deref().map(holding);
        let (rows, total) = with_conn!(self.pool(), |conn| {
            async {
                let mine = || {
                    let all = cardholders::table
                        .filter(cardholders::account_id.eq(&account))
                        .filter(cardholders::livemode.eq(livemode))
                        .filter(cardholders::deleted_at.is_null())
                        .into_boxed();
                    match (&search, &pattern) {
                        (Some(text), Some(pattern)) => {
                            let name = lower(cardholders::first_name.concat(" ").concat(cardholders::last_name));
                            all.filter(
                                cardholders::id
                                    .eq(text.clone())
                                    .or(name.like(pattern.clone()).escape('\\'))
                                    .or(cardholders::phone.like(pattern.clone()).escape('\\')),
                            )
                        }
                        _ => all,
                    }
                };
                let total = mine().count().get_result::<i64>(conn).await?;
                let rows = mine()
                    .order(cardholders::id.desc())
                    .limit(i64::from(page.size))
                    .offset(page.offset())
                    .select(CardholderRow::as_select())
                    .load::<CardholderRow>(conn)
                    .await?;
                Ok::<_, DieselError>((rows, total))
            }
            .await
        })?;
        let records = rows.into_iter().map(CardholderRow::record).collect::<Result<_, _>>()?;
        Ok((records, u64::try_from(total).unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests;

//! Spending controls as stored: an account's in their own table; a card's
//! beside its spend by window in `card_spending` (a row once the card has
//! controls or spends), which the debit's batch advances under the card's
//! lock ([`crate::db::money::debits`]).

use crate::db::money::steps::mine;
use crate::db::schema::{card_spending, cards, spending_controls};
use crate::db::{Db, with_conn};
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use domain::cards::spending_controls::{SpendingControls, Window, Windows};
use domain::ids::{AccountId, CardId};
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::spending_controls::{CardControls, SpendingControlStore};

/// A card's row of `card_spending`.
#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = card_spending)]
pub(in crate::db) struct SpendingRow {
    pub(in crate::db) card_id: String,
    pub(in crate::db) controls: Option<String>,
    pub(in crate::db) day_key: i32,
    pub(in crate::db) day_spend: i64,
    pub(in crate::db) week_key: i32,
    pub(in crate::db) week_spend: i64,
    pub(in crate::db) lifetime_spend: i64,
}

impl SpendingRow {
    /// The card's windows, with its month's (`(key, spend)`, kept on the
    /// card); no row: nothing spent in them.
    pub(in crate::db) fn windows(row: Option<&SpendingRow>, month: (i32, i64)) -> Windows {
        let window = |key, spend| Window { key, spend };
        Windows {
            day: row.map_or_else(Window::default, |r| window(r.day_key, r.day_spend)),
            week: row.map_or_else(Window::default, |r| window(r.week_key, r.week_spend)),
            month: window(month.0, month.1),
            lifetime: row.map_or(0, |r| r.lifetime_spend),
        }
    }

    /// The card's own controls.
    pub(in crate::db) fn controls(&self) -> Result<Option<SpendingControls>, StoreError> {
        let whose = format!("card {}", self.card_id);
        self.controls.as_deref().map(|j| stored_controls(j, &whose)).transpose()
    }
}

/// Controls as stored, or the store's error naming whose they are.
pub(in crate::db) fn stored_controls(json: &str, whose: &str) -> Result<SpendingControls, StoreError> {
    serde_json::from_str(json).map_err(|_| StoreError::new(format!("{whose} has unreadable spending controls")))
}

/// Controls to store: JSON, or none.
fn to_store(controls: Option<SpendingControls>) -> Result<Option<String>, StoreError> {
    controls
        .map(|c| serde_json::to_string(&c).map_err(|e| StoreError::new(format!("spending controls: {e}"))))
        .transpose()
}

/// Inside a transaction: the card `$new` takes over the spending row of
/// `$old`, which a migration deletes.
macro_rules! take_over_spending {
    ($conn:expr, $old:expr, $new:expr) => {{
        let (old, new): (&str, &str) = ($old, $new);
        diesel::sql_query(
            "INSERT INTO card_spending (account_id, card_id, controls, day_key, day_spend, week_key, week_spend, \
             lifetime_spend) SELECT account_id, $1, controls, day_key, day_spend, week_key, week_spend, \
             lifetime_spend FROM card_spending WHERE card_id = $2",
        )
        .bind::<diesel::sql_types::Text, _>(new)
        .bind::<diesel::sql_types::Text, _>(old)
        .execute($conn)
        .await
    }};
}
pub(in crate::db) use take_over_spending;

#[async_trait::async_trait]
impl SpendingControlStore for Db {
    async fn account_controls(&self, account: &AccountId, mode: Mode) -> Result<Option<SpendingControls>, StoreError> {
        let json = with_conn!(self.pool(), |conn| {
            spending_controls::table
                .find((account.as_str(), mode.is_live()))
                .select(spending_controls::controls)
                .first::<String>(conn)
                .await
                .optional()
        })?;
        let whose = format!("account {account}");
        json.map(|j| stored_controls(&j, &whose)).transpose()
    }

    async fn set_account_controls(
        &self,
        account: &AccountId,
        mode: Mode,
        controls: Option<SpendingControls>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let key = (account.as_str(), mode.is_live());
        match to_store(controls)? {
            None => with_conn!(self.pool(), |conn| {
                diesel::delete(spending_controls::table.find(key)).execute(conn).await
            })?,
            Some(json) => with_conn!(self.pool(), |conn| {
                let values = (
                    spending_controls::controls.eq(&json),
                    spending_controls::updated_at.eq(now.unix()),
                );
                diesel::insert_into(spending_controls::table)
                    .values((
                        spending_controls::account_id.eq(key.0),
                        spending_controls::livemode.eq(key.1),
                        values,
                    ))
                    .on_conflict((spending_controls::account_id, spending_controls::livemode))
                    .do_update()
                    .set(values)
                    .execute(conn)
                    .await
            })?,
        };
        Ok(())
    }

    async fn card_controls(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
    ) -> Result<Option<CardControls>, StoreError> {
        let found = with_conn!(self.pool(), |conn| async {
            let month = mine!(account, mode)
                .filter(cards::id.eq(card.as_str()))
                .select((cards::spend_month, cards::month_spend))
                .first::<(i32, i64)>(conn)
                .await
                .optional()?;
            let Some(month) = month else {
                return Ok(None);
            };
            let row = card_spending::table
                .find((account.as_str(), card.as_str()))
                .select(SpendingRow::as_select())
                .first(conn)
                .await
                .optional()?;
            Ok::<_, diesel::result::Error>(Some((month, row)))
        }
        .await)?;
        let Some((month, row)) = found else {
            return Ok(None);
        };
        Ok(Some(CardControls {
            controls: row.as_ref().map(SpendingRow::controls).transpose()?.flatten(),
            spend: SpendingRow::windows(row.as_ref(), month),
        }))
    }

    async fn set_card_controls(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        controls: Option<SpendingControls>,
    ) -> Result<bool, StoreError> {
        let json = to_store(controls)?;
        let set = with_conn!(self.pool(), |conn| async {
            let exists = mine!(account, mode)
                .filter(cards::id.eq(card.as_str()))
                .count()
                .get_result::<i64>(conn)
                .await?;
            if exists == 0 {
                return Ok(false);
            }
            diesel::insert_into(card_spending::table)
                .values((
                    card_spending::account_id.eq(account.as_str()),
                    card_spending::card_id.eq(card.as_str()),
                    card_spending::controls.eq(&json),
                ))
                .on_conflict((card_spending::account_id, card_spending::card_id))
                .do_update()
                .set(card_spending::controls.eq(&json))
                .execute(conn)
                .await?;
            Ok::<_, diesel::result::Error>(true)
        }
        .await)?;
        Ok(set)
    }
}

//! Rewards: the rules an account earns them by, the operator's switch,
//! promo codes and deals, and what each cardholder earned and claimed
//! (`ports::rewards`).

// Fee charges are recorded as approved transactions of this merchant
// name: not spending.
use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::rows::{APPROVED, MAINTENANCE_FEE};
use crate::db::schema::{accounts, card_transactions, reward_catalogues, reward_rules, rewards};
use crate::db::{Db, with_conn};
use diesel::dsl::max;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ids::{AccountId, CardholderId};
use domain::rewards::rules::RewardRules;
use domain::rewards::{Catalogue, Reward};
use domain::{Amount, Currency, Mode, Timestamp};
use ports::StoreError;
use ports::events::NewEvent;
use ports::jobs::NewJob;
use ports::rewards::{NewReward, RewardRecord, RewardStore, Spending};

#[derive(Queryable, Selectable)]
#[diesel(table_name = rewards)]
struct RewardRow {
    id: String,
    account_id: String,
    livemode: bool,
    cardholder_id: String,
    reward: String,
    earned_at: i64,
    claimed_at: Option<i64>,
}

impl RewardRow {
    fn record(self) -> Result<RewardRecord, StoreError> {
        let reward = serde_json::from_str::<Reward>(&self.reward)
            .map_err(|e| StoreError::new(format!("reward {} is unreadable: {e}", self.id)))?;
        Ok(RewardRecord {
            id: self.id,
            account_id: AccountId::new(self.account_id),
            mode: Mode::from_live(self.livemode),
            cardholder_id: CardholderId::new(self.cardholder_id),
            reward,
            earned_at: Timestamp::from_unix(self.earned_at),
            claimed_at: self.claimed_at.map(Timestamp::from_unix),
        })
    }
}

fn stored(reward: &Reward) -> String {
    serde_json::to_string(reward).expect("a reward is plain data")
}

#[async_trait::async_trait]
impl RewardStore for Db {
    async fn rules(&self, account: &AccountId, mode: Mode) -> Result<RewardRules, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            reward_rules::table
                .find((account.as_str(), mode.is_live()))
                .select((
                    reward_rules::enabled,
                    reward_rules::spend_threshold,
                    reward_rules::monthly_debits,
                    reward_rules::inactivity_days,
                ))
                .first::<(bool, i64, i32, i32)>(conn)
                .await
                .optional()
        })?;
        let Some((enabled, threshold, debits, days)) = row else {
            return Ok(RewardRules::default());
        };
        let unreadable = || StoreError::new(format!("the reward rules of {account} are unreadable"));
        Ok(RewardRules {
            enabled,
            spend_threshold: Amount::from_minor(threshold).ok_or_else(unreadable)?,
            monthly_debits: u32::try_from(debits).map_err(|_| unreadable())?,
            inactivity_days: u32::try_from(days).map_err(|_| unreadable())?,
        })
    }

    async fn set_rules(
        &self,
        account: &AccountId,
        mode: Mode,
        rules: RewardRules,
        switch: bool,
    ) -> Result<bool, StoreError> {
        let thresholds = (
            reward_rules::spend_threshold.eq(rules.spend_threshold.minor()),
            reward_rules::monthly_debits.eq(i32::try_from(rules.monthly_debits).unwrap_or(i32::MAX)),
            reward_rules::inactivity_days.eq(i32::try_from(rules.inactivity_days).unwrap_or(i32::MAX)),
        );
        let enabled = reward_rules::enabled.eq(rules.enabled);
        let set = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                let exists = accounts::table
                    .find(account.as_str())
                    .count()
                    .get_result::<i64>(conn)
                    .await?;
                if exists == 0 {
                    return Ok(false);
                }
                let upsert = diesel::insert_into(reward_rules::table)
                    .values((
                        reward_rules::account_id.eq(account.as_str()),
                        reward_rules::livemode.eq(mode.is_live()),
                        enabled,
                        thresholds,
                    ))
                    .on_conflict((reward_rules::account_id, reward_rules::livemode))
                    .do_update();
                match switch {
                    true => upsert.set((enabled, thresholds)).execute(conn).await?,
                    false => upsert.set(thresholds).execute(conn).await?,
                };
                Ok(true)
            })
            .await
        })?;
        Ok(set)
    }

    async fn catalogue(&self) -> Result<Catalogue, StoreError> {
        let body = with_conn!(self.pool(), |conn| {
            reward_catalogues::table
                .select(reward_catalogues::body)
                .first::<String>(conn)
                .await
                .optional()
        })?;
        match body {
            Some(body) => serde_json::from_str(&body)
                .map_err(|e| StoreError::new(format!("the imported rewards catalogue is unreadable: {e}"))),
            None => Ok(crate::rewards_catalogue::shipped()),
        }
    }

    async fn import_catalogue(&self, catalogue: &Catalogue, now: Timestamp) -> Result<(), StoreError> {
        let body = serde_json::to_string(catalogue).expect("a catalogue is plain data");
        let values = (
            reward_catalogues::body.eq(&body),
            reward_catalogues::imported_at.eq(now.unix()),
        );
        with_conn!(self.pool(), |conn| {
            diesel::insert_into(reward_catalogues::table)
                .values((reward_catalogues::id.eq(1), values))
                .on_conflict(reward_catalogues::id)
                .do_update()
                .set(values)
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn award(&self, reward: NewReward, event: NewEvent, delivery: NewJob) -> Result<bool, StoreError> {
        let job = &JobRow::new(delivery, &event.account_id, event.mode);
        let event = &EventRow::new(event);
        let r = &reward.record;
        let (rule, period) = match &reward.earned_by {
            Some((rule, period)) => (Some(rule.as_str()), Some(period.as_str())),
            None => (None, None),
        };
        let row = (
            rewards::id.eq(&r.id),
            rewards::account_id.eq(r.account_id.as_str()),
            rewards::livemode.eq(r.mode.is_live()),
            rewards::cardholder_id.eq(r.cardholder_id.as_str()),
            rewards::reward.eq(stored(&r.reward)),
            rewards::earned_at.eq(r.earned_at.unix()),
            rewards::rule.eq(rule),
            rewards::period.eq(period),
        );
        let awarded = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                // The unique (cardholder, rule, period) key: once per period.
                let inserted = diesel::insert_into(rewards::table)
                    .values(row.clone())
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                if inserted == 1 {
                    store_event!(conn, event, [job]);
                }
                Ok(inserted == 1)
            })
            .await
        })?;
        Ok(awarded)
    }

    async fn list(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
    ) -> Result<Vec<RewardRecord>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            rewards::table
                .filter(rewards::cardholder_id.eq(cardholder.as_str()))
                .filter(rewards::account_id.eq(account.as_str()))
                .filter(rewards::livemode.eq(mode.is_live()))
                .order((rewards::earned_at.asc(), rewards::id.asc()))
                .select(RewardRow::as_select())
                .load::<RewardRow>(conn)
                .await
        })?;
        rows.into_iter().map(RewardRow::record).collect()
    }

    async fn get(&self, id: &str) -> Result<Option<RewardRecord>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            rewards::table
                .filter(rewards::id.eq(id))
                .select(RewardRow::as_select())
                .first::<RewardRow>(conn)
                .await
                .optional()
        })?;
        row.map(RewardRow::record).transpose()
    }

    async fn claim(&self, id: &str, claimed: &Reward, now: Timestamp) -> Result<bool, StoreError> {
        let updated = with_conn!(self.pool(), |conn| {
            diesel::update(
                rewards::table
                    .filter(rewards::id.eq(id))
                    .filter(rewards::claimed_at.is_null()),
            )
            .set((rewards::reward.eq(stored(claimed)), rewards::claimed_at.eq(now.unix())))
            .execute(conn)
            .await
        })?;
        Ok(updated == 1)
    }

    async fn spending(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
        (from, to): (Timestamp, Timestamp),
    ) -> Result<Vec<Spending>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            card_transactions::table
                .filter(card_transactions::cardholder_id.eq(cardholder.as_str()))
                .filter(card_transactions::created_at.ge(from.unix()))
                .filter(card_transactions::created_at.lt(to.unix()))
                .filter(card_transactions::account_id.eq(account.as_str()))
                .filter(card_transactions::livemode.eq(mode.is_live()))
                .filter(card_transactions::status.eq(APPROVED))
                .filter(card_transactions::merchant_name.ne(MAINTENANCE_FEE))
                .select((card_transactions::currency, card_transactions::amount))
                .load::<(String, i64)>(conn)
                .await
        })?;
        // A cardholder's debits of one month are few: summed here, checked,
        // the same on both databases.
        let mut spending: Vec<Spending> = vec![];
        for (code, amount) in rows {
            let currency = Currency::parse("currency", &code).map_err(|e| StoreError::new(e.to_string()))?;
            let amount =
                Amount::from_minor(amount).ok_or_else(|| StoreError::new("a debit's amount is out of range"))?;
            let at = match spending.iter().position(|s| s.currency == currency) {
                Some(at) => at,
                None => {
                    spending.push(Spending {
                        currency,
                        total: Amount::ZERO,
                        debits: 0,
                    });
                    spending.len() - 1
                }
            };
            let entry = &mut spending[at];
            entry.total = entry.total.checked_add(amount).unwrap_or(Amount::MAX);
            entry.debits = entry.debits.saturating_add(1);
        }
        Ok(spending)
    }

    async fn last_debit(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
    ) -> Result<Option<Timestamp>, StoreError> {
        let last = with_conn!(self.pool(), |conn| {
            card_transactions::table
                .filter(card_transactions::cardholder_id.eq(cardholder.as_str()))
                .filter(card_transactions::account_id.eq(account.as_str()))
                .filter(card_transactions::livemode.eq(mode.is_live()))
                .filter(card_transactions::status.eq(APPROVED))
                .filter(card_transactions::merchant_name.ne(MAINTENANCE_FEE))
                .select(max(card_transactions::created_at))
                .first::<Option<i64>>(conn)
                .await
        })?;
        Ok(last.map(Timestamp::from_unix))
    }
}

#[cfg(test)]
mod tests;

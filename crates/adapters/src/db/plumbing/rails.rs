//! The rails each mode runs on, recorded when first chosen, and every
//! deliberate change of them: [`ports::rails::RailsStore`].

use crate::db::schema::{cardholders, cards, rails, rails_changes};
use crate::db::{Db, DbError, with_conn};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::cardholders::CardholderStatus;
use domain::rails::{InUse, Rails};
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::rails::{RailsChange, RailsStore};

fn text(rails: &Rails) -> String {
    serde_json::to_string(rails).expect("rails serialize")
}

fn parsed(text: &str) -> Result<Rails, DbError> {
    serde_json::from_str(text).map_err(|e| DbError::Store(StoreError::new(format!("recorded rails unreadable: {e}"))))
}

#[async_trait::async_trait]
impl RailsStore for Db {
    async fn record_first(&self, mode: Mode, chosen: &Rails, at: Timestamp) -> Result<Rails, StoreError> {
        let recorded = with_conn!(self.pool(), |conn| {
            async {
                // Two processes starting at once record one of theirs.
                diesel::insert_into(rails::table)
                    .values((
                        rails::livemode.eq(mode.is_live()),
                        rails::chosen.eq(text(chosen)),
                        rails::recorded_at.eq(at.unix()),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                let recorded = rails::table
                    .find(mode.is_live())
                    .select(rails::chosen)
                    .first::<String>(conn)
                    .await?;
                parsed(&recorded)
            }
            .await
        })?;
        Ok(recorded)
    }

    async fn set(&self, mode: Mode, chosen: &Rails, note: &str, at: Timestamp) -> Result<Option<Rails>, StoreError> {
        let before = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, DbError, _>(async |conn| {
                // The row first (a write: SQLite's one writer; PostgreSQL's
                // row lock), so two changes are kept in their order.
                let before = diesel::update(rails::table.find(mode.is_live()))
                    .set(rails::recorded_at.eq(rails::recorded_at))
                    .returning(rails::chosen)
                    .get_result::<String>(conn)
                    .await
                    .optional()?;
                diesel::insert_into(rails::table)
                    .values((
                        rails::livemode.eq(mode.is_live()),
                        rails::chosen.eq(text(chosen)),
                        rails::recorded_at.eq(at.unix()),
                    ))
                    .on_conflict(rails::livemode)
                    .do_update()
                    .set((rails::chosen.eq(text(chosen)), rails::recorded_at.eq(at.unix())))
                    .execute(conn)
                    .await?;
                diesel::insert_into(rails_changes::table)
                    .values((
                        rails_changes::livemode.eq(mode.is_live()),
                        rails_changes::before.eq(&before),
                        rails_changes::after.eq(text(chosen)),
                        rails_changes::note.eq(note),
                        rails_changes::changed_at.eq(at.unix()),
                    ))
                    .execute(conn)
                    .await?;
                before.as_deref().map(parsed).transpose()
            })
            .await
        })?;
        Ok(before)
    }

    async fn in_use(&self, mode: Mode) -> Result<InUse, StoreError> {
        let (cards, pending) = with_conn!(self.pool(), |conn| {
            async {
                let cards = cards::table
                    .filter(cards::livemode.eq(mode.is_live()))
                    .filter(cards::deleted_at.is_null())
                    .count()
                    .get_result::<i64>(conn)
                    .await?;
                let pending = cardholders::table
                    .filter(cardholders::livemode.eq(mode.is_live()))
                    .filter(cardholders::deleted_at.is_null())
                    .filter(cardholders::status.eq(CardholderStatus::Pending.as_str()))
                    .count()
                    .get_result::<i64>(conn)
                    .await?;
                Ok::<_, diesel::result::Error>((cards, pending))
            }
            .await
        })?;
        Ok(InUse {
            live_cards: u64::try_from(cards).unwrap_or(0),
            pending_cardholders: u64::try_from(pending).unwrap_or(0),
        })
    }

    async fn recorded(&self) -> Result<Vec<(Mode, Rails)>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            rails::table
                .order(rails::livemode.desc())
                .select((rails::livemode, rails::chosen))
                .load::<(bool, String)>(conn)
                .await
        })?;
        rows.into_iter()
            .map(|(live, rails)| Ok((if live { Mode::Live } else { Mode::Test }, parsed(&rails)?)))
            .collect::<Result<_, DbError>>()
            .map_err(StoreError::from)
    }

    async fn changes(&self) -> Result<Vec<RailsChange>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            rails_changes::table
                .order(rails_changes::id)
                .select((
                    rails_changes::livemode,
                    rails_changes::before,
                    rails_changes::after,
                    rails_changes::note,
                    rails_changes::changed_at,
                ))
                .load::<(bool, Option<String>, String, String, i64)>(conn)
                .await
        })?;
        let change = |(live, before, after, note, at): (bool, Option<String>, String, String, i64)| {
            Ok(RailsChange {
                mode: if live { Mode::Live } else { Mode::Test },
                before: before.as_deref().map(parsed).transpose()?,
                after: parsed(&after)?,
                note,
                at: Timestamp::from_unix(at),
            })
        };
        rows.into_iter()
            .map(change)
            .collect::<Result<_, DbError>>()
            .map_err(StoreError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_db::TestDb;

    fn on(processor: &str) -> Rails {
        Rails {
            card_processor: processor.into(),
            processor_url: (processor == "sudo").then(|| "https://api.sudo.africa".into()),
            vault_url: (processor == "sudo").then(|| "https://vault.sudo.africa".into()),
            kyc_provider: "sandbox".into(),
            kyc_url: None,
            funding_source: None,
        }
    }

    /// The first choice is kept against later ones; a change is made only
    /// on purpose, and kept with what it replaced.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rails_are_recorded_once_and_changed_on_purpose() {
        for t in TestDb::all().await {
            let db = t.migrated().await;
            let at = Timestamp::from_unix(1_700_000_000);
            assert_eq!(db.record_first(Mode::Live, &on("sudo"), at).await.unwrap(), on("sudo"));
            assert_eq!(
                db.record_first(Mode::Live, &on("simulator"), at).await.unwrap(),
                on("sudo"),
                "{}",
                t.backend()
            );
            assert_eq!(
                db.record_first(Mode::Test, &on("simulator"), at).await.unwrap(),
                on("simulator")
            );
            let before = db
                .set(Mode::Live, &on("simulator"), "back to trials", at)
                .await
                .unwrap();
            assert_eq!(before, Some(on("sudo")));
            assert_eq!(
                db.record_first(Mode::Live, &on("sudo"), at).await.unwrap(),
                on("simulator")
            );
            let changes = db.changes().await.unwrap();
            assert_eq!(changes.len(), 1, "{}", t.backend());
            assert_eq!(
                (
                    changes[0].mode,
                    &changes[0].before,
                    &changes[0].after,
                    changes[0].note.as_str()
                ),
                (Mode::Live, &Some(on("sudo")), &on("simulator"), "back to trials")
            );
        }
    }
}

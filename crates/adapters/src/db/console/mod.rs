//! The dashboard's users, sessions and audit log (`ports::console`).

use crate::db::schema::{accounts, dashboard_audit, dashboard_sessions, dashboard_users};
use crate::db::{Db, with_conn};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::Timestamp;
use domain::console::{LoginCount, Role, Seat, SessionWindow};
use domain::ids::AccountId;
use ports::StoreError;
use ports::console::{AccountRow, AuditEntry, ConsoleStore, Login, NewSession, NewUser, User};

/// A user's row as read: id, email, account, role, whether they have a
/// second factor.
type UserRow = (String, String, Option<String>, String, bool);

/// The columns of a [`UserRow`].
macro_rules! user_columns {
    () => {
        (
            dashboard_users::id,
            dashboard_users::email,
            dashboard_users::account_id,
            dashboard_users::role,
            dashboard_users::totp_sealed.is_not_null(),
        )
    };
}

fn user((id, email, account, role, second_factor): UserRow) -> Result<User, StoreError> {
    let role = Role::parse("dashboard_users.role", &role).map_err(StoreError::new)?;
    let seat = match (role, account) {
        (Role::Operator, None) => Seat::Operator,
        (role, Some(account)) if role != Role::Operator => Seat::Account {
            account: AccountId::new(account),
            role,
        },
        _ => {
            return Err(StoreError::new(format!(
                "dashboard user {id}: role and account disagree"
            )));
        }
    };
    Ok(User {
        id,
        email,
        seat,
        second_factor,
    })
}

#[async_trait::async_trait]
impl ConsoleStore for Db {
    async fn create_user(&self, new: NewUser) -> Result<bool, StoreError> {
        let (account, role) = match &new.seat {
            Seat::Operator => (None, Role::Operator),
            Seat::Account { account, role } => (Some(account.as_str().to_string()), *role),
        };
        let inserted = with_conn!(self.pool(), |conn| {
            diesel::insert_into(dashboard_users::table)
                .values((
                    dashboard_users::id.eq(&new.id),
                    dashboard_users::email.eq(&new.email),
                    dashboard_users::account_id.eq(&account),
                    dashboard_users::role.eq(role.as_str()),
                    dashboard_users::link_hash.eq(&new.link_hash),
                    dashboard_users::link_expires_at.eq(new.link_expires_at.unix()),
                    dashboard_users::created_at.eq(new.created_at.unix()),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await
        })?;
        Ok(inserted == 1)
    }

    async fn set_password(
        &self,
        link_hash: &str,
        password_hash: &str,
        now: Timestamp,
    ) -> Result<Option<User>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            diesel::update(
                dashboard_users::table
                    .filter(dashboard_users::link_hash.eq(link_hash))
                    .filter(dashboard_users::link_expires_at.gt(now.unix())),
            )
            .set((
                dashboard_users::password_hash.eq(password_hash),
                dashboard_users::link_hash.eq(None::<String>),
                dashboard_users::link_expires_at.eq(None::<i64>),
                dashboard_users::failed_logins.eq(0),
                dashboard_users::locked_until.eq(None::<i64>),
            ))
            .returning(user_columns!())
            .get_result::<UserRow>(conn)
            .await
            .optional()
        })?;
        row.map(user).transpose()
    }

    async fn link_open(&self, link_hash: &str, now: Timestamp) -> Result<bool, StoreError> {
        let found = with_conn!(self.pool(), |conn| {
            dashboard_users::table
                .filter(dashboard_users::link_hash.eq(link_hash))
                .filter(dashboard_users::link_expires_at.gt(now.unix()))
                .count()
                .get_result::<i64>(conn)
                .await
        })?;
        Ok(found > 0)
    }

    async fn login(&self, email: &str) -> Result<Option<Login>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            dashboard_users::table
                .filter(dashboard_users::email.eq(email))
                .select((
                    user_columns!(),
                    dashboard_users::password_hash,
                    (dashboard_users::failed_logins, dashboard_users::locked_until),
                    dashboard_users::totp_sealed,
                ))
                .first::<(UserRow, Option<String>, (i32, Option<i64>), Option<Vec<u8>>)>(conn)
                .await
                .optional()
        })?;
        row.map(|(row, password_hash, (failed, locked_until), totp_sealed)| {
            Ok(Login {
                user: user(row)?,
                password_hash,
                count: LoginCount {
                    failed,
                    locked_until: locked_until.map(Timestamp::from_unix),
                },
                totp_sealed,
            })
        })
        .transpose()
    }

    async fn set_totp(&self, user_id: &str, sealed: Vec<u8>) -> Result<bool, StoreError> {
        let set = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                let set = diesel::update(
                    dashboard_users::table
                        .filter(dashboard_users::id.eq(user_id))
                        .filter(dashboard_users::totp_sealed.is_null()),
                )
                .set(dashboard_users::totp_sealed.eq(&sealed))
                .execute(conn)
                .await?;
                // Sessions signed in without it end: the next needs the code.
                diesel::delete(dashboard_sessions::table.filter(dashboard_sessions::user_id.eq(user_id)))
                    .execute(conn)
                    .await?;
                Ok(set == 1)
            })
            .await
        })?;
        Ok(set)
    }

    async fn count_attempt(&self, user_id: &str, seen: LoginCount, next: LoginCount) -> Result<bool, StoreError> {
        let next_lock = next.locked_until.map(Timestamp::unix);
        let updated = with_conn!(self.pool(), |conn| {
            let mine = dashboard_users::table
                .filter(dashboard_users::id.eq(user_id))
                .filter(dashboard_users::failed_logins.eq(seen.failed));
            let set = (
                dashboard_users::failed_logins.eq(next.failed),
                dashboard_users::locked_until.eq(next_lock),
            );
            match seen.locked_until {
                Some(until) => {
                    let unchanged = mine.filter(dashboard_users::locked_until.eq(until.unix()));
                    diesel::update(unchanged).set(set).execute(conn).await
                }
                None => {
                    let unchanged = mine.filter(dashboard_users::locked_until.is_null());
                    diesel::update(unchanged).set(set).execute(conn).await
                }
            }
        })?;
        Ok(updated == 1)
    }

    async fn start_session(&self, session: NewSession) -> Result<bool, StoreError> {
        let counted_lock = session.counted.locked_until.map(Timestamp::unix);
        let started = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                let mine = || dashboard_users::table.filter(dashboard_users::id.eq(&session.user_id));
                // The user's row, held (a second factor set up meanwhile
                // waits, then ends this session too), if its second factor
                // is as it was checked.
                let itself = dashboard_users::id.eq(dashboard_users::id);
                let held = match session.second_factor {
                    true => {
                        let as_checked = mine().filter(dashboard_users::totp_sealed.is_not_null());
                        diesel::update(as_checked).set(itself).execute(conn).await?
                    }
                    false => {
                        let as_checked = mine().filter(dashboard_users::totp_sealed.is_null());
                        diesel::update(as_checked).set(itself).execute(conn).await?
                    }
                };
                if held == 0 {
                    return Ok(false);
                }
                // The count starts again, unless attempts raced in after
                // this one: they keep their places.
                let reset = (
                    dashboard_users::failed_logins.eq(0),
                    dashboard_users::locked_until.eq(None::<i64>),
                );
                let as_left = mine().filter(dashboard_users::failed_logins.eq(session.counted.failed));
                match counted_lock {
                    Some(until) => {
                        let unchanged = as_left.filter(dashboard_users::locked_until.eq(until));
                        diesel::update(unchanged).set(reset).execute(conn).await?
                    }
                    None => {
                        let unchanged = as_left.filter(dashboard_users::locked_until.is_null());
                        diesel::update(unchanged).set(reset).execute(conn).await?
                    }
                };
                // The user's sessions that are over go (nothing else reads them).
                let over = SessionWindow::at(session.started_at);
                diesel::delete(
                    dashboard_sessions::table
                        .filter(dashboard_sessions::user_id.eq(&session.user_id))
                        .filter(
                            dashboard_sessions::seen_at
                                .le(over.seen_after.unix())
                                .or(dashboard_sessions::started_at.le(over.started_after.unix())),
                        ),
                )
                .execute(conn)
                .await?;
                diesel::insert_into(dashboard_sessions::table)
                    .values((
                        dashboard_sessions::token_hash.eq(&session.token_hash),
                        dashboard_sessions::user_id.eq(&session.user_id),
                        dashboard_sessions::started_at.eq(session.started_at.unix()),
                        dashboard_sessions::seen_at.eq(session.started_at.unix()),
                    ))
                    .execute(conn)
                    .await?;
                Ok(true)
            })
            .await
        })?;
        Ok(started)
    }

    async fn session(&self, token_hash: &str, window: SessionWindow) -> Result<Option<User>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                let seen = diesel::update(
                    dashboard_sessions::table
                        .filter(dashboard_sessions::token_hash.eq(token_hash))
                        .filter(dashboard_sessions::seen_at.gt(window.seen_after.unix()))
                        .filter(dashboard_sessions::started_at.gt(window.started_after.unix())),
                )
                .set(dashboard_sessions::seen_at.eq(window.now.unix()))
                .returning(dashboard_sessions::user_id)
                .get_result::<String>(conn)
                .await
                .optional()?;
                let Some(user_id) = seen else { return Ok(None) };
                dashboard_users::table
                    .filter(dashboard_users::id.eq(user_id))
                    .select(user_columns!())
                    .first::<UserRow>(conn)
                    .await
                    .optional()
            })
            .await
        })?;
        row.map(user).transpose()
    }

    async fn end_session(&self, token_hash: &str) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::delete(dashboard_sessions::table.filter(dashboard_sessions::token_hash.eq(token_hash)))
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn users(&self, account: Option<AccountId>) -> Result<Vec<User>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            let query = dashboard_users::table
                .select(user_columns!())
                .order(dashboard_users::email)
                .into_boxed();
            match &account {
                Some(account) => query.filter(dashboard_users::account_id.eq(account.as_str())),
                None => query.filter(dashboard_users::account_id.is_null()),
            }
            .load::<UserRow>(conn)
            .await
        })?;
        rows.into_iter().map(user).collect()
    }

    async fn audit(&self, entry: AuditEntry) -> Result<(), StoreError> {
        let account = entry.account.as_ref().map_or("", AccountId::as_str);
        with_conn!(self.pool(), |conn| {
            diesel::insert_into(dashboard_audit::table)
                .values((
                    dashboard_audit::account_id.eq(account),
                    dashboard_audit::at.eq(entry.at.unix()),
                    dashboard_audit::email.eq(&entry.email),
                    dashboard_audit::action.eq(&entry.action),
                    dashboard_audit::detail.eq(&entry.detail),
                    dashboard_audit::origin.eq(&entry.from),
                ))
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn audit_log(&self, account: Option<AccountId>, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            let query = dashboard_audit::table
                .select((
                    dashboard_audit::at,
                    dashboard_audit::email,
                    dashboard_audit::account_id,
                    dashboard_audit::action,
                    dashboard_audit::detail,
                    dashboard_audit::origin,
                ))
                .order(dashboard_audit::id.desc())
                .limit(limit)
                .into_boxed();
            match &account {
                Some(account) => query.filter(dashboard_audit::account_id.eq(account.as_str())),
                None => query,
            }
            .load::<(i64, String, String, String, String, String)>(conn)
            .await
        })?;
        Ok(rows
            .into_iter()
            .map(|(at, email, account, action, detail, from)| AuditEntry {
                at: Timestamp::from_unix(at),
                email,
                account: (!account.is_empty()).then(|| AccountId::new(account)),
                action,
                detail,
                from,
            })
            .collect())
    }

    async fn accounts(&self, only: Option<AccountId>) -> Result<Vec<AccountRow>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            let query = accounts::table
                .select((
                    accounts::id,
                    accounts::name,
                    accounts::created_at,
                    accounts::webhook_url_test,
                    accounts::webhook_url_live,
                ))
                .order((accounts::created_at.desc(), accounts::id))
                .into_boxed();
            match &only {
                Some(account) => query.filter(accounts::id.eq(account.as_str())),
                None => query,
            }
            .load::<(String, String, i64, Option<String>, Option<String>)>(conn)
            .await
        })?;
        Ok(rows
            .into_iter()
            .map(
                |(id, name, created_at, webhook_url_test, webhook_url_live)| AccountRow {
                    id: AccountId::new(id),
                    name,
                    created_at: Timestamp::from_unix(created_at),
                    webhook_url_test,
                    webhook_url_live,
                },
            )
            .collect())
    }
}

#[cfg(test)]
mod tests;

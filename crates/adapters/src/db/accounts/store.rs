use crate::db::money::ledger::{LedgerAccountRow, LedgerCode};
use crate::db::schema::{accounts, api_keys, ledger_accounts};
use crate::db::{Db, with_conn};
use diesel::{
    AsChangeset, BoolExpressionMethods, ExpressionMethods, Insertable, NullableExpressionMethods, OptionalExtension,
    QueryDsl, TextExpressionMethods,
};
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::ids::AccountId;
use domain::{Currency, Mode, Timestamp};
use ports::StoreError;
use ports::accounts::{AccountChanges, AccountStore, DemoKey, KeyOwner, KeySummary, NewAccount, StoredKey};

#[derive(Insertable)]
#[diesel(table_name = accounts)]
struct AccountRow<'a> {
    id: &'a str,
    name: &'a str,
    is_demo: bool,
    webhook_url_test: Option<&'a str>,
    webhook_url_live: Option<&'a str>,
    test_webhook_secret_sealed: &'a [u8],
    live_webhook_secret_sealed: &'a [u8],
    company_address: Option<&'a str>,
    utility_bill_url: Option<&'a str>,
    created_at: i64,
}

#[derive(AsChangeset)]
#[diesel(table_name = accounts)]
struct AccountChangeset<'a> {
    webhook_url_test: Option<&'a str>,
    webhook_url_live: Option<&'a str>,
    company_address: Option<&'a str>,
    utility_bill_url: Option<&'a str>,
}

#[derive(Insertable)]
#[diesel(table_name = api_keys)]
struct KeyRow<'a> {
    lookup_hash: &'a str,
    account_id: &'a str,
    livemode: bool,
    sealed_key: &'a [u8],
    created_at: i64,
}

/// How many characters of a key's lookup hash name it to operators.
const KEY_ID_CHARS: usize = 16;

/// Keys that have not expired by `now` (a current key never does).
macro_rules! unexpired {
    ($now:expr) => {
        api_keys::expires_at.is_null().or(api_keys::expires_at.gt($now))
    };
}

/// The ledger accounts every account starts with: an issuing wallet, fee
/// income, deposits and losses per currency and mode, and the sandbox
/// faucet per currency.
fn opening_ledger_accounts(account: &AccountId, now: i64) -> Vec<LedgerAccountRow> {
    let wallets = Mode::BOTH.into_iter().flat_map(|mode| {
        Currency::ALL.into_iter().flat_map(move |c| {
            [
                LedgerCode::IssuingWallet,
                LedgerCode::FeeIncome,
                LedgerCode::Deposits,
                LedgerCode::Losses,
            ]
            .map(|code| LedgerAccountRow::new(account, mode, code, c, now))
        })
    });
    let faucets = Currency::ALL
        .into_iter()
        .map(|c| LedgerAccountRow::new(account, Mode::Test, LedgerCode::Faucet, c, now));
    wallets.chain(faucets).collect()
}

#[async_trait::async_trait]
impl AccountStore for Db {
    async fn create_account(&self, account: NewAccount) -> Result<(), StoreError> {
        let account_row = &AccountRow {
            id: account.id.as_str(),
            name: &account.name,
            is_demo: account.is_demo,
            webhook_url_test: account.webhook_url.as_deref(),
            webhook_url_live: account.webhook_url.as_deref(),
            test_webhook_secret_sealed: &account.test_webhook_secret_sealed,
            live_webhook_secret_sealed: &account.live_webhook_secret_sealed,
            company_address: account.company_address.as_deref(),
            utility_bill_url: account.utility_bill_url.as_deref(),
            created_at: account.created_at.unix(),
        };
        let key_rows = &account
            .keys
            .iter()
            .map(|k| KeyRow {
                lookup_hash: &k.lookup_hash,
                account_id: account.id.as_str(),
                livemode: k.mode.is_live(),
                sealed_key: &k.sealed,
                created_at: account.created_at.unix(),
            })
            .collect::<Vec<_>>();
        let ledger_rows = &opening_ledger_accounts(&account.id, account.created_at.unix());
        with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                diesel::insert_into(accounts::table)
                    .values(account_row)
                    .execute(conn)
                    .await?;
                // Row by row: diesel-async cannot batch-insert on SQLite.
                for row in key_rows {
                    diesel::insert_into(api_keys::table).values(row).execute(conn).await?;
                }
                for row in ledger_rows {
                    diesel::insert_into(ledger_accounts::table)
                        .values(row)
                        .execute(conn)
                        .await?;
                }
                Ok(())
            })
            .await
        })?;
        Ok(())
    }

    async fn update_account(&self, account: &AccountId, changes: AccountChanges) -> Result<bool, StoreError> {
        let changeset = AccountChangeset {
            webhook_url_test: changes.webhook_url.as_deref(),
            webhook_url_live: changes.webhook_url.as_deref(),
            company_address: changes.company_address.as_deref(),
            utility_bill_url: changes.utility_bill_url.as_deref(),
        };
        let target = accounts::table.filter(accounts::id.eq(account.as_str()));
        let updated = with_conn!(self.pool(), |conn| diesel::update(target)
            .set(&changeset)
            .execute(conn)
            .await)?;
        Ok(updated == 1)
    }

    async fn set_webhook_url(&self, account: &AccountId, mode: Mode, url: &str) -> Result<(), StoreError> {
        let target = accounts::table.filter(accounts::id.eq(account.as_str()));
        with_conn!(self.pool(), |conn| match mode {
            Mode::Test =>
                diesel::update(target)
                    .set(accounts::webhook_url_test.eq(url))
                    .execute(conn)
                    .await,
            Mode::Live =>
                diesel::update(target)
                    .set(accounts::webhook_url_live.eq(url))
                    .execute(conn)
                    .await,
        })?;
        Ok(())
    }

    async fn find_key(&self, lookup_hash: &str, now: Timestamp) -> Result<Option<KeyOwner>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            api_keys::table
                .filter(api_keys::lookup_hash.eq(lookup_hash))
                .filter(unexpired!(now.unix()))
                .select((api_keys::account_id, api_keys::livemode, api_keys::expires_at))
                .first::<(String, bool, Option<i64>)>(conn)
                .await
                .optional()
        })?;
        Ok(row.map(|(account_id, live, expires_at)| KeyOwner {
            account_id: AccountId::new(account_id),
            mode: Mode::from_live(live),
            expires_at: expires_at.map(Timestamp::from_unix),
        }))
    }

    async fn roll_key(
        &self,
        account: &AccountId,
        key: StoredKey,
        now: Timestamp,
        old_expire_at: Timestamp,
    ) -> Result<bool, StoreError> {
        let row = &KeyRow {
            lookup_hash: &key.lookup_hash,
            account_id: account.as_str(),
            livemode: key.mode.is_live(),
            sealed_key: &key.sealed,
            created_at: now.unix(),
        };
        let rolled = with_conn!(self.pool(), |conn| {
            conn.transaction::<_, diesel::result::Error, _>(async |conn| {
                let exists = accounts::table
                    .filter(accounts::id.eq(account.as_str()))
                    .select(accounts::id)
                    .first::<String>(conn)
                    .await
                    .optional()?;
                if exists.is_none() {
                    return Ok(false);
                }
                // Every earlier key, current or already on its way out,
                // stops by the new overlap's end at the latest.
                let end = old_expire_at.unix();
                diesel::update(
                    api_keys::table
                        .filter(api_keys::account_id.eq(account.as_str()))
                        .filter(api_keys::livemode.eq(key.mode.is_live()))
                        .filter(api_keys::expires_at.is_null().or(api_keys::expires_at.gt(end))),
                )
                .set(api_keys::expires_at.eq(end))
                .execute(conn)
                .await?;
                diesel::insert_into(api_keys::table).values(row).execute(conn).await?;
                Ok(true)
            })
            .await
        })?;
        Ok(rolled)
    }

    async fn roll_webhook_secret(
        &self,
        account: &AccountId,
        mode: Mode,
        sealed: Vec<u8>,
        old_expire_at: Timestamp,
    ) -> Result<bool, StoreError> {
        let target = accounts::table.filter(accounts::id.eq(account.as_str()));
        let (sealed, expire) = (&sealed, old_expire_at.unix());
        // The previous secret is the current one as the row holds it: read
        // and moved by the same UPDATE, so two rolls cannot lose one.
        let rolled = with_conn!(self.pool(), |conn| match mode {
            Mode::Test =>
                diesel::update(target)
                    .set((
                        accounts::test_previous_webhook_secret_sealed.eq(accounts::test_webhook_secret_sealed),
                        accounts::test_previous_webhook_secret_expires_at.eq(expire),
                        accounts::test_webhook_secret_sealed.eq(sealed),
                    ))
                    .execute(conn)
                    .await,
            Mode::Live =>
                diesel::update(target)
                    .set((
                        accounts::live_previous_webhook_secret_sealed
                            .eq(accounts::live_webhook_secret_sealed.nullable()),
                        accounts::live_previous_webhook_secret_expires_at.eq(expire),
                        accounts::live_webhook_secret_sealed.eq(sealed),
                    ))
                    .execute(conn)
                    .await,
        })?;
        Ok(rolled == 1)
    }

    async fn list_keys(&self, account: &AccountId) -> Result<Vec<KeySummary>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            api_keys::table
                .filter(api_keys::account_id.eq(account.as_str()))
                .order((api_keys::created_at.desc(), api_keys::lookup_hash))
                .select((
                    api_keys::lookup_hash,
                    api_keys::livemode,
                    api_keys::created_at,
                    api_keys::expires_at,
                ))
                .load::<(String, bool, i64, Option<i64>)>(conn)
                .await
        })?;
        Ok(rows
            .into_iter()
            .map(|(hash, live, created_at, expires_at)| KeySummary {
                id: hash.chars().take(KEY_ID_CHARS).collect(),
                mode: Mode::from_live(live),
                created_at: Timestamp::from_unix(created_at),
                expires_at: expires_at.map(Timestamp::from_unix),
            })
            .collect())
    }

    async fn revoke_key(&self, account: &AccountId, key_id: &str, now: Timestamp) -> Result<bool, StoreError> {
        if key_id.chars().count() != KEY_ID_CHARS || !key_id.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Ok(false);
        }
        let prefix = format!("{key_id}%");
        let now = now.unix();
        let revoked = with_conn!(self.pool(), |conn| {
            diesel::update(
                api_keys::table
                    .filter(api_keys::account_id.eq(account.as_str()))
                    .filter(api_keys::lookup_hash.like(&prefix))
                    .filter(unexpired!(now)),
            )
            .set(api_keys::expires_at.eq(now))
            .execute(conn)
            .await
        })?;
        Ok(revoked > 0)
    }

    async fn any_account(&self) -> Result<bool, StoreError> {
        let found = with_conn!(self.pool(), |conn| {
            accounts::table
                .select(accounts::id)
                .first::<String>(conn)
                .await
                .optional()
        })?;
        Ok(found.is_some())
    }

    async fn demo_key(&self, mode: Mode) -> Result<Option<DemoKey>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            api_keys::table
                .inner_join(accounts::table)
                .filter(accounts::is_demo.eq(true))
                .filter(api_keys::livemode.eq(mode.is_live()))
                .filter(api_keys::expires_at.is_null())
                .order(accounts::created_at.asc())
                .select((api_keys::account_id, api_keys::lookup_hash, api_keys::sealed_key))
                .first::<(String, String, Vec<u8>)>(conn)
                .await
                .optional()
        })?;
        Ok(row.map(|(account, lookup_hash, sealed)| DemoKey {
            account_id: AccountId::new(account),
            lookup_hash,
            sealed,
        }))
    }

    async fn without_test_webhook_secret(&self) -> Result<Vec<AccountId>, StoreError> {
        let ids = with_conn!(self.pool(), |conn| {
            accounts::table
                .filter(accounts::test_webhook_secret_sealed.is_null())
                .select(accounts::id)
                .load::<String>(conn)
                .await
        })?;
        Ok(ids.into_iter().map(AccountId::new).collect())
    }

    async fn set_test_webhook_secret(&self, account: &AccountId, sealed: Vec<u8>) -> Result<(), StoreError> {
        let target = accounts::table
            .filter(accounts::id.eq(account.as_str()))
            .filter(accounts::test_webhook_secret_sealed.is_null());
        with_conn!(self.pool(), |conn| {
            diesel::update(target)
                .set(accounts::test_webhook_secret_sealed.eq(Some(sealed)))
                .execute(conn)
                .await
        })?;
        Ok(())
    }
}

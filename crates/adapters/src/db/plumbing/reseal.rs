//! Every value sealed at rest, sealed again: at start, those sealed before
//! each was bound to its place (opened without a place, only here); and by
//! `issuing master-key rotate`, those sealed under the previous master
//! key. Rows are read a page at a time, and each value is replaced only if
//! it is still the one that was read, so writers running meanwhile (the
//! service stays up) never lose a value.

use crate::crypto::vault::MasterKeyVault;
use crate::db::schema::{accounts, api_keys, cards, dashboard_users, master_key_check};
use crate::db::{Db, with_conn};
use diesel::{ExpressionMethods, QueryDsl};
use diesel_async::RunQueryDsl;
use domain::{Mode, Secret};
use ports::StoreError;
use ports::vault::{Place, SealedField, Vault, VaultError};

/// Rows read at a time.
const PAGE: i64 = 500;

/// Where one sealed value is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    ApiKey,
    WebhookSecret(Mode),
    /// A rolled webhook secret while it still signs: sealed in the same
    /// place as the current one.
    PreviousWebhookSecret(Mode),
    Card(SealedField),
    /// Row 1: the check value; row 2: the key of keyed hashes.
    MasterKeyCheck(i32),
    ConsoleTotp,
}

/// One stored sealed value: where it is, and its bytes.
struct Stored {
    column: Column,
    row: String,
    account: String,
    mode: Mode,
    sealed: Vec<u8>,
}

impl Stored {
    fn place(&self) -> Place<'_> {
        let field = match self.column {
            Column::ApiKey => SealedField::ApiKey,
            Column::WebhookSecret(_) | Column::PreviousWebhookSecret(_) => SealedField::WebhookSecret,
            Column::Card(field) => field,
            Column::MasterKeyCheck(_) => SealedField::MasterKeyCheck,
            Column::ConsoleTotp => SealedField::ConsoleTotp,
        };
        Place {
            field,
            row: &self.row,
            account: &self.account,
            mode: self.mode,
        }
    }
}

/// The tables that hold sealed values, read in pages by primary key.
#[derive(Debug, Clone, Copy)]
enum Table {
    ApiKeys,
    Accounts,
    Cards,
    MasterKeyCheck,
    DashboardUsers,
}

const TABLES: [Table; 5] = [
    Table::ApiKeys,
    Table::Accounts,
    Table::Cards,
    Table::MasterKeyCheck,
    Table::DashboardUsers,
];

type CardRow = (String, String, bool, [Vec<u8>; 5], [Option<Vec<u8>>; 2]);

impl Db {
    /// Seals again, bound to its place, every value sealed before places
    /// were; returns how many. A value the key does not open is an error
    /// naming its column and row (the key is not this database's).
    pub async fn reseal_unbound(&self, vault: &MasterKeyVault) -> Result<usize, StoreError> {
        self.reseal_where(
            |sealed| !MasterKeyVault::is_current(sealed),
            |value| vault.open_unbound(&value.sealed),
            vault,
        )
        .await
    }

    /// Seals again under the current master key every value sealed under
    /// the previous one (`MasterKeyVault::with_previous`); returns how
    /// many. Run again, it finds none.
    pub async fn reseal_under_current_key(&self, vault: &MasterKeyVault) -> Result<usize, StoreError> {
        self.reseal_where(
            |sealed| vault.sealed_under_previous(sealed),
            |value| vault.open(&value.sealed, &value.place()),
            vault,
        )
        .await
    }

    async fn reseal_where(
        &self,
        selected: impl Fn(&[u8]) -> bool,
        open: impl Fn(&Stored) -> Result<Secret<Vec<u8>>, VaultError>,
        vault: &MasterKeyVault,
    ) -> Result<usize, StoreError> {
        let mut resealed = 0;
        for table in TABLES {
            let mut after = String::new();
            loop {
                let (values, last) = self.page(table, &after).await?;
                for value in values.iter().filter(|v| selected(&v.sealed)) {
                    let opened = open(value).map_err(|_| {
                        StoreError::new(format!(
                            "{} of {} does not open with this master key",
                            value.place().field.column(),
                            value.row
                        ))
                    })?;
                    let sealed = vault.seal(opened.expose(), &value.place());
                    resealed += usize::from(self.replace_sealed(value, &sealed).await?);
                }
                match last {
                    Some(last) => after = last,
                    None => break,
                }
            }
        }
        Ok(resealed)
    }

    /// The sealed values of the rows of `table` after the key `after`, a
    /// page of them, and the last key read (`None`: the table is done).
    async fn page(&self, table: Table, after: &str) -> Result<(Vec<Stored>, Option<String>), StoreError> {
        let mut values = vec![];
        let mut add = |column, row: &str, account: &str, mode, sealed: Option<Vec<u8>>| {
            values.extend(sealed.map(|sealed| Stored {
                column,
                row: row.to_string(),
                account: account.to_string(),
                mode,
                sealed,
            }));
        };
        let last = match table {
            Table::ApiKeys => {
                let rows = with_conn!(self.pool(), |conn| {
                    api_keys::table
                        .filter(api_keys::lookup_hash.gt(after))
                        .order(api_keys::lookup_hash)
                        .limit(PAGE)
                        .select((
                            api_keys::lookup_hash,
                            api_keys::account_id,
                            api_keys::livemode,
                            api_keys::sealed_key,
                        ))
                        .load::<(String, String, bool, Vec<u8>)>(conn)
                        .await
                })?;
                for (hash, account, live, sealed) in &rows {
                    add(
                        Column::ApiKey,
                        hash,
                        account,
                        Mode::from_live(*live),
                        Some(sealed.clone()),
                    );
                }
                rows.last().map(|r| r.0.clone())
            }
            Table::Accounts => {
                let rows = with_conn!(self.pool(), |conn| {
                    accounts::table
                        .filter(accounts::id.gt(after))
                        .order(accounts::id)
                        .limit(PAGE)
                        .select((
                            accounts::id,
                            accounts::live_webhook_secret_sealed,
                            accounts::test_webhook_secret_sealed,
                            accounts::live_previous_webhook_secret_sealed,
                            accounts::test_previous_webhook_secret_sealed,
                        ))
                        .load::<(String, Vec<u8>, Option<Vec<u8>>, Option<Vec<u8>>, Option<Vec<u8>>)>(conn)
                        .await
                })?;
                for (id, live, test, live_previous, test_previous) in &rows {
                    let (l, t) = (Mode::Live, Mode::Test);
                    add(Column::WebhookSecret(l), id, id, l, Some(live.clone()));
                    add(Column::WebhookSecret(t), id, id, t, test.clone());
                    add(Column::PreviousWebhookSecret(l), id, id, l, live_previous.clone());
                    add(Column::PreviousWebhookSecret(t), id, id, t, test_previous.clone());
                }
                rows.last().map(|r| r.0.clone())
            }
            Table::Cards => {
                let rows = with_conn!(self.pool(), |conn| {
                    cards::table
                        .filter(cards::id.gt(after))
                        .order(cards::id)
                        .limit(PAGE)
                        .select((
                            cards::id,
                            cards::account_id,
                            cards::livemode,
                            (
                                cards::pan_sealed,
                                cards::cvv_sealed,
                                cards::expiry_month_sealed,
                                cards::expiry_year_sealed,
                                cards::pin_sealed,
                            ),
                            (cards::pin_3ds_sealed, cards::nin_sealed),
                        ))
                        .load::<(
                            String,
                            String,
                            bool,
                            (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>),
                            (Option<Vec<u8>>, Option<Vec<u8>>),
                        )>(conn)
                        .await
                })?;
                let rows: Vec<CardRow> = rows
                    .into_iter()
                    .map(|(id, account, live, (pan, cvv, month, year, pin), (pin_3ds, nin))| {
                        (id, account, live, [pan, cvv, month, year, pin], [pin_3ds, nin])
                    })
                    .collect();
                for (id, account, live, always, sometimes) in &rows {
                    let mode = Mode::from_live(*live);
                    let fields = [
                        SealedField::CardNumber,
                        SealedField::CardCvv,
                        SealedField::CardExpiryMonth,
                        SealedField::CardExpiryYear,
                        SealedField::CardPin,
                    ];
                    for (field, sealed) in fields.into_iter().zip(always) {
                        add(Column::Card(field), id, account, mode, Some(sealed.clone()));
                    }
                    for (field, sealed) in [SealedField::Card3dsPin, SealedField::CardNin]
                        .into_iter()
                        .zip(sometimes)
                    {
                        add(Column::Card(field), id, account, mode, sealed.clone());
                    }
                }
                rows.last().map(|r| r.0.clone())
            }
            Table::MasterKeyCheck => {
                // One or two rows: read at once, and done.
                if !after.is_empty() {
                    return Ok((vec![], None));
                }
                let rows = with_conn!(self.pool(), |conn| {
                    master_key_check::table
                        .select((master_key_check::id, master_key_check::sealed))
                        .load::<(i32, Vec<u8>)>(conn)
                        .await
                })?;
                for (id, sealed) in rows {
                    add(
                        Column::MasterKeyCheck(id),
                        &id.to_string(),
                        "",
                        Mode::Live,
                        Some(sealed),
                    );
                }
                Some("done".to_string())
            }
            Table::DashboardUsers => {
                let rows = with_conn!(self.pool(), |conn| {
                    dashboard_users::table
                        .filter(dashboard_users::id.gt(after))
                        .filter(dashboard_users::totp_sealed.is_not_null())
                        .order(dashboard_users::id)
                        .limit(PAGE)
                        .select((dashboard_users::id, dashboard_users::totp_sealed))
                        .load::<(String, Option<Vec<u8>>)>(conn)
                        .await
                })?;
                for (id, sealed) in &rows {
                    add(Column::ConsoleTotp, id, "", Mode::Live, sealed.clone());
                }
                rows.last().map(|r| r.0.clone())
            }
        };
        Ok((values, last))
    }

    /// Stores `sealed` in place of `value`, if the row still holds what
    /// was read; `false` when it changed meanwhile (a newer value was
    /// sealed under the current key already).
    async fn replace_sealed(&self, value: &Stored, sealed: &[u8]) -> Result<bool, StoreError> {
        let (row, old) = (value.row.as_str(), &value.sealed);
        let card = cards::table.filter(cards::id.eq(row));
        let account = accounts::table.filter(accounts::id.eq(row));
        let updated = with_conn!(self.pool(), |conn| {
            match value.column {
                Column::ApiKey => {
                    diesel::update(
                        api_keys::table
                            .filter(api_keys::lookup_hash.eq(row))
                            .filter(api_keys::sealed_key.eq(old)),
                    )
                    .set(api_keys::sealed_key.eq(sealed))
                    .execute(conn)
                    .await
                }
                Column::WebhookSecret(Mode::Live) => {
                    diesel::update(account.filter(accounts::live_webhook_secret_sealed.eq(old)))
                        .set(accounts::live_webhook_secret_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::WebhookSecret(Mode::Test) => {
                    diesel::update(account.filter(accounts::test_webhook_secret_sealed.eq(old)))
                        .set(accounts::test_webhook_secret_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::PreviousWebhookSecret(Mode::Live) => {
                    diesel::update(account.filter(accounts::live_previous_webhook_secret_sealed.eq(old)))
                        .set(accounts::live_previous_webhook_secret_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::PreviousWebhookSecret(Mode::Test) => {
                    diesel::update(account.filter(accounts::test_previous_webhook_secret_sealed.eq(old)))
                        .set(accounts::test_previous_webhook_secret_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(SealedField::CardNumber) => {
                    diesel::update(card.filter(cards::pan_sealed.eq(old)))
                        .set(cards::pan_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(SealedField::CardCvv) => {
                    diesel::update(card.filter(cards::cvv_sealed.eq(old)))
                        .set(cards::cvv_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(SealedField::CardExpiryMonth) => {
                    diesel::update(card.filter(cards::expiry_month_sealed.eq(old)))
                        .set(cards::expiry_month_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(SealedField::CardExpiryYear) => {
                    diesel::update(card.filter(cards::expiry_year_sealed.eq(old)))
                        .set(cards::expiry_year_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(SealedField::CardPin) => {
                    diesel::update(card.filter(cards::pin_sealed.eq(old)))
                        .set(cards::pin_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(SealedField::Card3dsPin) => {
                    diesel::update(card.filter(cards::pin_3ds_sealed.eq(old)))
                        .set(cards::pin_3ds_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(SealedField::CardNin) => {
                    diesel::update(card.filter(cards::nin_sealed.eq(old)))
                        .set(cards::nin_sealed.eq(sealed))
                        .execute(conn)
                        .await
                }
                Column::Card(_) => Ok(0),
                Column::ConsoleTotp => {
                    diesel::update(
                        dashboard_users::table
                            .filter(dashboard_users::id.eq(row))
                            .filter(dashboard_users::totp_sealed.eq(old)),
                    )
                    .set(dashboard_users::totp_sealed.eq(sealed))
                    .execute(conn)
                    .await
                }
                Column::MasterKeyCheck(id) => {
                    diesel::update(
                        master_key_check::table
                            .filter(master_key_check::id.eq(id))
                            .filter(master_key_check::sealed.eq(old)),
                    )
                    .set(master_key_check::sealed.eq(sealed))
                    .execute(conn)
                    .await
                }
            }
        })?;
        Ok(updated == 1)
    }
}

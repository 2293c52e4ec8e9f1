//! Values sealed before each was bound to its place, sealed again at
//! start: opened without a place (only here), sealed with theirs.

use super::schema::{accounts, api_keys, cards};
use super::{Db, with_conn};
use crate::crypto::vault::MasterKeyVault;
use diesel::{ExpressionMethods, QueryDsl};
use diesel_async::RunQueryDsl;
use domain::Mode;
use ports::StoreError;
use ports::vault::{Place, SealedField, Vault};

/// One stored value to seal again: its place and its bytes.
struct Unbound {
    field: SealedField,
    row: String,
    account: String,
    mode: Mode,
    sealed: Vec<u8>,
}

type CardSecrets = (String, String, bool, [Vec<u8>; 5], Option<Vec<u8>>);

impl Db {
    /// Seals again, bound to its place, every value sealed before places
    /// were; returns how many. A value the key does not open is an error
    /// naming its column and row (the key is not this database's).
    pub async fn reseal_unbound(&self, vault: &MasterKeyVault) -> Result<usize, StoreError> {
        let unbound = self.unbound().await?;
        for value in &unbound {
            let opened = vault.open_unbound(&value.sealed).map_err(|_| {
                StoreError::new(format!(
                    "{} of {} does not open with this master key",
                    value.field.column(),
                    value.row
                ))
            })?;
            let place = Place {
                field: value.field,
                row: &value.row,
                account: &value.account,
                mode: value.mode,
            };
            self.store_sealed(value, vault.seal(opened.expose(), &place)).await?;
        }
        Ok(unbound.len())
    }

    async fn unbound(&self) -> Result<Vec<Unbound>, StoreError> {
        let (keys, secrets, card_rows) = with_conn!(self.pool(), |conn| {
            async {
                let keys = api_keys::table
                    .select((
                        api_keys::lookup_hash,
                        api_keys::account_id,
                        api_keys::livemode,
                        api_keys::sealed_key,
                    ))
                    .load::<(String, String, bool, Vec<u8>)>(conn)
                    .await?;
                let secrets = accounts::table
                    .select((
                        accounts::id,
                        accounts::live_webhook_secret_sealed,
                        accounts::test_webhook_secret_sealed,
                    ))
                    .load::<(String, Vec<u8>, Option<Vec<u8>>)>(conn)
                    .await?;
                let card_rows = cards::table
                    .select((
                        cards::id,
                        cards::account_id,
                        cards::livemode,
                        cards::pan_sealed,
                        cards::cvv_sealed,
                        cards::expiry_month_sealed,
                        cards::expiry_year_sealed,
                        cards::pin_sealed,
                        cards::pin_3ds_sealed,
                    ))
                    .load::<(
                        String,
                        String,
                        bool,
                        Vec<u8>,
                        Vec<u8>,
                        Vec<u8>,
                        Vec<u8>,
                        Vec<u8>,
                        Option<Vec<u8>>,
                    )>(conn)
                    .await?;
                Ok::<_, diesel::result::Error>((keys, secrets, card_rows))
            }
            .await
        })?;
        let mut all = vec![];
        let mut add = |field, row: &str, account: &str, mode, sealed: Vec<u8>| {
            if !MasterKeyVault::is_current(&sealed) {
                all.push(Unbound {
                    field,
                    row: row.to_string(),
                    account: account.to_string(),
                    mode,
                    sealed,
                });
            }
        };
        for (hash, account, live, sealed) in keys {
            add(SealedField::ApiKey, &hash, &account, Mode::from_live(live), sealed);
        }
        for (account, live, test) in secrets {
            add(SealedField::WebhookSecret, &account, &account, Mode::Live, live);
            if let Some(test) = test {
                add(SealedField::WebhookSecret, &account, &account, Mode::Test, test);
            }
        }
        let card_rows: Vec<CardSecrets> = card_rows
            .into_iter()
            .map(|(id, account, live, pan, cvv, month, year, pin, pin_3ds)| {
                (id, account, live, [pan, cvv, month, year, pin], pin_3ds)
            })
            .collect();
        for (id, account, live, values, pin_3ds) in card_rows {
            let fields = [
                SealedField::CardNumber,
                SealedField::CardCvv,
                SealedField::CardExpiryMonth,
                SealedField::CardExpiryYear,
                SealedField::CardPin,
            ];
            for (field, sealed) in fields.into_iter().zip(values) {
                add(field, &id, &account, Mode::from_live(live), sealed);
            }
            if let Some(sealed) = pin_3ds {
                add(SealedField::Card3dsPin, &id, &account, Mode::from_live(live), sealed);
            }
        }
        Ok(all)
    }

    async fn store_sealed(&self, value: &Unbound, sealed: Vec<u8>) -> Result<(), StoreError> {
        let row = value.row.as_str();
        let card = cards::table.filter(cards::id.eq(row));
        let account = accounts::table.filter(accounts::id.eq(row));
        with_conn!(self.pool(), |conn| {
            match (value.field, value.mode) {
                (SealedField::ApiKey, _) => {
                    diesel::update(api_keys::table.filter(api_keys::lookup_hash.eq(row)))
                        .set(api_keys::sealed_key.eq(&sealed))
                        .execute(conn)
                        .await
                }
                (SealedField::WebhookSecret, Mode::Live) => {
                    diesel::update(account)
                        .set(accounts::live_webhook_secret_sealed.eq(&sealed))
                        .execute(conn)
                        .await
                }
                (SealedField::WebhookSecret, Mode::Test) => {
                    diesel::update(account)
                        .set(accounts::test_webhook_secret_sealed.eq(Some(&sealed)))
                        .execute(conn)
                        .await
                }
                (SealedField::CardNumber, _) => {
                    diesel::update(card)
                        .set(cards::pan_sealed.eq(&sealed))
                        .execute(conn)
                        .await
                }
                (SealedField::CardCvv, _) => {
                    diesel::update(card)
                        .set(cards::cvv_sealed.eq(&sealed))
                        .execute(conn)
                        .await
                }
                (SealedField::CardExpiryMonth, _) => {
                    diesel::update(card)
                        .set(cards::expiry_month_sealed.eq(&sealed))
                        .execute(conn)
                        .await
                }
                (SealedField::CardExpiryYear, _) => {
                    diesel::update(card)
                        .set(cards::expiry_year_sealed.eq(&sealed))
                        .execute(conn)
                        .await
                }
                (SealedField::CardPin, _) => {
                    diesel::update(card)
                        .set(cards::pin_sealed.eq(&sealed))
                        .execute(conn)
                        .await
                }
                (SealedField::Card3dsPin, _) => {
                    diesel::update(card)
                        .set(cards::pin_3ds_sealed.eq(Some(&sealed)))
                        .execute(conn)
                        .await
                }
                (SealedField::CardNin, _) => {
                    diesel::update(card)
                        .set(cards::nin_sealed.eq(Some(&sealed)))
                        .execute(conn)
                        .await
                }
                // Sealed with its place from the start.
                (SealedField::MasterKeyCheck, _) => Ok(0),
            }
        })?;
        Ok(())
    }
}

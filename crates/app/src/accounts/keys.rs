//! `issuing accounts roll-key | keys | revoke-key | roll-webhook-secret`:
//! a new secret key for a mode while the old one stays valid for an
//! overlap (as Stripe's roll does), the keys as operators see them,
//! revoking one at once, and a new webhook secret that signs beside the
//! old one for the overlap.

use crate::App;
use crate::error::RequestError;
use domain::ids::AccountId;
use domain::{InvalidInput, Mode, Secret, Timestamp};
use ports::StoreError;
use ports::accounts::KeySummary;

/// The longest overlap: a rolled key is on its way out.
pub const MAX_OVERLAP_SECS: i64 = 7 * 86_400;

#[derive(Debug)]
pub struct RolledKey {
    pub secret_key: Secret<String>,
    /// When the mode's previous keys stop working.
    pub old_keys_expire_at: Timestamp,
}

#[derive(Debug)]
pub struct RolledWebhookSecret {
    pub webhook_secret: Secret<String>,
    /// When the mode's previous secret stops signing.
    pub old_secret_expires_at: Timestamp,
}

/// The end of an overlap of `overlap_secs` from now, once checked.
fn overlap_end(now: Timestamp, overlap_secs: i64) -> Result<Timestamp, InvalidInput> {
    if !(0..=MAX_OVERLAP_SECS).contains(&overlap_secs) {
        return Err(InvalidInput::new("expire-old-in", "must be from 0 to 7 days"));
    }
    Ok(now.plus(overlap_secs))
}

fn no_account() -> RequestError {
    InvalidInput::new("account_id", "no account with this id").into()
}

impl App {
    /// Issues a new secret key of `mode`; the mode's current keys keep
    /// working for `overlap_secs` (0: they stop now).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn roll_key(
        &self,
        account: &AccountId,
        mode: Mode,
        overlap_secs: i64,
    ) -> Result<RolledKey, RequestError> {
        let now = self.ports.clock.now();
        let old_keys_expire_at = overlap_end(now, overlap_secs)?;
        let secret_key = self.new_secret_key(mode);
        let stored = self.stored_key(account, mode, &secret_key);
        if !self
            .ports
            .accounts
            .roll_key(account, stored, now, old_keys_expire_at)
            .await?
        {
            return Err(no_account());
        }
        Ok(RolledKey {
            secret_key,
            old_keys_expire_at,
        })
    }

    /// Issues a new webhook secret of `mode`; deliveries are signed with
    /// both for `overlap_secs` (0: the old one stops now).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn roll_webhook_secret(
        &self,
        account: &AccountId,
        mode: Mode,
        overlap_secs: i64,
    ) -> Result<RolledWebhookSecret, RequestError> {
        let old_secret_expires_at = overlap_end(self.ports.clock.now(), overlap_secs)?;
        let webhook_secret = self.ports.ids.webhook_secret();
        let sealed = self.seal_webhook_secret(account, mode, &webhook_secret);
        if !self
            .ports
            .accounts
            .roll_webhook_secret(account, mode, sealed, old_secret_expires_at)
            .await?
        {
            return Err(no_account());
        }
        Ok(RolledWebhookSecret {
            webhook_secret,
            old_secret_expires_at,
        })
    }

    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn list_keys(&self, account: &AccountId) -> Result<Vec<KeySummary>, StoreError> {
        self.ports.accounts.list_keys(account).await
    }

    /// The key named `key_id` (from `list_keys`) stops working now;
    /// `false` when the account has no such unexpired key.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn revoke_key(&self, account: &AccountId, key_id: &str) -> Result<bool, StoreError> {
        self.ports
            .accounts
            .revoke_key(account, key_id, self.ports.clock.now())
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Mocks;

    #[tokio::test]
    async fn a_roll_stores_a_new_key_of_the_mode_and_dates_the_old_ones() {
        let mut m = Mocks::default();
        m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
        m.ids.expect_secret().returning(|n| Secret::new("k".repeat(n)));
        m.vault.expect_lookup_hash().returning(|s| format!("h:{s}"));
        m.vault.expect_seal().returning(|b, _| b.to_vec());
        m.accounts
            .expect_roll_key()
            .withf(|account, key, now, expire| {
                account.as_str() == "acct_a"
                    && key.mode == Mode::Live
                    && key.lookup_hash.starts_with("h:sk_live_")
                    && (now.unix(), expire.unix()) == (1_000, 1_000 + 86_400)
            })
            .times(1)
            .returning(|_, _, _, _| Ok(true));
        let rolled = m
            .app()
            .roll_key(&AccountId::new("acct_a"), Mode::Live, 86_400)
            .await
            .unwrap();
        assert!(rolled.secret_key.expose().starts_with("sk_live_"));
        assert_eq!(rolled.old_keys_expire_at, Timestamp::from_unix(1_000 + 86_400));
    }

    #[tokio::test]
    async fn an_overlap_past_a_week_or_negative_is_refused_before_anything_changes() {
        for overlap in [-1, MAX_OVERLAP_SECS + 1, i64::MAX, i64::MIN] {
            let mut m = Mocks::default();
            m.clock.expect_now().return_const(Timestamp::from_unix(1_000));
            let e = m
                .app()
                .roll_key(&AccountId::new("acct_a"), Mode::Test, overlap)
                .await
                .unwrap_err();
            assert!(e.to_string().starts_with("expire-old-in:"), "{e}");
        }
    }
}

use domain::{Mode, Secret};

#[derive(Debug, thiserror::Error)]
#[error("sealed data could not be opened")]
pub struct VaultError;

/// Which stored value a sealed one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SealedField {
    ApiKey,
    WebhookSecret,
    CardNumber,
    CardCvv,
    CardExpiryMonth,
    CardExpiryYear,
    CardPin,
    Card3dsPin,
    /// The NIN a Naira card was created with.
    CardNin,
    MasterKeyCheck,
    /// A dashboard user's TOTP secret.
    ConsoleTotp,
}

impl SealedField {
    /// The table and column it is stored in.
    pub fn column(self) -> &'static str {
        match self {
            SealedField::ApiKey => "api_keys.sealed_key",
            SealedField::WebhookSecret => "accounts.webhook_secret_sealed",
            SealedField::CardNumber => "cards.pan_sealed",
            SealedField::CardCvv => "cards.cvv_sealed",
            SealedField::CardExpiryMonth => "cards.expiry_month_sealed",
            SealedField::CardExpiryYear => "cards.expiry_year_sealed",
            SealedField::CardPin => "cards.pin_sealed",
            SealedField::Card3dsPin => "cards.pin_3ds_sealed",
            SealedField::CardNin => "cards.nin_sealed",
            SealedField::MasterKeyCheck => "master_key_check.sealed",
            SealedField::ConsoleTotp => "dashboard_users.totp_sealed",
        }
    }

    /// PINs are only ever passed on to the processor: they are sealed
    /// under a key of their own.
    pub fn is_pin(self) -> bool {
        matches!(self, SealedField::CardPin | SealedField::Card3dsPin)
    }
}

/// Where a sealed value lives: the field, its row, the account and the
/// mode. It is sealed with this as associated data, so it opens only
/// there: a value copied into another row, column or account does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place<'a> {
    pub field: SealedField,
    pub row: &'a str,
    pub account: &'a str,
    pub mode: Mode,
}

impl<'a> Place<'a> {
    /// An API key: its row is its lookup hash.
    pub fn api_key(lookup_hash: &'a str, account: &'a str, mode: Mode) -> Self {
        Place {
            field: SealedField::ApiKey,
            row: lookup_hash,
            account,
            mode,
        }
    }

    /// An account's webhook secret of `mode`: its row is the account.
    pub fn webhook_secret(account: &'a str, mode: Mode) -> Self {
        Place {
            field: SealedField::WebhookSecret,
            row: account,
            account,
            mode,
        }
    }

    /// A card's sealed `field`: its row is the card.
    pub fn card(field: SealedField, card: &'a str, account: &'a str, mode: Mode) -> Self {
        Place {
            field,
            row: card,
            account,
            mode,
        }
    }

    /// A dashboard user's TOTP secret: its row is the user (of no
    /// account or mode).
    pub fn console_totp(user: &'a str) -> Self {
        Place {
            field: SealedField::ConsoleTotp,
            row: user,
            account: "",
            mode: Mode::Live,
        }
    }

    /// The associated data: every part, each length-prefixed so no two
    /// places share one.
    pub fn associated_data(&self) -> Vec<u8> {
        let parts = [self.field.column(), self.row, self.account, self.mode.as_str()];
        parts
            .iter()
            .flat_map(|p| (p.len() as u32).to_be_bytes().into_iter().chain(p.bytes()))
            .collect()
    }
}

/// Secrets at rest: sealed under the server's master key (PINs under a
/// key of their own), each bound to its place.
#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait Vault: Send + Sync {
    fn seal<'a>(&self, plain: &[u8], place: &Place<'a>) -> Vec<u8>;
    fn open<'a>(&self, sealed: &[u8], place: &Place<'a>) -> Result<Secret<Vec<u8>>, VaultError>;
    /// Seals a value that leaves the service sealed (card details on the
    /// base address) under a transport key, never the storage key: what
    /// clients keep is not opened by the master key.
    fn seal_for_transport<'a>(&self, plain: &[u8], place: &Place<'a>) -> Vec<u8>;
    /// A one-way hash to find a secret by (SHA-256, hex).
    fn lookup_hash(&self, secret: &str) -> String;
    /// A keyed one-way hash of a short secret (an OTP) bound to `context`
    /// (its row): one that trying every value against a stolen table does
    /// not reverse, since the key is derived from the master key.
    fn keyed_hash(&self, secret: &str, context: &str) -> String;
}

//! The rows and values several stores read: a card transaction and a card
//! transfer as stored, and how a monthly fee shows. A leaf: it imports no
//! store, so every store can depend on it and the stores depend only
//! downward (docs/architecture.md).

use crate::db::schema::{card_transactions, card_transfers};
use diesel::prelude::*;
use domain::cards::hold::{TransactionKind, TransactionStatus};
use domain::cards::transfer::{TransferKind, TransferState};
use domain::ids::{AccountId, CardId, CardholderId, TransferId};
use domain::{Amount, Currency, Mode, Timestamp};
use ports::StoreError;
use ports::card_transactions::CardTransaction;
use ports::cards::Transfer;

/// A transaction's status once approved, as stored.
pub(in crate::db) const APPROVED: &str = "approved";

#[derive(Clone, Insertable, Queryable, Selectable)]
#[diesel(table_name = card_transactions)]
pub(in crate::db) struct TransactionRow {
    pub(in crate::db) id: String,
    pub(in crate::db) account_id: String,
    pub(in crate::db) livemode: bool,
    pub(in crate::db) card_id: String,
    pub(in crate::db) cardholder_id: String,
    pub(in crate::db) client_reference: String,
    pub(in crate::db) status: String,
    pub(in crate::db) decline_reason: Option<String>,
    pub(in crate::db) amount: i64,
    pub(in crate::db) currency: String,
    pub(in crate::db) description: String,
    pub(in crate::db) merchant_category_code: Option<String>,
    pub(in crate::db) enriched_data: String,
    pub(in crate::db) merchant_name: String,
    pub(in crate::db) created_at: i64,
    /// The card's count of approved transactions with this one; none for
    /// a decline or a hold.
    pub(in crate::db) approved_seq: Option<i64>,
    pub(in crate::db) kind: String,
    pub(in crate::db) authorization_id: Option<String>,
}

impl TransactionRow {
    pub(in crate::db) fn record(self) -> Result<CardTransaction, StoreError> {
        let corrupt = |what: &str| StoreError::new(format!("card transaction {} has an unreadable {what}", self.id));
        Ok(CardTransaction {
            kind: TransactionKind::parse(&self.kind).ok_or_else(|| corrupt("kind"))?,
            status: TransactionStatus::parse(&self.status).ok_or_else(|| corrupt("status"))?,
            authorization_id: self.authorization_id,
            amount: Amount::from_minor(self.amount).ok_or_else(|| corrupt("amount"))?,
            currency: Currency::parse("currency", &self.currency).map_err(|_| corrupt("currency"))?,
            id: self.id,
            account_id: AccountId::new(self.account_id),
            mode: Mode::from_live(self.livemode),
            card_id: CardId::new(self.card_id),
            cardholder_id: CardholderId::new(self.cardholder_id),
            client_reference: self.client_reference,
            description: self.description,
            merchant_category_code: self.merchant_category_code,
            enriched_data: self.enriched_data,
            created_at: Timestamp::from_unix(self.created_at),
            decline_code: self.decline_reason,
        })
    }
}

#[derive(Clone, Insertable, Queryable, Selectable)]
#[diesel(table_name = card_transfers)]
pub(in crate::db) struct TransferRow {
    pub(in crate::db) id: String,
    pub(in crate::db) account_id: String,
    pub(in crate::db) livemode: bool,
    pub(in crate::db) card_id: String,
    pub(in crate::db) cardholder_id: String,
    pub(in crate::db) kind: String,
    pub(in crate::db) amount: i64,
    pub(in crate::db) transaction_reference: String,
    pub(in crate::db) state: String,
    pub(in crate::db) created_at: i64,
    pub(in crate::db) currency: String,
}

impl TransferRow {
    pub(in crate::db) fn record(self) -> Result<Transfer, StoreError> {
        let corrupt = |what: &str| StoreError::new(format!("card transfer {} has an unreadable {what}", self.id));
        Ok(Transfer {
            kind: TransferKind::parse(&self.kind).ok_or_else(|| corrupt("kind"))?,
            state: TransferState::parse(&self.state).ok_or_else(|| corrupt("state"))?,
            amount: Amount::from_minor(self.amount).ok_or_else(|| corrupt("amount"))?,
            currency: Currency::parse("currency", &self.currency).map_err(|_| corrupt("currency"))?,
            id: TransferId::new(self.id),
            account_id: AccountId::new(self.account_id),
            mode: Mode::from_live(self.livemode),
            card_id: CardId::new(self.card_id),
            cardholder_id: CardholderId::new(self.cardholder_id),
            transaction_reference: self.transaction_reference,
            created_at: Timestamp::from_unix(self.created_at),
        })
    }
}

/// How the monthly fee shows in a card's history.
pub(in crate::db) const MAINTENANCE_FEE: &str = "Monthly maintenance fee";
/// A fee's enriched_data: no merchant's (its category, `Card fees`, is no
/// merchant catalogue's), so it tells a fee from a debit.
pub(in crate::db) const MAINTENANCE_FEE_ENRICHMENT: &str = r#"{"is_recurring":true,"merchant_city":null,"merchant_code":null,"merchant_logo":null,"merchant_name":"Monthly maintenance fee","merchant_website":null,"transaction_category":"Card fees","transaction_group":"Fees"}"#;

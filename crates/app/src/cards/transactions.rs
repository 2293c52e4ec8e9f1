//! `GET /cards/get_card_transactions` and
//! `GET /cards/get_naira_card_transactions` (a card's approved debits, 20
//! a page, newest first, optionally between two GMT times),
//! `GET /cards/get_card_transaction_by_id`, and `GET /transactions` (the
//! account's: debits, holds and captures, approved and declined, paged by
//! cursor).

use super::CardError;
use crate::{App, Caller};
use domain::Timestamp;
use domain::cards::hold::{TransactionKind, TransactionStatus};
use domain::ids::{CardId, CardholderId};
use domain::paging::{Page, Paging};
use domain::{Currency, InvalidInput};
use ports::card_transactions::{CardTransaction, Reference, TransactionFilter};

/// `GET /transactions`' query, as sent.
#[derive(Debug, Clone, Default)]
pub struct TransactionsQuery {
    pub card_id: Option<String>,
    pub cardholder_id: Option<String>,
    /// One of [`TransactionStatus::NAMES`].
    pub status: Option<String>,
    /// One of [`TransactionKind::NAMES`].
    pub kind: Option<String>,
    pub start_date: Option<String>,
    pub end_date: Option<String>,
    pub limit: Option<String>,
    /// The issuer reference of the last transaction of the page before.
    pub starting_after: Option<String>,
}

/// Two GMT times given together, the end not before the start.
fn time_range(start: Option<&str>, end: Option<&str>) -> Result<Option<(Timestamp, Timestamp)>, InvalidInput> {
    match (start, end) {
        (None, None) => Ok(None),
        (Some(start), Some(end)) => {
            let (from, to) = (
                Timestamp::parse_gmt("start_date", start)?,
                Timestamp::parse_gmt("end_date", end)?,
            );
            if from > to {
                return Err(InvalidInput::new("end_date", "must not be before start_date"));
            }
            Ok(Some((from, to)))
        }
        (Some(_), None) => Err(InvalidInput::new("end_date", "is required with start_date")),
        (None, Some(_)) => Err(InvalidInput::new("start_date", "is required with end_date")),
    }
}

impl App {
    /// A page of the debits of a card of `currency` (the path's).
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_card_transactions(
        &self,
        caller: &Caller,
        currency: Currency,
        card: &CardId,
        page: Page,
        start_date: Option<&str>,
        end_date: Option<&str>,
    ) -> Result<(Vec<CardTransaction>, Paging), CardError> {
        let between = time_range(start_date, end_date)?;
        self.card_in(caller, card, currency).await?;
        let (transactions, total) = self
            .ports
            .card_transactions
            .history(&caller.account_id, caller.mode, card, page, between)
            .await?;
        Ok((transactions, page.paging(total)))
    }

    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn get_card_transaction_by_id(
        &self,
        caller: &Caller,
        card: &CardId,
        reference: Reference,
    ) -> Result<CardTransaction, CardError> {
        self.card(caller, card).await?;
        self.ports
            .card_transactions
            .transaction(&caller.account_id, caller.mode, card, reference)
            .await?
            .ok_or(CardError::TransactionNotFound)
    }

    /// The account's transactions of the caller's mode that the query
    /// holds, newest first, a page after `starting_after`; and whether
    /// more follow.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn list_transactions(
        &self,
        caller: &Caller,
        query: TransactionsQuery,
    ) -> Result<(Vec<CardTransaction>, bool), CardError> {
        let limit = Page::parse(None, query.limit.as_deref())?.size;
        let one_of = |names: &[&str]| format!("must be one of {}", names.join(", "));
        let status = query
            .status
            .as_deref()
            .map(|s| {
                TransactionStatus::parse(s)
                    .ok_or_else(|| InvalidInput::new("status", one_of(&TransactionStatus::NAMES)))
            })
            .transpose()?;
        let kind = query
            .kind
            .as_deref()
            .map(|k| {
                TransactionKind::parse(k).ok_or_else(|| InvalidInput::new("type", one_of(&TransactionKind::NAMES)))
            })
            .transpose()?;
        let filter = TransactionFilter {
            card: query.card_id.map(CardId::new),
            cardholder: query.cardholder_id.map(CardholderId::new),
            status,
            kind,
            between: time_range(query.start_date.as_deref(), query.end_date.as_deref())?,
        };
        // One more than the page, to tell whether more follow.
        let listed = self
            .ports
            .card_transactions
            .list(
                &caller.account_id,
                caller.mode,
                &filter,
                query.starting_after.as_deref(),
                limit + 1,
            )
            .await?;
        let Some(mut transactions) = listed else {
            let rule = "must be the issuer_transaction_reference of a transaction of this account and mode";
            return Err(InvalidInput::new("starting_after", rule).into());
        };
        let more = transactions.len() > limit as usize;
        transactions.truncate(limit as usize);
        Ok((transactions, more))
    }
}

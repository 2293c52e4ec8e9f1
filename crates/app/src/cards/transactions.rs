//! `GET /cards/get_card_transactions` and
//! `GET /cards/get_naira_card_transactions` (a card's approved debits, 20
//! a page, newest first, optionally between two GMT times) and
//! `GET /cards/get_card_transaction_by_id`.

use super::CardError;
use crate::{App, Caller};
use domain::Timestamp;
use domain::ids::CardId;
use domain::paging::{Page, Paging};
use domain::{Currency, InvalidInput};
use ports::card_transactions::{CardTransaction, Reference};

impl App {
    /// A page of the debits of a card of `currency` (the path's).
    pub async fn get_card_transactions(
        &self,
        caller: &Caller,
        currency: Currency,
        card: &CardId,
        page: Page,
        start_date: Option<&str>,
        end_date: Option<&str>,
    ) -> Result<(Vec<CardTransaction>, Paging), CardError> {
        let between = match (start_date, end_date) {
            (None, None) => None,
            (Some(start), Some(end)) => {
                let (from, to) = (
                    Timestamp::parse_gmt("start_date", start)?,
                    Timestamp::parse_gmt("end_date", end)?,
                );
                if from > to {
                    return Err(InvalidInput::new("end_date", "must not be before start_date").into());
                }
                Some((from, to))
            }
            (Some(_), None) => return Err(InvalidInput::new("end_date", "is required with start_date").into()),
            (None, Some(_)) => return Err(InvalidInput::new("start_date", "is required with end_date").into()),
        };
        self.card_in(caller, card, currency).await?;
        let (transactions, total) = self
            .ports
            .card_transactions
            .history(&caller.account_id, caller.mode, card, page, between)
            .await?;
        Ok((transactions, page.paging(total)))
    }

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
}

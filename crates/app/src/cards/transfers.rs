//! `PATCH /cards/fund_card_asynchronously` and
//! `PATCH /cards/unload_card_asynchronously`: validate and reserve at once
//! (the money moves into transit), answer 202, and let a job settle it.

use super::CardError;
use crate::{App, Caller};
use domain::cards::transfer::{TransferKind, TransferState};
use domain::ids::{CardId, TransferId};
use domain::{Currency, InvalidInput, cards, required};
use ports::cards::Transfer;
use ports::jobs::JobKind;

/// The body of a fund or unload request, as sent.
#[derive(Debug, Clone, Default)]
pub struct TransferRequest {
    pub card_id: Option<String>,
    pub amount: Option<String>,
    pub transaction_reference: Option<String>,
    pub currency: Option<String>,
}

/// The longest `transaction_reference` kept.
const MAX_REFERENCE_LEN: usize = 100;

impl App {
    /// Reserves a funding or unloading and queues its settlement; returns
    /// the card id and the reference for the 202.
    pub async fn request_card_transfer(
        &self,
        caller: &Caller,
        kind: TransferKind,
        request: TransferRequest,
    ) -> Result<(CardId, String), CardError> {
        let card_id = CardId::new(required(&request.card_id, "card_id")?);
        let amount = cards::parse_transfer_amount("amount", required(&request.amount, "amount")?)?;
        let reference = required(&request.transaction_reference, "transaction_reference")?.to_string();
        if reference.len() > MAX_REFERENCE_LEN {
            return Err(InvalidInput::new("transaction_reference", "must be at most 100 characters").into());
        }
        let currency = Currency::parse("currency", required(&request.currency, "currency")?)?;
        if currency != Currency::Usd {
            return Err(InvalidInput::new("currency", "must be USD for a USD card").into());
        }
        let card = self.card(caller, &card_id).await?;
        let now = self.now_for(&caller.account_id, caller.mode).await?;
        let id = TransferId::with_suffix(&self.ports.ids.unique());
        let settle = self.job_now(JobKind::SettleCardTransfer, id.to_string());
        let transfer = Transfer {
            id,
            account_id: caller.account_id.clone(),
            mode: caller.mode,
            card_id: card.id,
            cardholder_id: card.cardholder_id,
            kind,
            amount,
            transaction_reference: reference.clone(),
            state: TransferState::Pending,
            created_at: now,
        };
        self.ports.cards.reserve(transfer, settle).await?;
        Ok((card_id, reference))
    }
}

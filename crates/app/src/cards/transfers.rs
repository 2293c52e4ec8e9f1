//! `PATCH /cards/fund_card_asynchronously`,
//! `PATCH /cards/unload_card_asynchronously` and their Naira twins
//! (`/naira_cards/fund_naira_card`, `/naira_cards/unload_naira_card`):
//! validate and reserve at once (the money moves into transit), answer
//! 202, and let a job settle it.

use super::CardError;
use crate::{App, Caller, Stamp};
use domain::cards::product::Product;
use domain::cards::transfer::TransferKind;
use domain::ids::{CardId, TransferId};
use domain::{Amount, Currency, InvalidInput, amount_text, required};
use ports::cards::{NewTransfer, ReserveError};
use ports::jobs::JobKind;

/// The body of a fund or unload request, as sent.
#[derive(Debug, Clone, Default)]
pub struct TransferRequest {
    pub card_id: Option<String>,
    pub amount: Option<String>,
    pub transaction_reference: Option<String>,
    pub currency: Option<String>,
}

impl App {
    /// Reserves a funding or unloading of a card of `currency` (the
    /// path's: USD or Naira cards) and queues its settlement; returns the
    /// card id and the reference for the 202. A USD request names its
    /// currency; a Naira request may.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn request_card_transfer(
        &self,
        caller: &Caller,
        kind: TransferKind,
        currency: Currency,
        request: TransferRequest,
    ) -> Result<(CardId, String), CardError> {
        let (card_id, reference, _) = self.reserve_card_transfer(caller, kind, currency, request).await?;
        Ok((card_id, reference))
    }

    /// Reserves the transfer; also returns its id and amount.
    pub(super) async fn reserve_card_transfer(
        &self,
        caller: &Caller,
        kind: TransferKind,
        currency: Currency,
        request: TransferRequest,
    ) -> Result<(CardId, String, (TransferId, Amount)), CardError> {
        let _in_flight = self.money_requests.start();
        let card_id = CardId::new(required(&request.card_id, "card_id")?);
        let amount = Product::of(currency).parse_transfer_amount("amount", amount_text(&request.amount, "amount")?)?;
        let reference = required(&request.transaction_reference, "transaction_reference")?.to_string();
        domain::text::reference(&reference)?;
        if currency == Currency::Usd || request.currency.is_some() {
            let asked = Currency::parse("currency", required(&request.currency, "currency")?)?;
            if asked != currency {
                let rule = format!("must be {} for this card", currency.code());
                return Err(InvalidInput::new("currency", rule).into());
            }
        }
        let id = TransferId::with_suffix(&self.ports.ids.unique());
        let settle = self.job_now(JobKind::SettleCardTransfer, id.to_string());
        let reserve = async |stamp: Stamp| {
            let transfer = NewTransfer {
                id: id.clone(),
                account_id: caller.account_id.clone(),
                mode: caller.mode,
                card_id: card_id.clone(),
                kind,
                currency,
                amount,
                transaction_reference: reference.clone(),
                created_at: stamp.clock.now,
                clock_ahead_secs: stamp.checked_ahead_secs,
            };
            self.ports.cards.reserve(transfer, settle.clone()).await
        };
        let moved = |e: &ReserveError| matches!(e, ReserveError::ClockMoved);
        self.stamped((&caller.account_id, caller.mode), reserve, moved).await?;
        self.work_queued();
        Ok((card_id, reference, (id, amount)))
    }
}

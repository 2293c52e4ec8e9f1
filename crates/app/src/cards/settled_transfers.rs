//! `POST /cards/fund_card` and `POST /cards/unload_card`, which older
//! integrations call: the asynchronous request, answered once its
//! settlement job settled or failed it. The job stays the one settler, so
//! the movement completes exactly once whatever the answer; one that has
//! not settled in time is answered 504, and the same request sent again
//! (same reference, card, kind and amount) waits for that movement, never
//! makes a second.

use super::CardError;
use super::transfers::TransferRequest;
use crate::{App, Caller};
use domain::Currency;
use domain::cards::transfer::{TransferKind, TransferState};
use domain::ids::{CardId, TransferId};
use ports::cards::ReserveError;
use std::time::Duration;
use tokio::time::{Instant, sleep};

/// How long a synchronous funding or unloading waits for its settlement.
const SETTLE_WAIT: Duration = Duration::from_secs(10);

/// How often it looks.
const LOOK_EVERY: Duration = Duration::from_millis(20);

impl App {
    /// The transfer reserved (or the same one, asked again) once settled:
    /// `Ok` when it succeeded, `TransferFailed` when it failed (its money
    /// back where it came from), `SettlementPending` when it has not
    /// settled in time.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn settled_card_transfer(
        &self,
        caller: &Caller,
        kind: TransferKind,
        currency: Currency,
        request: TransferRequest,
    ) -> Result<(CardId, String), CardError> {
        let (card, reference, id) = match self
            .reserve_card_transfer(caller, kind, currency, request.clone())
            .await
        {
            Ok((card, reference, (id, _))) => (card, reference, id),
            Err(CardError::Reserve(ReserveError::ReferenceUsed)) => {
                self.same_transfer(caller, (kind, currency), &request).await?
            }
            Err(e) => return Err(e),
        };
        let waited_enough = Instant::now() + SETTLE_WAIT;
        loop {
            let state = self.ports.cards.transfers(std::slice::from_ref(&id)).await?;
            match state.first().map(|t| t.state) {
                Some(TransferState::Succeeded) => return Ok((card, reference)),
                Some(TransferState::Failed) => return Err(CardError::TransferFailed),
                _ if Instant::now() >= waited_enough => return Err(CardError::SettlementPending),
                _ => sleep(LOOK_EVERY).await,
            }
        }
    }

    /// The transfer a repeated request names: the card's, of the same
    /// reference, kind, currency and amount; any other use of the
    /// reference is the contract's `transaction_reference_used`.
    async fn same_transfer(
        &self,
        caller: &Caller,
        (kind, currency): (TransferKind, Currency),
        request: &TransferRequest,
    ) -> Result<(CardId, String, TransferId), CardError> {
        let used = || CardError::Reserve(ReserveError::ReferenceUsed);
        let (Some(card), Some(reference)) = (&request.card_id, &request.transaction_reference) else {
            return Err(used());
        };
        let (card, reference) = (CardId::new(card.trim()), reference.trim());
        let earlier = self
            .ports
            .cards
            .transfer_of(&caller.account_id, caller.mode, &card, reference)
            .await?
            .ok_or_else(used)?;
        let amount = request.amount.as_deref().map(|a| a.parse::<i64>().ok());
        let same = earlier.kind == kind && earlier.currency == currency;
        if !same || amount != Some(Some(earlier.amount.minor())) {
            return Err(used());
        }
        Ok((card, earlier.transaction_reference, earlier.id))
    }
}

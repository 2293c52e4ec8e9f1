//! The job that settles a reserved funding or unloading: the network moves
//! the money, then the ledger completes (or reverses) the transfer and the
//! `card_credit_event.*` / `card_unload_event.*` that reports it is stored
//! in the same transaction.

use crate::App;
use domain::Currency;
use domain::events::{CARD_CREDIT_FAILED, CARD_CREDIT_SUCCESSFUL, CARD_UNLOAD_FAILED, CARD_UNLOAD_SUCCESSFUL};
use domain::ids::TransferId;
use ports::StoreError;
use ports::cards::{Settled, Settlement, Transfer, TransferKind, TransferState};
use serde_json::json;

/// Why a completion the network accepted was refused by the ledger.
const REFUSED: &str = "the card was deleted, or would hold over 5000 USD";

impl App {
    /// `Err` carries why the attempt failed, for the job to retry on.
    pub(crate) async fn settle_card_transfer(&self, id: &TransferId) -> Result<(), String> {
        let Some(transfer) = self.ports.cards.transfer(id).await.map_err(|e| e.to_string())? else {
            return Err(format!("transfer {id} does not exist"));
        };
        if transfer.state != TransferState::Pending {
            return Ok(()); // settled by an earlier attempt
        }
        let network = &self.ports.network;
        let moved = match transfer.kind {
            TransferKind::Fund => network.load(&transfer.card_id, transfer.amount).await,
            TransferKind::Unload => network.unload(&transfer.card_id, transfer.amount).await,
        };
        let settled = match &moved {
            Ok(()) => self.record_settlement(&transfer, Settlement::Complete, None).await,
            Err(decline) => {
                self.record_settlement(&transfer, Settlement::Reverse, Some(&decline.0))
                    .await
            }
        }
        .map_err(|e| e.to_string())?;
        if settled == Settled::Refused {
            // Only a funding can be refused: take the money back off the
            // card at the network before returning it to the wallet.
            network
                .unload(&transfer.card_id, transfer.amount)
                .await
                .map_err(|d| format!("reversing a refused funding at the network: {d}"))?;
            self.record_settlement(&transfer, Settlement::Reverse, Some(REFUSED))
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    async fn record_settlement(
        &self,
        transfer: &Transfer,
        settlement: Settlement,
        failure: Option<&str>,
    ) -> Result<Settled, StoreError> {
        let name = match (transfer.kind, settlement) {
            (TransferKind::Fund, Settlement::Complete) => CARD_CREDIT_SUCCESSFUL,
            (TransferKind::Fund, Settlement::Reverse) => CARD_CREDIT_FAILED,
            (TransferKind::Unload, Settlement::Complete) => CARD_UNLOAD_SUCCESSFUL,
            (TransferKind::Unload, Settlement::Reverse) => CARD_UNLOAD_FAILED,
        };
        let now = self.now_for(&transfer.account_id, transfer.mode).await?;
        let mut data = json!({
            "card_id": transfer.card_id.as_str(),
            "cardholder_id": transfer.cardholder_id.as_str(),
            "amount": transfer.amount.to_string(),
            "currency": Currency::Usd.code(),
            "transaction_reference": transfer.transaction_reference,
            "livemode": transfer.mode.is_live(),
            "issuing_app_id": transfer.account_id.as_str(),
            "card_transaction_type": match transfer.kind {
                TransferKind::Fund => "CREDIT",
                TransferKind::Unload => "UNLOAD",
            },
            "transaction_date": domain::gmt::format(now),
            "transaction_timestamp": now,
        });
        if let Some(reason) = failure {
            data["error_description"] = json!(reason);
        }
        let event = self.new_event(&transfer.account_id, transfer.mode, name, data).await?;
        let delivery = self.delivery_job(&event.id);
        self.ports
            .cards
            .settle(&transfer.id, settlement, event, delivery, now)
            .await
    }
}

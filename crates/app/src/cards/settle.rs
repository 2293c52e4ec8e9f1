//! The jobs that settle reserved fundings and unloadings, a batch at a
//! time: the network moves each one's money, then the ledger completes
//! (or reverses) the whole batch in one transaction, storing with each the
//! `card_credit_event.*` / `card_unload_event.*` that reports it.

use crate::App;
use domain::cards::transfer::{Settlement, TransferKind, TransferState};
use domain::events::payloads::{CardMovement, CardTransferSettled, Event};
use domain::ids::TransferId;
use ports::StoreError;
use ports::cards::{Settled, SettlementItem, Transfer};

/// The `description` of every unload event.
const UNLOAD_DESCRIPTION: &str = "Unload from the card to the issuing wallet";

/// Why a completion the network accepted was refused by the ledger.
const REFUSED: &str = "the card was deleted, or would hold over 5000 USD";

impl App {
    /// Settles the transfers of a batch of jobs. One outcome per id, in
    /// order; `Err` carries why that one failed, for its job to retry on.
    pub(crate) async fn settle_card_transfers(&self, ids: &[TransferId]) -> Vec<Result<(), String>> {
        let mut outcomes: Vec<Result<(), String>> = ids.iter().map(|_| Ok(())).collect();
        let mut moved = vec![];
        for (i, id) in ids.iter().enumerate() {
            match self.move_at_network(id).await {
                Ok(Some((transfer, item))) => moved.push((i, transfer, item)),
                Ok(None) => {} // settled by an earlier attempt
                Err(e) => outcomes[i] = Err(e),
            }
        }
        let refused = self.record(moved, &mut outcomes).await;
        // Only a funding can be refused: take the money back off the card
        // at the network, then return it to the wallet.
        let mut reversals = vec![];
        for (i, transfer) in refused {
            let taken_back = self.ports.network.unload(&transfer.card_id, transfer.amount).await;
            let item = match taken_back {
                Err(d) => Err(format!("reversing a refused funding at the network: {d}")),
                Ok(()) => self
                    .settlement(&transfer, Settlement::Reverse, Some(REFUSED))
                    .await
                    .map_err(|e| e.to_string()),
            };
            match item {
                Ok(item) => reversals.push((i, transfer, item)),
                Err(e) => outcomes[i] = Err(e),
            }
        }
        self.record(reversals, &mut outcomes).await;
        outcomes
    }

    /// Reads a pending transfer and moves its money at the network: the
    /// settlement recording the result, or `None` when it was settled.
    async fn move_at_network(&self, id: &TransferId) -> Result<Option<(Transfer, SettlementItem)>, String> {
        let Some(transfer) = self.ports.cards.transfer(id).await.map_err(|e| e.to_string())? else {
            return Err(format!("transfer {id} does not exist"));
        };
        if transfer.state != TransferState::Pending {
            return Ok(None);
        }
        let network = &self.ports.network;
        let moved = match transfer.kind {
            TransferKind::Fund => network.load(&transfer.card_id, transfer.amount).await,
            TransferKind::Unload => network.unload(&transfer.card_id, transfer.amount).await,
        };
        let item = match &moved {
            Ok(()) => self.settlement(&transfer, Settlement::Complete, None).await,
            Err(decline) => self.settlement(&transfer, Settlement::Reverse, Some(&decline.0)).await,
        }
        .map_err(|e| e.to_string())?;
        Ok(Some((transfer, item)))
    }

    /// Stores a batch of settlements in one transaction, noting failures
    /// in `outcomes`; returns the fundings the ledger refused.
    async fn record(
        &self,
        batch: Vec<(usize, Transfer, SettlementItem)>,
        outcomes: &mut [Result<(), String>],
    ) -> Vec<(usize, Transfer)> {
        if batch.is_empty() {
            return vec![];
        }
        let items = batch.iter().map(|(_, _, item)| item.clone()).collect();
        match self.ports.cards.settle(items).await {
            Ok(settled) => {
                let mut refused = vec![];
                for ((i, transfer, _), settled) in batch.into_iter().zip(settled) {
                    match settled {
                        Settled::Done | Settled::AlreadySettled => {}
                        Settled::Refused => refused.push((i, transfer)),
                        Settled::Failed(e) => outcomes[i] = Err(e),
                    }
                }
                refused
            }
            Err(e) => {
                for (i, _, _) in batch {
                    outcomes[i] = Err(e.to_string());
                }
                vec![]
            }
        }
    }

    /// The settlement of `transfer` with the event that reports it.
    async fn settlement(
        &self,
        transfer: &Transfer,
        settlement: Settlement,
        failure: Option<&str>,
    ) -> Result<SettlementItem, StoreError> {
        let now = self.now_for(&transfer.account_id, transfer.mode).await?;
        let payload = CardTransferSettled {
            movement: CardMovement {
                card_id: transfer.card_id.to_string(),
                cardholder_id: transfer.cardholder_id.to_string(),
                amount: transfer.amount.to_string(),
                currency: transfer.currency.code(),
                transaction_reference: transfer.transaction_reference.clone(),
                livemode: transfer.mode.is_live(),
                issuing_app_id: transfer.account_id.to_string(),
                card_transaction_type: match transfer.kind {
                    TransferKind::Fund => "CREDIT",
                    TransferKind::Unload => "UNLOAD",
                },
                transaction_date: now.gmt(),
                transaction_timestamp: now.unix(),
            },
            description: (transfer.kind == TransferKind::Unload).then_some(UNLOAD_DESCRIPTION),
            error_description: failure.map(str::to_string),
        };
        let event = Event::transfer_settled(transfer.currency, transfer.kind, settlement, payload);
        let event = self.new_event(&transfer.account_id, transfer.mode, event).await?;
        let delivery = self.delivery_job(&event.id);
        Ok(SettlementItem {
            transfer: transfer.clone(),
            settlement,
            event,
            delivery,
            now,
        })
    }
}

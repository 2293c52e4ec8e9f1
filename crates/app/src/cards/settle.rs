//! The jobs that settle reserved fundings and unloadings, a batch at a
//! time: the network moves each one's money, then the ledger completes
//! (or reverses) the whole batch in one transaction, storing with each the
//! `card_credit_event.*` / `card_unload_event.*` that reports it.

use crate::App;
use domain::cards::transfer::{Settlement, TransferKind, TransferState};
use domain::events::payloads::{CardMovement, CardTransferSettled, Event};
use domain::ids::{AccountId, TransferId};
use domain::{Mode, Timestamp};
use ports::StoreError;
use ports::cards::{Settled, SettlementItem, Transfer};
use std::collections::HashMap;

/// A batch's reading of each mode's clock, so its settlements share one
/// time (and one read) per account and mode.
type Clocks = HashMap<(AccountId, Mode), Timestamp>;

/// The `description` of every unload event.
const UNLOAD_DESCRIPTION: &str = "Unload from the card to the issuing wallet";

/// Why a completion the network accepted was refused by the ledger.
const REFUSED: &str = "the card was deleted, or would hold over 5000 USD";

impl App {
    /// Settles the transfers of a batch of jobs. One outcome per id, in
    /// order; `Err` carries why that one failed, for its job to retry on.
    pub(crate) async fn settle_card_transfers(&self, ids: &[TransferId]) -> Vec<Result<(), String>> {
        if ids.is_empty() {
            return vec![];
        }
        let transfers: HashMap<TransferId, Transfer> = match self.ports.cards.transfers(ids).await {
            Ok(found) => found.into_iter().map(|t| (t.id.clone(), t)).collect(),
            Err(e) => return ids.iter().map(|_| Err(e.to_string())).collect(),
        };
        let mut outcomes: Vec<Result<(), String>> = ids.iter().map(|_| Ok(())).collect();
        let mut clocks = Clocks::default();
        let mut moved = vec![];
        for (i, id) in ids.iter().enumerate() {
            let Some(transfer) = transfers.get(id) else {
                outcomes[i] = Err(format!("transfer {id} does not exist"));
                continue;
            };
            if transfer.state != TransferState::Pending {
                continue; // settled by an earlier attempt
            }
            match self.move_at_network(transfer, &mut clocks).await {
                Ok(item) => moved.push((i, transfer, item)),
                Err(e) => outcomes[i] = Err(e),
            }
        }
        let refused = self.record(moved, &mut outcomes).await;
        // Only a funding can be refused: take the money back off the card
        // at the network, then return it to the wallet.
        let mut reversals = vec![];
        for (i, transfer) in refused {
            let taken_back = self
                .ports
                .network
                .unload(transfer.mode, &transfer.card_id, transfer.amount)
                .await;
            let item = match taken_back {
                Err(d) => Err(format!("reversing a refused funding at the network: {d}")),
                Ok(()) => self
                    .settlement(transfer, Settlement::Reverse, Some(REFUSED), &mut clocks)
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

    /// Moves a pending transfer's money at the network: the settlement
    /// recording the result.
    async fn move_at_network(&self, transfer: &Transfer, clocks: &mut Clocks) -> Result<SettlementItem, String> {
        let network = &self.ports.network;
        let moved = match transfer.kind {
            TransferKind::Fund => network.load(transfer.mode, &transfer.card_id, transfer.amount).await,
            TransferKind::Unload => network.unload(transfer.mode, &transfer.card_id, transfer.amount).await,
        };
        match &moved {
            Ok(()) => self.settlement(transfer, Settlement::Complete, None, clocks).await,
            Err(decline) => {
                self.settlement(transfer, Settlement::Reverse, Some(&decline.0), clocks)
                    .await
            }
        }
        .map_err(|e| e.to_string())
    }

    /// Stores a batch of settlements in one transaction, noting failures
    /// in `outcomes`; returns the fundings the ledger refused.
    async fn record<'t>(
        &self,
        batch: Vec<(usize, &'t Transfer, SettlementItem)>,
        outcomes: &mut [Result<(), String>],
    ) -> Vec<(usize, &'t Transfer)> {
        if batch.is_empty() {
            return vec![];
        }
        let (places, items): (Vec<_>, Vec<_>) = batch.into_iter().map(|(i, t, item)| ((i, t), item)).unzip();
        let settled = self.ports.cards.settle(items).await;
        if settled.len() != places.len() {
            // Never completes a job whose settlement went unanswered.
            let unanswered = format!("the store answered {} of {} settlements", settled.len(), places.len());
            for (i, _) in places {
                outcomes[i] = Err(unanswered.clone());
            }
            return vec![];
        }
        let mut refused = vec![];
        for ((i, transfer), settled) in places.into_iter().zip(settled) {
            match settled {
                Settled::Done | Settled::AlreadySettled => {}
                Settled::Refused => refused.push((i, transfer)),
                Settled::Failed(e) => outcomes[i] = Err(e),
            }
        }
        refused
    }

    /// The settlement of `transfer` with the event that reports it.
    async fn settlement(
        &self,
        transfer: &Transfer,
        settlement: Settlement,
        failure: Option<&str>,
        clocks: &mut Clocks,
    ) -> Result<SettlementItem, StoreError> {
        let (account, mode) = (&transfer.account_id, transfer.mode);
        let key = (account.clone(), mode);
        let now = match clocks.get(&key) {
            Some(now) => *now,
            None => {
                let now = self.now_for(account, mode).await?;
                clocks.insert(key, now);
                now
            }
        };
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
        let event = self.new_event_at(account, mode, event, now);
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

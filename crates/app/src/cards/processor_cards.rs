//! What a card processor that keeps cards needs beyond the simulator: the
//! cardholder made its customer once, a card's status pushed to it after
//! every change, and its id of a card.

use super::CardError;
use crate::App;
use domain::Mode;
use domain::ids::{AccountId, CardId};
use ports::StoreError;
use ports::card_network::{NetworkCardState, NetworkUnavailable};
use ports::cardholders::{CardholderRecord, CustomerClaim};
use ports::jobs::JobKind;
use std::time::Duration;
use tokio::time::{Instant, sleep};

/// How long a request may take to make a cardholder's customer before
/// another may take its claim over (its request died): longer than any
/// processor call is allowed.
const CUSTOMER_CLAIM_SECS: i64 = 60;

/// How long a request waits for another's making of the customer, and
/// how often it looks: a processor call rarely takes longer.
const CUSTOMER_WAIT: Duration = Duration::from_secs(5);
const CUSTOMER_LOOK_EVERY: Duration = Duration::from_millis(25);

impl App {
    /// The processor's id of a card it keeps (`None`: the card's details are sealed here).
    pub(crate) async fn kept_card(&self, id: &CardId) -> Result<Option<String>, StoreError> {
        let kept = self.ports.cards.processor_cards(std::slice::from_ref(id)).await?;
        Ok(kept.into_iter().next().map(|(_, at)| at))
    }

    /// The cardholder's customer at the mode's processor, made with the
    /// first card there, once: a second request meanwhile waits for it
    /// (a while, then is told to retry: 504), never makes a second one.
    pub(crate) async fn processor_customer(
        &self,
        mode: Mode,
        owner: &CardholderRecord,
    ) -> Result<Option<String>, CardError> {
        if !self.ports.network.keeps_customers(mode) {
            return Ok(None);
        }
        let cardholders = &self.ports.cardholders;
        let waited_enough = Instant::now() + CUSTOMER_WAIT;
        let claim = loop {
            let now = self.ports.clock.now();
            match cardholders
                .claim_processor_customer(&owner.id, now, CUSTOMER_CLAIM_SECS)
                .await?
            {
                CustomerClaim::Busy if Instant::now() < waited_enough => sleep(CUSTOMER_LOOK_EVERY).await,
                claim => break claim,
            }
        };
        match claim {
            CustomerClaim::Known(customer) => Ok(Some(customer)),
            CustomerClaim::Busy => Err(NetworkUnavailable(
                "another request is making this cardholder a customer of the processor; retry".into(),
            )
            .into()),
            CustomerClaim::Claimed => match self.ports.network.create_customer(mode, owner).await {
                Ok(customer) => {
                    cardholders.set_processor_customer(&owner.id, &customer).await?;
                    Ok(Some(customer))
                }
                Err(e) => {
                    cardholders.release_processor_customer(&owner.id).await?;
                    Err(e.into())
                }
            },
        }
    }

    /// After a card's status changed here: a processor-kept card's is
    /// pushed to the processor by a job, retried until it is there.
    pub(crate) async fn card_status_changed(
        &self,
        (account, mode): (&AccountId, Mode),
        id: &CardId,
    ) -> Result<(), StoreError> {
        if self.kept_card(id).await?.is_some() {
            let job = self.job_now(JobKind::SyncProcessorCard, id.to_string());
            self.ports.jobs.schedule(job, account, mode).await?;
            self.work_queued();
        }
        Ok(())
    }

    /// The `SyncProcessorCard` job: the card's own status, set at its
    /// processor (terminated once the card is deleted here).
    pub(crate) async fn sync_processor_card(
        &self,
        (account, mode): (&AccountId, Mode),
        id: &CardId,
    ) -> Result<(), String> {
        let Some(at) = self.kept_card(id).await.map_err(|e| e.to_string())? else {
            return Ok(());
        };
        let state = match self
            .ports
            .cards
            .get(account, mode, id)
            .await
            .map_err(|e| e.to_string())?
        {
            Some(card) if card.state.is_active() => NetworkCardState::Active,
            Some(_) => NetworkCardState::Frozen,
            None => NetworkCardState::Terminated,
        };
        // Pushed only when it differs: a card already in that state (an
        // earlier job's work, two jobs queued for one change) needs
        // nothing, and a terminated card cannot be changed again.
        let network = &self.ports.network;
        let there = network.state(mode, &at).await.map_err(|e| e.to_string())?;
        match there {
            Some(there) if there == state => Ok(()),
            None if state == NetworkCardState::Terminated => Ok(()),
            _ => network.set_state(mode, &at, state).await.map_err(|e| e.to_string()),
        }
    }

    /// Every card of `mode` a processor keeps, its status here against
    /// the processor's.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn reconcile_cards(&self, mode: Mode) -> Result<Reconciliation, CardError> {
        let kept = self.ports.cards.kept_cards(mode).await?;
        let mut differences = vec![];
        for (card_id, processor_card, here) in &kept {
            // A card the processor could not tell about is a difference too,
            // with why; the others are still compared.
            let there = self.ports.network.state(mode, processor_card).await.map_err(|e| e.0);
            if there != Ok(Some(*here)) {
                differences.push(CardDifference {
                    card_id: card_id.clone(),
                    processor_card: processor_card.clone(),
                    here: *here,
                    there,
                });
            }
        }
        Ok(Reconciliation {
            compared: kept.len(),
            differences,
        })
    }
}

/// What `issuing reconcile cards` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reconciliation {
    pub compared: usize,
    pub differences: Vec<CardDifference>,
}

/// A card whose status here is not the processor's (`there`: `None` when
/// the processor does not know it, `Err` when it could not be asked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardDifference {
    pub card_id: CardId,
    pub processor_card: String,
    pub here: NetworkCardState,
    pub there: Result<Option<NetworkCardState>, String>,
}

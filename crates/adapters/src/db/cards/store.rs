//! USD cards and the money moving onto and off them. The card row is the
//! card's lock: every change to a card's ledger accounts first updates its
//! row, so on PostgreSQL changes to one card are serialised, and a
//! deletion reads a balance nobody else is changing.
//!
//! Over 400 lines as one thing: the one `CardStore` impl, which Rust keeps
//! in one block; the money steps it starts live in `crate::db::money`.

use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::money::ledger::{
    CardLedger, LedgerAccountRow, LedgerCode, card_ledger_account_id, ledger_account_id, post_transfer, transfer_rows,
};
use crate::db::money::reservations::Waiting;
use crate::db::money::spending_controls::take_over_spending;
use crate::db::money::steps::{
    TxError, clear_deleted_balance, mine, outcome_or_failed, refused_or_failed, take_reference, violates, wallet,
};
use crate::db::rows::{APPROVED, MAINTENANCE_FEE, MAINTENANCE_FEE_ENRICHMENT, TransferRow};
use crate::db::schema::{
    card_details_tokens, card_openings, card_transactions, card_transfers, cardholders, cards, jobs, ledger_accounts,
    processor_card_ids, processor_cards, transaction_references,
};
use crate::db::{Db, DbError, with_conn};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::cardholders::CardholderStatus;
use domain::cards::product::Product;
use domain::cards::state::{CardState, DeletionReason};
use domain::cards::{CardLimit, CardType};
use domain::ids::{AccountId, CardId, CardholderId, TransferId};
use domain::paging::Page;
use domain::{Amount, Currency, Mode, Timestamp};
use ports::StoreError;
use ports::card_network::NetworkCardState;
use ports::cards::{
    CardRecord, CardStore, CreateCardError, DetailsToken, FeeCharge, FeeOutcome, Funding, NewCard, NewTransfer,
    PinKind, ReserveError, RuleState, SealedDetails, Settled, SettlementItem, Transfer,
};
use ports::events::NewEvent;
use ports::jobs::NewJob;

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = cards)]
struct CardRow {
    id: String,
    account_id: String,
    livemode: bool,
    cardholder_id: String,
    card_type: String,
    card_name: String,
    pan_sealed: Vec<u8>,
    cvv_sealed: Vec<u8>,
    expiry_month_sealed: Vec<u8>,
    expiry_year_sealed: Vec<u8>,
    last_4: String,
    pin_sealed: Vec<u8>,
    pin_3ds_sealed: Option<Vec<u8>>,
    card_limit: i64,
    fee_hold: i64,
    token_number: Option<String>,
    is_active: bool,
    meta_data: Option<String>,
    created_at: i64,
    fee_anchor_at: i64,
    currency: String,
    nin_sealed: Option<Vec<u8>>,
}

impl CardRow {
    fn new(new: NewCard) -> Self {
        let c = new.card;
        CardRow {
            id: c.id.to_string(),
            account_id: c.account_id.to_string(),
            livemode: c.mode.is_live(),
            cardholder_id: c.cardholder_id.to_string(),
            card_type: c.card_type.as_str().to_string(),
            card_name: c.name,
            pan_sealed: c.details.pan,
            cvv_sealed: c.details.cvv,
            expiry_month_sealed: c.details.expiry_month,
            expiry_year_sealed: c.details.expiry_year,
            last_4: c.last_4,
            pin_sealed: new.sealed_pin,
            pin_3ds_sealed: None,
            card_limit: c.limit.monthly().minor(),
            fee_hold: c.fee_hold.minor(),
            token_number: new.token_number,
            is_active: c.state.is_active(),
            meta_data: c.meta_data,
            created_at: c.created_at.unix(),
            fee_anchor_at: new.fee_anchor_at.unix(),
            currency: c.currency.code().to_string(),
            nin_sealed: new.sealed_nin,
        }
    }

    fn record(self, balance: i64, held: i64) -> Result<CardRecord, StoreError> {
        let corrupt = |what: &str| StoreError::new(format!("card {} has an unreadable {what}", self.id));
        let card_type = CardType::parse("card_type", &self.card_type).map_err(|_| corrupt("card_type"))?;
        let limit = CardLimit::from_minor(self.card_limit).ok_or_else(|| corrupt("card_limit"))?;
        let fee_hold = Amount::from_minor(self.fee_hold).ok_or_else(|| corrupt("fee_hold"))?;
        let currency = Currency::parse("currency", &self.currency).map_err(|_| corrupt("currency"))?;
        Ok(CardRecord {
            id: CardId::new(self.id),
            account_id: AccountId::new(self.account_id),
            mode: Mode::from_live(self.livemode),
            cardholder_id: CardholderId::new(self.cardholder_id),
            card_type,
            currency,
            name: self.card_name,
            details: SealedDetails {
                pan: self.pan_sealed,
                cvv: self.cvv_sealed,
                expiry_month: self.expiry_month_sealed,
                expiry_year: self.expiry_year_sealed,
            },
            last_4: self.last_4,
            limit,
            fee_hold,
            // Only live cards are read as records.
            state: if self.is_active {
                CardState::Active
            } else {
                CardState::Frozen
            },
            pin_3ds_activated: self.pin_3ds_sealed.is_some(),
            meta_data: self.meta_data,
            created_at: Timestamp::from_unix(self.created_at),
            balance,
            held,
        })
    }
}

/// The ledger balances of `cards`, by card id (one query).
macro_rules! balances_of {
    ($conn:expr, $ids:expr) => {{
        let ids: Vec<String> = $ids
            .flat_map(|id: &str| [CardLedger::Balance, CardLedger::Held].map(|which| card_ledger_account_id(id, which)))
            .collect();
        ledger_accounts::table
            .filter(ledger_accounts::id.eq_any(ids))
            .select((ledger_accounts::id, ledger_accounts::balance))
            .load::<(String, i64)>($conn)
            .await
    }};
}

fn with_balances(rows: Vec<CardRow>, balances: &[(String, i64)]) -> Result<Vec<CardRecord>, StoreError> {
    rows.into_iter()
        .map(|row| {
            let of = |which| {
                let id = card_ledger_account_id(&row.id, which);
                balances.iter().find(|(a, _)| *a == id).map_or(0, |(_, b)| *b)
            };
            let (balance, held) = (of(CardLedger::Balance), of(CardLedger::Held));
            row.record(balance, held)
        })
        .collect()
}

#[async_trait::async_trait]
impl CardStore for Db {
    async fn create(
        &self,
        card: NewCard,
        event: NewEvent,
        jobs: Vec<NewJob>,
        now: Timestamp,
    ) -> Result<(), CreateCardError> {
        let now = now.unix();
        let (account, mode) = (card.card.account_id.clone(), card.card.mode);
        let product = Product::of(card.card.currency);
        let id = card.card.id.to_string();
        let balance = &card_ledger_account_id(&id, CardLedger::Balance);
        let opening = [
            CardLedger::Balance,
            CardLedger::Transit,
            CardLedger::Spend,
            CardLedger::Held,
        ]
        .map(|which| LedgerAccountRow::card(&account, mode, &id, which, product.currency, now));
        let funding = card.funding.clone();
        let reference = card.reference.clone();
        let processor_card = card.processor_card.clone();
        let row = &CardRow::new(card);
        let job_rows = &jobs
            .into_iter()
            .map(|j| JobRow::new(j, &account, mode))
            .collect::<Vec<_>>();
        let event = &EventRow::new(event);
        let wallet = &wallet(&account, mode, product.currency);
        let result = with_conn!(self.pool(), |conn| {
            let result = conn
                .transaction::<_, TxError<CreateCardError>, _>(async |conn| {
                    // The cardholder first, locked and still active at this
                    // commit: a deletion that commits first refuses the card,
                    // and one that waits on this lock deletes it after.
                    let active = diesel::update(
                        cardholders::table
                            .filter(cardholders::id.eq(row.cardholder_id.as_str()))
                            .filter(cardholders::account_id.eq(account.as_str()))
                            .filter(cardholders::livemode.eq(mode.is_live()))
                            .filter(cardholders::deleted_at.is_null())
                            .filter(cardholders::blacklisted.eq(false))
                            .filter(cardholders::status.eq(CardholderStatus::Verified.as_str())),
                    )
                    .set(cardholders::status.eq(cardholders::status))
                    .execute(conn)
                    .await?;
                    if active != 1 {
                        return Err(TxError::Refused(CreateCardError::CardholderGone));
                    }
                    if let Some(reference) = &reference {
                        take_reference!(conn, account, mode, reference, now, CreateCardError::ReferenceUsed);
                    }
                    diesel::insert_into(cards::table)
                        .values(row)
                        .execute(conn)
                        .await
                        .map_err(|e| match violates(&e, "token_number") {
                            true => TxError::Refused(CreateCardError::TokenNumberUsed),
                            false => TxError::from(e),
                        })?;
                    if let Some(processor_card) = &processor_card {
                        diesel::insert_into(processor_cards::table)
                            .values((
                                processor_cards::account_id.eq(account.as_str()),
                                processor_cards::card_id.eq(&id),
                                processor_cards::livemode.eq(mode.is_live()),
                                processor_cards::processor_card_id.eq(processor_card),
                            ))
                            .execute(conn)
                            .await?;
                        diesel::insert_into(processor_card_ids::table)
                            .values((
                                processor_card_ids::livemode.eq(mode.is_live()),
                                processor_card_ids::processor_card_id.eq(processor_card),
                                processor_card_ids::account_id.eq(account.as_str()),
                                processor_card_ids::card_id.eq(&id),
                            ))
                            .execute(conn)
                            .await?;
                    }
                    for ledger_account in &opening {
                        diesel::insert_into(ledger_accounts::table)
                            .values(ledger_account)
                            .execute(conn)
                            .await?;
                    }
                    store_event!(conn, event, job_rows);
                    // Last: the source, when it is the wallet, is the hot row.
                    let (source, amount, refusal) = match &funding {
                        Funding::Wallet(amount) => (wallet.clone(), *amount, CreateCardError::WalletTooLow),
                        Funding::Card(old) => {
                            // The old card is deleted first: it is locked from here on.
                            // The new one takes over its last fee month, its
                            // spend by window and its spending controls (a
                            // migration restarts no limit).
                            let Some((fee_month, spend_month, month_spend)) =
                                diesel::update(mine!(account, mode).filter(cards::id.eq(old.as_str())))
                                    .set((
                                        cards::deleted_at.eq(now),
                                        cards::deleted_reason.eq(DeletionReason::Migrated.as_str()),
                                    ))
                                    .returning((cards::fee_month, cards::spend_month, cards::month_spend))
                                    .get_result::<(Option<i32>, i32, i64)>(conn)
                                    .await
                                    .optional()?
                            else {
                                return Err(TxError::Refused(CreateCardError::SourceCardNotFound));
                            };
                            diesel::update(cards::table.filter(cards::id.eq(&id)))
                                .set((
                                    cards::fee_month.eq(fee_month),
                                    cards::spend_month.eq(spend_month),
                                    cards::month_spend.eq(month_spend),
                                ))
                                .execute(conn)
                                .await?;
                            take_over_spending!(conn, old.as_str(), &id)?;
                            let source = card_ledger_account_id(old.as_str(), CardLedger::Balance);
                            let balance = ledger_accounts::table
                                .filter(ledger_accounts::id.eq(&source))
                                .select(ledger_accounts::balance)
                                .first::<i64>(conn)
                                .await?;
                            // Money on it moves to the new card; a card below
                            // zero (a forced post) is written off as any
                            // deleted card is, and the new one starts at 0.
                            if balance < 0 {
                                clear_deleted_balance!(conn, &account, mode, old.as_str(), now)?;
                            } else {
                                // Its record: what left it for the new card.
                                diesel::update(card_openings::table.find((account.as_str(), old.as_str())))
                                    .set(card_openings::closed_with.eq(balance))
                                    .execute(conn)
                                    .await?;
                            }
                            (
                                source,
                                Amount::from_minor(balance).unwrap_or(Amount::ZERO),
                                CreateCardError::WalletTooLow,
                            )
                        }
                    };
                    if amount > Amount::ZERO {
                        let rows = transfer_rows(
                            &account,
                            mode,
                            "card_funding",
                            (&source, balance),
                            product.currency,
                            amount,
                            now,
                        )?;
                        if !post_transfer!(
                            conn,
                            &rows,
                            &source,
                            balance,
                            amount,
                            keep = 0,
                            cap = product.max_balance.minor()
                        )? {
                            return Err(TxError::Refused(refusal));
                        }
                    }
                    // Its record, which the ledger check ties the entry to.
                    diesel::insert_into(card_openings::table)
                        .values((
                            card_openings::account_id.eq(account.as_str()),
                            card_openings::card_id.eq(&id),
                            card_openings::opened_with.eq(amount.minor()),
                        ))
                        .execute(conn)
                        .await?;
                    Ok(())
                })
                .await;
            Ok::<_, DbError>(result)
        })
        .map_err(StoreError::from)?;
        refused_or_failed(result)
    }

    async fn get(&self, account: &AccountId, mode: Mode, id: &CardId) -> Result<Option<CardRecord>, StoreError> {
        let found = with_conn!(self.pool(), |conn| {
            async {
                let Some(row) = mine!(account, mode)
                    .filter(cards::id.eq(id.as_str()))
                    .select(CardRow::as_select())
                    .first::<CardRow>(conn)
                    .await
                    .optional()?
                else {
                    return Ok(None);
                };
                let balances = balances_of!(conn, std::iter::once(row.id.as_str()))?;
                Ok::<_, DieselError>(Some((row, balances)))
            }
            .await
        })?;
        found
            .map(|(row, balances)| with_balances(vec![row], &balances).map(|mut v| v.remove(0)))
            .transpose()
    }

    async fn for_cardholder(
        &self,
        account: &AccountId,
        mode: Mode,
        cardholder: &CardholderId,
    ) -> Result<Vec<CardRecord>, StoreError> {
        let (rows, balances) = with_conn!(self.pool(), |conn| {
            async {
                let rows = mine!(account, mode)
                    .filter(cards::cardholder_id.eq(cardholder.as_str()))
                    .order(cards::id.desc())
                    .select(CardRow::as_select())
                    .load::<CardRow>(conn)
                    .await?;
                let balances = balances_of!(conn, rows.iter().map(|r| r.id.as_str()))?;
                Ok::<_, DieselError>((rows, balances))
            }
            .await
        })?;
        with_balances(rows, &balances)
    }

    async fn list(&self, account: &AccountId, mode: Mode, page: Page) -> Result<(Vec<CardRecord>, u64), StoreError> {
        let (rows, balances, total) = with_conn!(self.pool(), |conn| {
            async {
                let total = mine!(account, mode).count().get_result::<i64>(conn).await?;
                let rows = mine!(account, mode)
                    .order(cards::id.desc())
                    .limit(i64::from(page.size))
                    .offset(page.offset())
                    .select(CardRow::as_select())
                    .load::<CardRow>(conn)
                    .await?;
                let balances = balances_of!(conn, rows.iter().map(|r| r.id.as_str()))?;
                Ok::<_, DieselError>((rows, balances, total))
            }
            .await
        })?;
        Ok((with_balances(rows, &balances)?, u64::try_from(total).unwrap_or(0)))
    }

    async fn set_active(&self, account: &AccountId, mode: Mode, id: &CardId, active: bool) -> Result<bool, StoreError> {
        let changed = with_conn!(self.pool(), |conn| {
            diesel::update(mine!(account, mode).filter(cards::id.eq(id.as_str())))
                .set(cards::is_active.eq(active))
                .execute(conn)
                .await
        })?;
        Ok(changed == 1)
    }

    async fn processor_cards(&self, ids: &[CardId]) -> Result<Vec<(CardId, String)>, StoreError> {
        let ids: Vec<&str> = ids.iter().map(CardId::as_str).collect();
        let rows = with_conn!(self.pool(), |conn| {
            processor_cards::table
                .filter(processor_cards::card_id.eq_any(&ids))
                .select((processor_cards::card_id, processor_cards::processor_card_id))
                .load::<(String, String)>(conn)
                .await
        })?;
        Ok(rows.into_iter().map(|(card, at)| (CardId::new(card), at)).collect())
    }

    async fn sealed_pin(&self, account: &AccountId, mode: Mode, id: &CardId) -> Result<Option<Vec<u8>>, StoreError> {
        let sealed = with_conn!(self.pool(), |conn| {
            mine!(account, mode)
                .filter(cards::id.eq(id.as_str()))
                .select(cards::pin_sealed)
                .first::<Vec<u8>>(conn)
                .await
                .optional()
        })?;
        Ok(sealed)
    }

    async fn reference_taken(&self, account: &AccountId, mode: Mode, reference: &str) -> Result<bool, StoreError> {
        let taken = with_conn!(self.pool(), |conn| {
            transaction_references::table
                .filter(transaction_references::account_id.eq(account.as_str()))
                .filter(transaction_references::livemode.eq(mode.is_live()))
                .filter(transaction_references::reference.eq(reference))
                .count()
                .get_result::<i64>(conn)
                .await
        })?;
        Ok(taken > 0)
    }

    async fn kept_cards(&self, mode: Mode) -> Result<Vec<(CardId, String, NetworkCardState)>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            processor_cards::table
                .inner_join(cards::table.on(cards::id.eq(processor_cards::card_id)))
                .filter(processor_cards::livemode.eq(mode.is_live()))
                .order(processor_cards::card_id)
                .select((
                    processor_cards::card_id,
                    processor_cards::processor_card_id,
                    cards::is_active,
                    cards::deleted_at.is_not_null(),
                ))
                .load::<(String, String, bool, bool)>(conn)
                .await
        })?;
        Ok(rows
            .into_iter()
            .map(|(card, at, active, deleted)| {
                let state = match (deleted, active) {
                    (true, _) => NetworkCardState::Terminated,
                    (false, true) => NetworkCardState::Active,
                    (false, false) => NetworkCardState::Frozen,
                };
                (CardId::new(card), at, state)
            })
            .collect())
    }

    async fn by_processor_card(&self, mode: Mode, processor_card: &str) -> Result<Option<CardId>, StoreError> {
        let card = with_conn!(self.pool(), |conn| {
            processor_card_ids::table
                .find((mode.is_live(), processor_card))
                .select(processor_card_ids::card_id)
                .first::<String>(conn)
                .await
                .optional()
        })?;
        Ok(card.map(CardId::new))
    }

    async fn set_pin(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardId,
        kind: PinKind,
        sealed: Vec<u8>,
    ) -> Result<bool, StoreError> {
        let changed = with_conn!(self.pool(), |conn| {
            let card = mine!(account, mode).filter(cards::id.eq(id.as_str()));
            match kind {
                PinKind::Card => {
                    diesel::update(card)
                        .set(cards::pin_sealed.eq(&sealed))
                        .execute(conn)
                        .await
                }
                PinKind::ThreeDSecure => {
                    diesel::update(card)
                        .set(cards::pin_3ds_sealed.eq(Some(&sealed)))
                        .execute(conn)
                        .await
                }
            }
        })?;
        Ok(changed == 1)
    }

    async fn delete(
        &self,
        account: &AccountId,
        mode: Mode,
        id: &CardId,
        reason: DeletionReason,
        now: Timestamp,
        notice: Option<(NewEvent, NewJob)>,
    ) -> Result<Option<Amount>, StoreError> {
        let now = now.unix();
        let notice = &notice.map(|(event, job)| (EventRow::new(event), JobRow::new(job, account, mode)));
        let result = with_conn!(self.pool(), |conn| {
            let result = conn
                .transaction::<_, TxError<()>, _>(async |conn| {
                    let deleted = diesel::update(mine!(account, mode).filter(cards::id.eq(id.as_str())))
                        .set((cards::deleted_at.eq(now), cards::deleted_reason.eq(reason.as_str())))
                        .execute(conn)
                        .await?;
                    if deleted != 1 {
                        return Err(TxError::Refused(()));
                    }
                    if let Some((event, job)) = notice {
                        store_event!(conn, event, [job]);
                    }
                    let refund = clear_deleted_balance!(conn, account, mode, id.as_str(), now)?;
                    Ok(refund)
                })
                .await;
            Ok::<_, DbError>(result)
        })?;
        match result {
            Ok(refund) => Ok(Some(refund)),
            Err(TxError::Refused(())) => Ok(None),
            Err(TxError::Db(e)) => Err(e.into()),
        }
    }

    async fn reserve(&self, transfer: NewTransfer, settle: NewJob) -> Result<(), ReserveError> {
        let recorded = self.reservations().submit(Waiting { transfer, settle }).await;
        recorded.unwrap_or_else(|e| Err(e.into()))
    }

    async fn transfers(&self, ids: &[TransferId]) -> Result<Vec<Transfer>, StoreError> {
        let ids: Vec<&str> = ids.iter().map(TransferId::as_str).collect();
        let rows = with_conn!(self.pool(), |conn| {
            card_transfers::table
                .filter(card_transfers::id.eq_any(&ids))
                .select(TransferRow::as_select())
                .load::<TransferRow>(conn)
                .await
        })?;
        rows.into_iter().map(TransferRow::record).collect()
    }

    async fn transfer_of(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        reference: &str,
    ) -> Result<Option<Transfer>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            card_transfers::table
                .filter(card_transfers::card_id.eq(card.as_str()))
                .filter(card_transfers::account_id.eq(account.as_str()))
                .filter(card_transfers::livemode.eq(mode.is_live()))
                .filter(card_transfers::transaction_reference.eq(reference))
                .select(TransferRow::as_select())
                .first::<TransferRow>(conn)
                .await
                .optional()
        })?;
        row.map(TransferRow::record).transpose()
    }

    async fn settle(&self, batch: Vec<SettlementItem>) -> Vec<Settled> {
        crate::db::money::settlements::settle(self.pool(), batch).await
    }

    async fn rule_state(&self, id: &CardId) -> Result<Option<RuleState>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            cards::table
                .filter(cards::id.eq(id.as_str()))
                .select((
                    cards::account_id,
                    cards::livemode,
                    cards::cardholder_id,
                    cards::created_at,
                    cards::fee_anchor_at,
                    cards::fee_month,
                    cards::last_activity_at,
                    cards::fee_hold,
                    cards::deleted_at,
                    cards::deleted_reason,
                    cards::currency,
                ))
                .first::<(
                    String,
                    bool,
                    String,
                    i64,
                    i64,
                    Option<i32>,
                    Option<i64>,
                    i64,
                    Option<i64>,
                    Option<String>,
                    String,
                )>(conn)
                .await
                .optional()
        })?;
        row.map(
            |(
                account,
                livemode,
                holder,
                created_at,
                fee_anchor_at,
                fee_month,
                last_activity_at,
                fee_hold,
                deleted_at,
                deleted_reason,
                currency,
            )| {
                let currency = Currency::parse("currency", &currency)
                    .map_err(|_| StoreError::new(format!("card {id} has an unreadable currency")))?;
                Ok(RuleState {
                    account_id: AccountId::new(account),
                    mode: Mode::from_live(livemode),
                    cardholder_id: CardholderId::new(holder),
                    currency,
                    created_at: Timestamp::from_unix(created_at),
                    fee_anchor_at: Timestamp::from_unix(fee_anchor_at),
                    fee_month,
                    last_activity_at: last_activity_at.map(Timestamp::from_unix),
                    fee_hold: Amount::from_minor(fee_hold).unwrap_or(Amount::ZERO),
                    // Deleted before reasons were kept: as if requested.
                    deleted: deleted_at.map(|_| {
                        deleted_reason
                            .as_deref()
                            .and_then(DeletionReason::parse)
                            .unwrap_or(DeletionReason::Requested)
                    }),
                })
            },
        )
        .transpose()
    }

    async fn charge_fee(
        &self,
        charge: FeeCharge,
        event: NewEvent,
        jobs: Vec<NewJob>,
    ) -> Result<FeeOutcome, StoreError> {
        let (account, mode, now) = (event.account_id.clone(), event.mode, charge.now.unix());
        let card = charge.card_id.as_str();
        let balance_account = &card_ledger_account_id(card, CardLedger::Balance);
        let income = &ledger_account_id(&account, mode, LedgerCode::FeeIncome, Currency::Usd);
        let fee = charge.fee.minor();
        let rows = &transfer_rows(
            &account,
            mode,
            "maintenance_fee",
            (balance_account, income),
            Currency::Usd,
            charge.fee,
            now,
        )?;
        let job_rows = &jobs
            .into_iter()
            .map(|j| JobRow::new(j, &account, mode))
            .collect::<Vec<_>>();
        let event = &EventRow::new(event);
        let (account, charge) = (&account, &charge);
        let result = with_conn!(self.pool(), |conn| {
            let result = conn
                .transaction::<_, TxError<FeeOutcome>, _>(async |conn| {
                    let Some((next, delivery)) = job_rows.split_last() else {
                        return Err(TxError::Db(DbError::Refused));
                    };
                    // The month, taken on the card (which locks it): each is handled once.
                    let card_row = mine!(account, mode).filter(cards::id.eq(card));
                    let handled = cards::fee_month.is_null().or(cards::fee_month.lt(charge.month));
                    let Some(holder) = diesel::update(card_row.filter(handled))
                        .set(cards::fee_month.eq(charge.month))
                        .returning(cards::cardholder_id)
                        .get_result::<String>(conn)
                        .await
                        .optional()?
                    else {
                        let live = card_row.count().get_result::<i64>(conn).await? == 1;
                        if !live {
                            return Err(TxError::Refused(FeeOutcome::CardDeleted));
                        }
                        // Handled before: the next charge is still planned, once (its id is fixed).
                        diesel::insert_into(jobs::table)
                            .values(next)
                            .on_conflict_do_nothing()
                            .execute(conn)
                            .await?;
                        return Ok(FeeOutcome::AlreadyCharged);
                    };
                    diesel::insert_into(jobs::table)
                        .values(next)
                        .on_conflict_do_nothing()
                        .execute(conn)
                        .await?;
                    let balance = ledger_accounts::table
                        .filter(ledger_accounts::id.eq(balance_account))
                        .select(ledger_accounts::balance)
                        .first::<i64>(conn)
                        .await?;
                    if balance < fee {
                        return Ok(FeeOutcome::TooLow);
                    }
                    // The fee is the card's next approved transaction.
                    let seq = diesel::update(cards::table.filter(cards::id.eq(card)))
                        .set(cards::approved_count.eq(cards::approved_count + 1))
                        .returning(cards::approved_count)
                        .get_result::<i64>(conn)
                        .await?;
                    diesel::insert_into(card_transactions::table)
                        .values((
                            card_transactions::id.eq(&charge.id),
                            card_transactions::account_id.eq(account.as_str()),
                            card_transactions::livemode.eq(mode.is_live()),
                            card_transactions::card_id.eq(card),
                            card_transactions::cardholder_id.eq(&holder),
                            card_transactions::client_reference.eq(&charge.reference),
                            card_transactions::status.eq(APPROVED),
                            card_transactions::amount.eq(fee),
                            card_transactions::currency.eq(Currency::Usd.code()),
                            card_transactions::description.eq(MAINTENANCE_FEE),
                            card_transactions::enriched_data.eq(MAINTENANCE_FEE_ENRICHMENT),
                            card_transactions::merchant_name.eq(MAINTENANCE_FEE),
                            card_transactions::created_at.eq(now),
                            card_transactions::approved_seq.eq(seq),
                        ))
                        .execute(conn)
                        .await?;
                    store_event!(conn, event, delivery);
                    if !post_transfer!(
                        conn,
                        rows,
                        balance_account,
                        income,
                        charge.fee,
                        keep = 0,
                        cap = Amount::MAX.minor()
                    )? {
                        return Err(TxError::Db(DbError::Refused));
                    }
                    Ok(FeeOutcome::Charged)
                })
                .await;
            Ok::<_, DbError>(result)
        })?;
        outcome_or_failed(result)
    }

    async fn insert_details_token(&self, hash: String, token: DetailsToken, now: Timestamp) -> Result<(), StoreError> {
        let now = now.unix();
        // Tokens of the account and mode that can no longer be redeemed go.
        let spent = card_details_tokens::table
            .filter(card_details_tokens::account_id.eq(token.account_id.as_str()))
            .filter(card_details_tokens::livemode.eq(token.mode.is_live()))
            .filter(
                card_details_tokens::expires_at
                    .le(now)
                    .or(card_details_tokens::used_at.is_not_null()),
            );
        with_conn!(self.pool(), |conn| {
            diesel::delete(spent).execute(conn).await?;
            diesel::insert_into(card_details_tokens::table)
                .values((
                    card_details_tokens::token_hash.eq(&hash),
                    card_details_tokens::account_id.eq(token.account_id.as_str()),
                    card_details_tokens::livemode.eq(token.mode.is_live()),
                    card_details_tokens::card_id.eq(token.card_id.as_str()),
                    card_details_tokens::expires_at.eq(token.expires_at.unix()),
                ))
                .execute(conn)
                .await
        })?;
        Ok(())
    }

    async fn find_details_token(&self, hash: &str) -> Result<Option<DetailsToken>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            card_details_tokens::table
                .filter(card_details_tokens::token_hash.eq(hash))
                .select((
                    card_details_tokens::account_id,
                    card_details_tokens::livemode,
                    card_details_tokens::card_id,
                    card_details_tokens::expires_at,
                    card_details_tokens::used_at,
                ))
                .first::<(String, bool, String, i64, Option<i64>)>(conn)
                .await
                .optional()
        })?;
        Ok(row.map(|(account, livemode, card, expires_at, used_at)| DetailsToken {
            account_id: AccountId::new(account),
            mode: Mode::from_live(livemode),
            card_id: CardId::new(card),
            expires_at: Timestamp::from_unix(expires_at),
            used: used_at.is_some(),
        }))
    }

    async fn consume_details_token(&self, hash: &str, now: Timestamp) -> Result<bool, StoreError> {
        let now = now.unix();
        let used = with_conn!(self.pool(), |conn| {
            diesel::update(
                card_details_tokens::table
                    .filter(card_details_tokens::token_hash.eq(hash))
                    .filter(card_details_tokens::used_at.is_null())
                    .filter(card_details_tokens::expires_at.gt(now)),
            )
            .set(card_details_tokens::used_at.eq(now))
            .execute(conn)
            .await
        })?;
        Ok(used == 1)
    }
}

//! Card debits (recorded by group commit: [`crate::db::money::debits`]), their
//! history, and 3-D Secure challenges.

use crate::db::jobs::events::{EventRow, store_event};
use crate::db::jobs::queue::JobRow;
use crate::db::money::debits::Waiting;
use crate::db::money::steps::{TxError, refused_or_failed, take_reference, violates};
use crate::db::rows::{APPROVED, TransactionRow};
use crate::db::schema::{card_transactions, cards, jobs, three_ds_challenges, transaction_references};
use crate::db::{Db, DbError, with_conn};
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use domain::cards::hold::TransactionKind;
use domain::cards::spending_controls::Country;
use domain::cards::three_ds::ChallengeState;
use domain::ids::{AccountId, CardId};
use domain::paging::Page;
use domain::{Amount, Mode, Timestamp};
use ports::StoreError;
use ports::card_transactions::{
    CardTransaction, CardTransactionStore, Challenge, DebitAttempt, DebitError, DebitOutcome, HoldNotices, HoldOutcome,
    HoldRequest, NewReversal, Notices, Reference, ReversalNotices, ReversalOutcome, TransactionFilter,
};
use ports::events::NewEvent;
use ports::jobs::NewJob;

#[async_trait::async_trait]
impl CardTransactionStore for Db {
    async fn debit(&self, attempt: DebitAttempt, notices: Notices) -> Result<DebitOutcome, DebitError> {
        let deadline = attempt.deadline;
        let recorded = self.debits().submit_by(Waiting { attempt, notices }, deadline).await;
        recorded.unwrap_or_else(|e| Err(e.into()))
    }

    async fn charged_in_each(
        &self,
        card: &CardId,
        merchant_name: &str,
        [first, second]: [(Timestamp, Timestamp); 2],
    ) -> Result<bool, StoreError> {
        let charged = |(from, to): (Timestamp, Timestamp)| {
            diesel::dsl::exists(
                card_transactions::table
                    .filter(card_transactions::card_id.eq(card.as_str()))
                    .filter(card_transactions::status.eq(APPROVED))
                    .filter(card_transactions::created_at.ge(from.unix()))
                    .filter(card_transactions::created_at.lt(to.unix()))
                    .filter(card_transactions::merchant_name.eq(merchant_name)),
            )
        };
        let both = diesel::select(charged(first).and(charged(second)));
        Ok(with_conn!(self.pool(), |conn| both.get_result::<bool>(conn).await)?)
    }

    async fn history(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        page: Page,
        between: Option<(Timestamp, Timestamp)>,
    ) -> Result<(Vec<CardTransaction>, u64), StoreError> {
        let (rows, total) = with_conn!(self.pool(), |conn| {
            async {
                let of_card = card_transactions::table
                    .filter(card_transactions::card_id.eq(card.as_str()))
                    .filter(card_transactions::account_id.eq(account.as_str()))
                    .filter(card_transactions::livemode.eq(mode.is_live()));
                if let Some((from, to)) = between {
                    let between = of_card
                        .filter(card_transactions::status.eq(APPROVED))
                        .filter(card_transactions::created_at.ge(from.unix()))
                        .filter(card_transactions::created_at.le(to.unix()));
                    let rows = between
                        .select(TransactionRow::as_select())
                        .order((card_transactions::created_at.desc(), card_transactions::id.desc()))
                        .limit(i64::from(page.size))
                        .offset(page.offset())
                        .load::<TransactionRow>(conn)
                        .await?;
                    let total = between.count().get_result::<i64>(conn).await?;
                    return Ok((rows, total));
                }
                // Newest first: page p holds the approval numbers
                // count - p*size + 1 to count - (p-1)*size. Only approved
                // transactions have one, so no status filter (which would
                // let PostgreSQL prefer the date index before it has
                // statistics).
                let count = cards::table
                    .filter(cards::id.eq(card.as_str()))
                    .select(cards::approved_count)
                    .first::<i64>(conn)
                    .await
                    .optional()?
                    .unwrap_or(0);
                let newest = count - page.offset();
                let rows = of_card
                    .select(TransactionRow::as_select())
                    .filter(card_transactions::approved_seq.between(newest - i64::from(page.size) + 1, newest))
                    .order(card_transactions::approved_seq.desc())
                    .load::<TransactionRow>(conn)
                    .await?;
                Ok::<_, diesel::result::Error>((rows, count))
            }
            .await
        })?;
        let rows = rows.into_iter().map(TransactionRow::record).collect::<Result<_, _>>()?;
        Ok((rows, u64::try_from(total).unwrap_or(0)))
    }

    async fn list<'a>(
        &self,
        account: &AccountId,
        mode: Mode,
        filter: &TransactionFilter,
        after: Option<&'a str>,
        limit: u32,
    ) -> Result<Option<Vec<CardTransaction>>, StoreError> {
        let rows = with_conn!(self.pool(), |conn| {
            async {
                let mine = || {
                    card_transactions::table
                        .filter(card_transactions::account_id.eq(account.as_str()))
                        .filter(card_transactions::livemode.eq(mode.is_live()))
                };
                let mut query = mine().select(TransactionRow::as_select()).into_boxed();
                if let Some(after) = after {
                    let Some(at) = mine()
                        .filter(card_transactions::id.eq(after))
                        .select(card_transactions::created_at)
                        .first::<i64>(conn)
                        .await
                        .optional()?
                    else {
                        return Ok(None);
                    };
                    // Strictly older in the list's order: what arrives
                    // later never lands behind the cursor.
                    query = query.filter(
                        card_transactions::created_at.lt(at).or(card_transactions::created_at
                            .eq(at)
                            .and(card_transactions::id.lt(after))),
                    );
                }
                if let Some(card) = &filter.card {
                    query = query.filter(card_transactions::card_id.eq(card.as_str()));
                }
                if let Some(holder) = &filter.cardholder {
                    query = query.filter(card_transactions::cardholder_id.eq(holder.as_str()));
                }
                if let Some(status) = filter.status {
                    query = query.filter(card_transactions::status.eq(status.as_str()));
                }
                if let Some(kind) = filter.kind {
                    query = query.filter(card_transactions::kind.eq(kind.as_str()));
                }
                if let Some((from, to)) = filter.between {
                    query = query
                        .filter(card_transactions::created_at.ge(from.unix()))
                        .filter(card_transactions::created_at.le(to.unix()));
                }
                let rows = query
                    .order((card_transactions::created_at.desc(), card_transactions::id.desc()))
                    .limit(i64::from(limit))
                    .load::<TransactionRow>(conn)
                    .await?;
                Ok::<_, diesel::result::Error>(Some(rows))
            }
            .await
        })?;
        rows.map(|rows| rows.into_iter().map(TransactionRow::record).collect())
            .transpose()
    }

    async fn find(
        &self,
        account: &AccountId,
        mode: Mode,
        reference: &Reference,
    ) -> Result<Option<CardTransaction>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            let mine = card_transactions::table
                .filter(card_transactions::account_id.eq(account.as_str()))
                .filter(card_transactions::livemode.eq(mode.is_live()));
            match reference {
                Reference::Issuer(id) => {
                    mine.filter(card_transactions::id.eq(id))
                        .select(TransactionRow::as_select())
                        .first::<TransactionRow>(conn)
                        .await
                }
                Reference::Client(r) => {
                    mine.filter(card_transactions::client_reference.eq(r))
                        .filter(card_transactions::kind.ne(TransactionKind::Capture.as_str()))
                        .select(TransactionRow::as_select())
                        .first::<TransactionRow>(conn)
                        .await
                }
            }
            .optional()
        })?;
        row.map(TransactionRow::record).transpose()
    }

    async fn transaction(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        reference: Reference,
    ) -> Result<Option<CardTransaction>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            let mine = card_transactions::table
                .filter(card_transactions::account_id.eq(account.as_str()))
                .filter(card_transactions::livemode.eq(mode.is_live()))
                .filter(card_transactions::card_id.eq(card.as_str()))
                .filter(card_transactions::status.eq(APPROVED));
            match &reference {
                Reference::Client(r) => {
                    mine.filter(card_transactions::client_reference.eq(r))
                        .select(TransactionRow::as_select())
                        .first::<TransactionRow>(conn)
                        .await
                }
                Reference::Issuer(r) => {
                    mine.filter(card_transactions::id.eq(r))
                        .select(TransactionRow::as_select())
                        .first::<TransactionRow>(conn)
                        .await
                }
            }
            .optional()
        })?;
        row.map(TransactionRow::record).transpose()
    }

    async fn reverse(&self, reversal: NewReversal, notices: ReversalNotices) -> Result<ReversalOutcome, StoreError> {
        crate::db::money::reversals::reverse(self.pool(), &reversal, &notices).await
    }

    async fn settle_hold(&self, request: HoldRequest, notices: HoldNotices) -> Result<HoldOutcome, StoreError> {
        crate::db::money::holds::settle(self.pool(), &request, &notices).await
    }

    async fn given_back(&self, transaction: &str) -> Result<bool, StoreError> {
        crate::db::money::reversals::given_back(self.pool(), transaction).await
    }

    async fn open_challenge(
        &self,
        challenge: Challenge,
        expiry: NewJob,
        (event, delivery): (NewEvent, NewJob),
    ) -> Result<(), DebitError> {
        let (account, mode) = (&challenge.account_id.clone(), challenge.mode);
        let job = &JobRow::new(expiry, account, mode);
        let (event, delivery) = (&EventRow::new(event), &JobRow::new(delivery, account, mode));
        let row = &ChallengeRow::new(challenge);
        let result = with_conn!(self.pool(), |conn| {
            let result = conn
                .transaction::<_, TxError<DebitError>, _>(async |conn| {
                    // The challenge holds its reference from now on, answered or not.
                    take_reference!(
                        conn,
                        account,
                        mode,
                        &row.reference,
                        row.created_at,
                        DebitError::ReferenceUsed
                    );
                    diesel::insert_into(three_ds_challenges::table)
                        .values(row)
                        .execute(conn)
                        .await?;
                    diesel::insert_into(jobs::table).values(job).execute(conn).await?;
                    store_event!(conn, event, [delivery]);
                    Ok(())
                })
                .await;
            Ok::<_, DbError>(result)
        })
        .map_err(StoreError::from)?;
        refused_or_failed(result)
    }

    async fn challenge_for_amount(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        amount: Amount,
        now: Timestamp,
    ) -> Result<Option<Challenge>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            three_ds_challenges::table
                .filter(three_ds_challenges::account_id.eq(account.as_str()))
                .filter(three_ds_challenges::livemode.eq(mode.is_live()))
                .filter(three_ds_challenges::card_id.eq(card.as_str()))
                .filter(three_ds_challenges::state.eq(ChallengeState::Pending.as_str()))
                .filter(three_ds_challenges::amount.eq(amount.minor()))
                .filter(three_ds_challenges::expires_at.gt(now.unix()))
                .order((three_ds_challenges::created_at.desc(), three_ds_challenges::id.desc()))
                .select(ChallengeRow::as_select())
                .first::<ChallengeRow>(conn)
                .await
                .optional()
        })?;
        row.map(ChallengeRow::record).transpose()
    }

    async fn set_challenge_otp(&self, id: &str, otp_hash: &str) -> Result<(), StoreError> {
        with_conn!(self.pool(), |conn| {
            diesel::update(
                three_ds_challenges::table
                    .filter(three_ds_challenges::id.eq(id))
                    .filter(three_ds_challenges::state.eq(ChallengeState::Pending.as_str())),
            )
            .set(three_ds_challenges::otp_hash.eq(otp_hash))
            .execute(conn)
            .await
        })?;
        Ok(())
    }

    async fn challenge(
        &self,
        account: &AccountId,
        mode: Mode,
        card: &CardId,
        reference: &str,
    ) -> Result<Option<Challenge>, StoreError> {
        let row = with_conn!(self.pool(), |conn| {
            three_ds_challenges::table
                .filter(three_ds_challenges::account_id.eq(account.as_str()))
                .filter(three_ds_challenges::livemode.eq(mode.is_live()))
                .filter(three_ds_challenges::card_id.eq(card.as_str()))
                .filter(three_ds_challenges::reference.eq(reference))
                .select(ChallengeRow::as_select())
                .first::<ChallengeRow>(conn)
                .await
                .optional()
        })?;
        row.map(ChallengeRow::record).transpose()
    }

    async fn decide_challenge(
        &self,
        id: &str,
        failed_attempts: u32,
        (state, failed): (ChallengeState, u32),
    ) -> Result<bool, StoreError> {
        let (seen, failed) = (attempts(failed_attempts), attempts(failed));
        let moved = with_conn!(self.pool(), |conn| {
            diesel::update(
                three_ds_challenges::table
                    .filter(three_ds_challenges::id.eq(id))
                    .filter(three_ds_challenges::state.eq(ChallengeState::Pending.as_str()))
                    .filter(three_ds_challenges::failed_attempts.eq(seen)),
            )
            .set((
                three_ds_challenges::state.eq(state.as_str()),
                three_ds_challenges::failed_attempts.eq(failed),
            ))
            .execute(conn)
            .await
        })?;
        Ok(moved == 1)
    }
}

fn attempts(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = three_ds_challenges)]
struct ChallengeRow {
    id: String,
    account_id: String,
    livemode: bool,
    card_id: String,
    amount: i64,
    reference: String,
    descriptor: String,
    merchant_category_code: Option<String>,
    otp_hash: Option<String>,
    failed_attempts: i32,
    expires_at: i64,
    state: String,
    created_at: i64,
    merchant_country: Option<String>,
}

impl ChallengeRow {
    fn new(c: Challenge) -> Self {
        ChallengeRow {
            id: c.id,
            account_id: c.account_id.to_string(),
            livemode: c.mode.is_live(),
            card_id: c.card_id.to_string(),
            amount: c.amount.minor(),
            reference: c.reference,
            descriptor: c.descriptor,
            merchant_category_code: c.merchant_category_code,
            merchant_country: c.merchant_country.map(String::from),
            otp_hash: c.otp_hash,
            failed_attempts: attempts(c.failed_attempts),
            created_at: c.created_at.unix(),
            expires_at: c.expires_at.unix(),
            state: c.state.as_str().to_string(),
        }
    }

    fn record(self) -> Result<Challenge, StoreError> {
        let corrupt =
            |what: &str| StoreError::new(format!("3-D Secure challenge {} has an unreadable {what}", self.id));
        Ok(Challenge {
            amount: Amount::from_minor(self.amount).ok_or_else(|| corrupt("amount"))?,
            state: ChallengeState::parse(&self.state).ok_or_else(|| corrupt("state"))?,
            failed_attempts: u32::try_from(self.failed_attempts).map_err(|_| corrupt("failed_attempts"))?,
            merchant_country: match self.merchant_country.as_deref() {
                Some(c) => Some(Country::parse("merchant_country", c).map_err(|_| corrupt("merchant_country"))?),
                None => None,
            },
            id: self.id,
            account_id: AccountId::new(self.account_id),
            mode: Mode::from_live(self.livemode),
            card_id: CardId::new(self.card_id),
            reference: self.reference,
            descriptor: self.descriptor,
            merchant_category_code: self.merchant_category_code,
            expires_at: Timestamp::from_unix(self.expires_at),
            created_at: Timestamp::from_unix(self.created_at),
            otp_hash: self.otp_hash,
        })
    }
}

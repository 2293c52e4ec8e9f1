//! Card transactions: the sandbox's mock debit, a card's history and one
//! transaction by reference.

use crate::amount_text::AmountText;
use crate::envelope::{Envelope, Meta, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed, Query};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use app::cards::{Completion, MockDebit};
use domain::cards::hold::TransactionKind;
use domain::ids::CardId;
use domain::paging::Page;
use domain::{Currency, InvalidInput};
use ports::card_transactions::{CardTransaction, Reference};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, ToSchema)]
pub struct MockDebitBody {
    #[schema(required = true, nullable = false)]
    card_id: Option<String>,
    /// Cents; 100 when absent.
    #[schema(example = "1500")]
    amount: Option<AmountText>,
    #[schema(example = "USD")]
    currency: Option<String>,
    /// The raw merchant descriptor; a Netflix charge when absent.
    #[schema(example = "UBER *TRIP HELP.UBER.COM")]
    merchant: Option<String>,
    /// 4 digits (ISO 18245).
    #[schema(example = "4121")]
    merchant_category_code: Option<String>,
    /// How the card was used, for the spending controls: `online` (when
    /// absent), `pos`, `atm` or `contactless`.
    #[schema(example = "pos")]
    channel: Option<String>,
    /// The merchant's country (ISO 3166-1 alpha-2), for the spending
    /// controls: the default merchant's `US` when both are absent, else
    /// unknown.
    #[schema(example = "NG")]
    merchant_country: Option<String>,
    /// Unique per account and mode across fundings, unloadings and debits;
    /// generated when absent.
    transaction_reference: Option<String>,
    /// A network-forced post: approved even when the balance cannot cover it.
    force: Option<bool>,
    /// Naira cards: wait for a 3-D Secure OTP instead of posting (202);
    /// read it on the relay's `get_otp_message`, answer it with `complete_3ds`.
    three_ds: Option<bool>,
}

#[derive(Serialize, ToSchema)]
pub struct DebitPosted {
    card_id: String,
    transaction_reference: String,
}

/// Sandbox only: post a debit as the card network would. Declines are
/// recorded and reported by `card_debit_event.declined`; the card rules
/// may delete the card (`card_delete_event.successful`).
#[utoipa::path(
    patch,
    path = "/v1/issuing/sandbox/cards/mock_debit_transaction",
    tag = "sandbox",
    security(("token" = [])),
    request_body = MockDebitBody,
    responses(
        (status = 200, description = "Approved", body = Envelope<DebitPosted>),
        (status = 400, description = "A field breaks a rule, no such card, the reference was used, or declined (frozen, monthly limit, negative balance, a spending control)", body = ErrorBody),
        (status = 401, description = "Bad key, or declined for insufficient balance", body = ErrorBody),
    )
)]
pub async fn mock_debit_transaction(keyed: Keyed, Json(body): Json<MockDebitBody>) -> Result<HttpResponse, ApiError> {
    mock_debit(keyed, body, Currency::Usd).await
}

/// Sandbox only: post a debit on a Naira card as the card network would
/// (amount in kobo, 100 when absent), counted in USD against the card's
/// 1,500 USD a month. Declines as for USD cards.
#[utoipa::path(
    patch,
    path = "/v1/issuing/sandbox/naira_cards/mock_debit_naira_card",
    tag = "sandbox",
    security(("token" = [])),
    request_body = MockDebitBody,
    responses(
        (status = 200, description = "Approved", body = Envelope<DebitPosted>),
        (status = 202, description = "With `three_ds`: the debit awaits its OTP", body = Envelope<DebitPosted>),
        (status = 400, description = "A field breaks a rule, no such Naira card, the reference was used, or declined (frozen, monthly limit, negative balance, a spending control)", body = ErrorBody),
        (status = 401, description = "Bad key, or declined for insufficient balance", body = ErrorBody),
    )
)]
pub async fn mock_debit_naira_card(keyed: Keyed, Json(body): Json<MockDebitBody>) -> Result<HttpResponse, ApiError> {
    mock_debit(keyed, body, Currency::Ngn).await
}

impl From<MockDebitBody> for MockDebit {
    fn from(body: MockDebitBody) -> Self {
        MockDebit {
            card_id: body.card_id,
            amount: AmountText::into_text(body.amount),
            currency: body.currency,
            merchant: body.merchant,
            merchant_category_code: body.merchant_category_code,
            channel: body.channel,
            merchant_country: body.merchant_country,
            transaction_reference: body.transaction_reference,
            force: body.force,
            three_ds: body.three_ds,
        }
    }
}

async fn mock_debit(
    Keyed(app, caller): Keyed,
    body: MockDebitBody,
    currency: Currency,
) -> Result<HttpResponse, ApiError> {
    let (card_id, reference, done) = app.mock_debit_transaction(&caller.0, currency, body.into()).await?;
    let (status, message) = match done {
        Completion::Approved => (StatusCode::OK, "The debit was approved"),
        Completion::AwaitingOtp => (StatusCode::ACCEPTED, "The debit awaits its 3-D Secure OTP"),
    };
    Ok(success(
        status,
        message,
        DebitPosted {
            card_id: card_id.to_string(),
            transaction_reference: reference,
        },
    ))
}

#[derive(Deserialize, ToSchema)]
pub struct CompleteThreeDsBody {
    #[schema(required = true, nullable = false)]
    card_id: Option<String>,
    /// The challenged debit's reference.
    #[schema(required = true, nullable = false)]
    transaction_reference: Option<String>,
    /// The 6 digits `get_otp_message` gave.
    #[schema(example = "123456")]
    #[schema(required = true, nullable = false)]
    otp: Option<String>,
}

/// Sandbox only: answer a Naira debit's 3-D Secure challenge. The right OTP
/// in time posts the debit through the authorization engine (approved, or
/// declined as any debit); a wrong one is 400 with the attempts left; the
/// third wrong one, or an answer after the 5 minutes, declines it
/// (`three_ds_failed`, `card_debit_event.declined`).
#[utoipa::path(
    post,
    path = "/v1/issuing/sandbox/naira_cards/complete_3ds",
    tag = "sandbox",
    security(("token" = [])),
    request_body = CompleteThreeDsBody,
    responses(
        (status = 200, description = "Approved", body = Envelope<DebitPosted>),
        (status = 400, description = "No such challenge, a wrong OTP, or declined", body = ErrorBody),
        (status = 401, description = "Bad key, or declined for insufficient balance", body = ErrorBody),
    )
)]
pub async fn complete_3ds(
    Keyed(app, caller): Keyed,
    Json(body): Json<CompleteThreeDsBody>,
) -> Result<HttpResponse, ApiError> {
    let answer = (&body.card_id, &body.transaction_reference, &body.otp);
    let (card_id, reference) = app.complete_3ds(&caller.0, answer).await?;
    Ok(success(
        StatusCode::OK,
        "The debit was approved",
        DebitPosted {
            card_id: card_id.to_string(),
            transaction_reference: reference,
        },
    ))
}

#[derive(Serialize, ToSchema)]
pub struct TransactionView {
    amount: String,
    /// The service's own reference.
    issuer_transaction_reference: String,
    /// Yours (or the network's), from the debit.
    client_transaction_reference: String,
    card_id: String,
    cardholder_id: String,
    issuing_app_id: String,
    #[schema(example = "DEBIT")]
    card_transaction_type: &'static str,
    currency: &'static str,
    /// The raw merchant descriptor.
    description: String,
    livemode: bool,
    /// GMT, `YYYY-MM-DD HH:MM:SS`.
    transaction_date: String,
    transaction_timestamp: i64,
    merchant_category_code: Option<String>,
    /// is_recurring, merchant_city, merchant_code, merchant_logo,
    /// merchant_name, merchant_website, transaction_category, transaction_group.
    #[schema(value_type = std::collections::HashMap<String, serde_json::Value>)]
    enriched_data: serde_json::Value,
}

impl From<CardTransaction> for TransactionView {
    fn from(t: CardTransaction) -> Self {
        TransactionView {
            amount: t.amount.to_string(),
            issuer_transaction_reference: t.id,
            client_transaction_reference: t.client_reference,
            card_id: t.card_id.to_string(),
            cardholder_id: t.cardholder_id.to_string(),
            issuing_app_id: t.account_id.to_string(),
            // A capture is the spend, as a debit is.
            card_transaction_type: match t.kind {
                TransactionKind::Authorization => "AUTHORIZATION",
                TransactionKind::Increment => "INCREMENT",
                TransactionKind::Debit | TransactionKind::Capture => "DEBIT",
            },
            currency: t.currency.code(),
            description: t.description,
            livemode: t.mode.is_live(),
            transaction_date: t.created_at.gmt(),
            transaction_timestamp: t.created_at.unix(),
            merchant_category_code: t.merchant_category_code,
            enriched_data: serde_json::from_str(&t.enriched_data).unwrap_or(serde_json::Value::Null),
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TransactionsQuery {
    card_id: String,
    /// From 1 (the default); newest first.
    page: Option<String>,
    /// Transactions a page, from 1 to 100; 20 (the contract's page) when
    /// absent.
    limit: Option<String>,
    /// GMT `YYYY-MM-DD HH:MM:SS`; with end_date.
    start_date: Option<String>,
    /// GMT `YYYY-MM-DD HH:MM:SS`; with start_date.
    end_date: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct TransactionList {
    transactions: Vec<TransactionView>,
    meta: Meta,
}

#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_card_transactions",
    tag = "cards",
    security(("token" = [])),
    params(TransactionsQuery),
    responses(
        (status = 200, description = "A page of the card's debits", body = Envelope<TransactionList>),
        (status = 400, description = "No such card, a bad page, or a bad or lone start_date/end_date", body = ErrorBody),
    )
)]
pub async fn get_card_transactions(
    keyed: Keyed,
    Query(query): Query<TransactionsQuery>,
) -> Result<HttpResponse, ApiError> {
    transactions(keyed, query, Currency::Usd).await
}

/// A Naira card's debits, as `get_card_transactions` lists a USD card's.
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_naira_card_transactions",
    tag = "naira cards",
    security(("token" = [])),
    params(TransactionsQuery),
    responses(
        (status = 200, description = "A page of the card's debits", body = Envelope<TransactionList>),
        (status = 400, description = "No such Naira card, a bad page, or a bad or lone start_date/end_date", body = ErrorBody),
    )
)]
pub async fn get_naira_card_transactions(
    keyed: Keyed,
    Query(query): Query<TransactionsQuery>,
) -> Result<HttpResponse, ApiError> {
    transactions(keyed, query, Currency::Ngn).await
}

async fn transactions(
    Keyed(app, caller): Keyed,
    query: TransactionsQuery,
    currency: Currency,
) -> Result<HttpResponse, ApiError> {
    let page = Page::parse(query.page.as_deref(), query.limit.as_deref())?;
    let (transactions, paging) = app
        .get_card_transactions(
            &caller.0,
            currency,
            &CardId::new(query.card_id),
            page,
            query.start_date.as_deref(),
            query.end_date.as_deref(),
        )
        .await?;
    Ok(success(
        StatusCode::OK,
        "Card transactions were fetched successfully",
        TransactionList {
            transactions: transactions.into_iter().map(TransactionView::from).collect(),
            meta: paging.into(),
        },
    ))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AccountTransactionsQuery {
    /// Only this card's.
    card_id: Option<String>,
    /// Only this cardholder's cards'.
    cardholder_id: Option<String>,
    /// `approved` or `declined` (debits and captures), or a hold's
    /// `pending`, `closed`, `reversed` or `expired`.
    status: Option<String>,
    /// `debit`, `authorization`, `increment` or `capture`.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    kind: Option<String>,
    /// GMT `YYYY-MM-DD HH:MM:SS`, included; with end_date.
    start_date: Option<String>,
    /// GMT `YYYY-MM-DD HH:MM:SS`, included; with start_date.
    end_date: Option<String>,
    /// Transactions a page, from 1 to 100; 20 when absent.
    limit: Option<String>,
    /// The `issuer_transaction_reference` of the last transaction of the
    /// page before: the page holds those older than it.
    starting_after: Option<String>,
}

/// A transaction of the account's list: a card's, with its kind and
/// status.
#[derive(Serialize, ToSchema)]
pub struct AccountTransactionView {
    #[serde(flatten)]
    transaction: TransactionView,
    /// `debit`, `authorization` (a hold), `increment` (a hold's raise) or
    /// `capture`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// `approved` or `declined` (debits and captures), or a hold's
    /// `pending`, `closed` (captured), `reversed` or `expired` (declined
    /// holds are `declined`).
    status: &'static str,
    /// Why it was declined (docs/api.md's error codes); null when approved.
    decline_code: Option<String>,
    /// The authorization the steps take
    /// (`/authorizations/{authorization_id}/...`): an authorization's own
    /// `issuer_transaction_reference`, an increment's or a capture's
    /// authorization's; null for a debit.
    authorization_id: Option<String>,
}

impl From<CardTransaction> for AccountTransactionView {
    fn from(mut t: CardTransaction) -> Self {
        let authorization_id = match t.kind {
            TransactionKind::Authorization => Some(t.id.clone()),
            _ => t.authorization_id.take(),
        };
        AccountTransactionView {
            kind: t.kind.as_str(),
            status: t.status.as_str(),
            decline_code: t.decline_code.take(),
            authorization_id,
            transaction: t.into(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct AccountTransactions {
    transactions: Vec<AccountTransactionView>,
    /// Whether older transactions follow: ask again with `starting_after`
    /// the last one's `issuer_transaction_reference`.
    has_more: bool,
}

/// Extension: the account's card transactions of the key's mode (every
/// card's debits, approved and declined), newest first, paged by cursor:
/// transactions that arrive between two pages never repeat or hide the
/// older ones.
#[utoipa::path(
    get,
    path = "/v1/issuing/transactions",
    operation_id = "list_transactions",
    tag = "cards",
    security(("token" = [])),
    params(AccountTransactionsQuery),
    responses(
        (status = 200, description = "A page of the account's transactions", body = Envelope<AccountTransactions>),
        (status = 400, description = "A bad limit, status or time range, or a `starting_after` of no transaction of the account and mode", body = ErrorBody),
    )
)]
pub async fn list_transactions(
    Keyed(app, caller): Keyed,
    Query(query): Query<AccountTransactionsQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = app::cards::TransactionsQuery {
        card_id: query.card_id,
        cardholder_id: query.cardholder_id,
        status: query.status,
        kind: query.kind,
        start_date: query.start_date,
        end_date: query.end_date,
        limit: query.limit,
        starting_after: query.starting_after,
    };
    let (transactions, has_more) = app.list_transactions(&caller.0, query).await?;
    let transactions = transactions.into_iter().map(AccountTransactionView::from).collect();
    let list = AccountTransactions { transactions, has_more };
    Ok(success(StatusCode::OK, "Transactions were fetched successfully", list))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TransactionQuery {
    card_id: String,
    /// One of the two references.
    client_transaction_reference: Option<String>,
    issuer_transaction_reference: Option<String>,
}

#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_card_transaction_by_id",
    tag = "cards",
    security(("token" = [])),
    params(TransactionQuery),
    responses(
        (status = 200, description = "The transaction", body = Envelope<TransactionView>),
        (status = 400, description = "No such card or transaction, or no reference", body = ErrorBody),
    )
)]
pub async fn get_card_transaction_by_id(
    Keyed(app, caller): Keyed,
    Query(query): Query<TransactionQuery>,
) -> Result<HttpResponse, ApiError> {
    let reference = match (query.client_transaction_reference, query.issuer_transaction_reference) {
        (Some(r), None) => Reference::Client(r),
        (None, Some(r)) => Reference::Issuer(r),
        _ => {
            return Err(InvalidInput::new(
                "client_transaction_reference",
                "give exactly one of client_transaction_reference and issuer_transaction_reference",
            )
            .into());
        }
    };
    let transaction = app
        .get_card_transaction_by_id(&caller.0, &CardId::new(query.card_id), reference)
        .await?;
    Ok(success(
        StatusCode::OK,
        "The card transaction was fetched successfully",
        TransactionView::from(transaction),
    ))
}

//! USD card endpoints on the base address: issue, read (sealed details,
//! balance, lists, details tokens), manage (freeze, PINs, delete).

use super::answers::{BadPage, ListedTooSoon, NoSuchCard, NoSuchCardholder, ReadTooSoon};
use super::card_view::CardView;
use super::cardholders::meta_text;
use crate::amount_text::AmountText;
use crate::envelope::{Empty, Envelope, Meta, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{CardFields, Json, Keyed, Query, path_id};
use crate::paging::PageQuery;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use app::cards::{ActivationRequest, CardRequest, MigrationRequest};
use domain::Currency;
use domain::ids::{CardId, CardholderId};
use ports::cards::PinKind;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, ToSchema)]
pub struct CreateCardBody {
    #[schema(required = true, nullable = false)]
    cardholder_id: Option<String>,
    /// virtual or physical
    #[schema(example = "virtual")]
    #[schema(required = true, nullable = false)]
    card_type: Option<String>,
    #[schema(example = "Mastercard")]
    #[schema(required = true, nullable = false)]
    card_brand: Option<String>,
    #[schema(example = "USD")]
    #[schema(required = true, nullable = false)]
    card_currency: Option<String>,
    /// '500000' (5,000 USD a month) or '1000000' (10,000 USD a month).
    #[schema(example = "500000")]
    card_limit: Option<String>,
    transaction_reference: Option<String>,
    /// Cents; at least '300' (5,000 limit) or '400' (10,000 limit), held
    /// for the monthly maintenance fee.
    #[schema(example = "1000")]
    funding_amount: Option<AmountText>,
    /// A 4-digit PIN, AES Everywhere encrypted with your secret key; empty:
    /// digits 7 to 10 of the card number.
    pin: Option<String>,
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    meta_data: Option<serde_json::Value>,
    /// A Naira card's NIN (11 digits; optional, stored sealed).
    nin: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct NewCardData {
    card_id: String,
    #[schema(example = "USD")]
    currency: &'static str,
}

fn created(status: StatusCode, message: &'static str, (id, currency): (CardId, Currency)) -> HttpResponse {
    success(
        status,
        message,
        NewCardData {
            card_id: id.to_string(),
            currency: currency.code(),
        },
    )
}

/// Issue a USD card funded from the USD issuing wallet, or (with
/// `card_currency: "NGN"`) a virtual Naira card with nothing on it, no
/// maintenance fee and 1,500 USD of spending a month (`card_limit` and
/// `funding_amount` are not read); `card_creation_event.successful`
/// follows by webhook.
#[utoipa::path(
    post,
    path = "/v1/issuing/cards/create_card",
    tag = "cards",
    security(("token" = [])),
    request_body = CreateCardBody,
    responses(
        (status = 200, description = "The card was created", body = Envelope<NewCardData>),
        (status = 400, description = "A field breaks a rule, no such cardholder, or the card type is unavailable", body = ErrorBody),
        (status = 401, description = "Bad key, cardholder deactivated or unverified, or the wallet is too low", body = ErrorBody),
    )
)]
pub async fn create_card(
    Keyed(app, caller): Keyed,
    Json(body): Json<CreateCardBody>,
) -> Result<HttpResponse, ApiError> {
    let request = CardRequest {
        cardholder_id: body.cardholder_id,
        card_type: body.card_type,
        card_brand: body.card_brand,
        card_currency: body.card_currency,
        card_limit: body.card_limit,
        funding_amount: AmountText::into_text(body.funding_amount),
        pin: body.pin,
        transaction_reference: body.transaction_reference,
        meta_data: meta_text(body.meta_data),
        nin: body.nin,
    };
    let id = app.create_card(&caller.0, request).await?;
    Ok(created(StatusCode::OK, "The card was created successfully", id))
}

#[derive(Deserialize, ToSchema)]
pub struct ActivateBody {
    #[schema(required = true, nullable = false)]
    cardholder_id: Option<String>,
    #[schema(example = "physical")]
    #[schema(required = true, nullable = false)]
    card_type: Option<String>,
    #[schema(example = "Mastercard")]
    #[schema(required = true, nullable = false)]
    card_brand: Option<String>,
    #[schema(example = "USD")]
    #[schema(required = true, nullable = false)]
    card_currency: Option<String>,
    /// The 13-digit number on the card envelope.
    #[schema(example = "1234567890123")]
    #[schema(required = true, nullable = false)]
    card_token_number: Option<String>,
    /// A 4-digit PIN, AES Everywhere encrypted with your secret key, as on
    /// `create_card`; empty or absent: digits 7 to 10 of the card number,
    /// which anyone who sees the number knows. Send one.
    pin: Option<String>,
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    meta_data: Option<serde_json::Value>,
}

/// Activate a physical card from its envelope. It is funded with the
/// 3 USD maintenance-fee hold of the 5,000 USD limit and gets the `pin`
/// sent (or the default PIN); `card_creation_event.successful` follows by
/// webhook.
#[utoipa::path(
    post,
    path = "/v1/issuing/cards/activate_physical_card",
    tag = "cards",
    security(("token" = [])),
    request_body = ActivateBody,
    responses(
        (status = 200, description = "Activation is processing", body = Envelope<NewCardData>),
        (status = 400, description = "A field breaks a rule, no such cardholder, the card type is unavailable, or the card was activated already", body = ErrorBody),
        (status = 401, description = "Bad key, cardholder deactivated or unverified, or the wallet is too low", body = ErrorBody),
    )
)]
pub async fn activate_physical_card(
    Keyed(app, caller): Keyed,
    Json(body): Json<ActivateBody>,
) -> Result<HttpResponse, ApiError> {
    let request = ActivationRequest {
        cardholder_id: body.cardholder_id,
        card_type: body.card_type,
        card_brand: body.card_brand,
        card_currency: body.card_currency,
        card_token_number: body.card_token_number,
        pin: body.pin,
        meta_data: meta_text(body.meta_data),
    };
    let id = app.activate_physical_card(&caller.0, request).await?;
    Ok(created(
        StatusCode::OK,
        "The physical card activation is processing; a webhook will follow",
        (id, Currency::Usd),
    ))
}

#[derive(Deserialize, ToSchema)]
pub struct MigrateBody {
    #[schema(required = true, nullable = false)]
    cardholder_id: Option<String>,
    #[schema(required = true, nullable = false)]
    card_id: Option<String>,
    #[schema(required = true, nullable = false)]
    card_type: Option<String>,
    #[schema(example = "Mastercard")]
    #[schema(required = true, nullable = false)]
    target_card_brand: Option<String>,
    #[schema(example = "USD")]
    #[schema(required = true, nullable = false)]
    target_card_currency: Option<String>,
    #[schema(example = "500000")]
    #[schema(required = true, nullable = false)]
    card_limit: Option<String>,
    pin: Option<String>,
}

/// Deprecated (answers carry a `Deprecation` header): replace a card by a
/// new one; the balance moves across, the old card is deleted and
/// `card_creation_event.successful` (with `migrated_from`) follows.
#[utoipa::path(
    post,
    path = "/v1/issuing/cards/migrate_card",
    tag = "cards",
    security(("token" = [])),
    request_body = MigrateBody,
    responses(
        (status = 201, description = "Migration is processing", body = Envelope<Empty>),
        (status = 400, description = "A field breaks a rule, no such cardholder or card, or the target is unavailable", body = ErrorBody),
        (status = 401, description = "Bad key, or the cardholder is deactivated or unverified", body = ErrorBody),
    )
)]
#[deprecated]
pub async fn migrate_card(Keyed(app, caller): Keyed, Json(body): Json<MigrateBody>) -> Result<HttpResponse, ApiError> {
    let request = MigrationRequest {
        cardholder_id: body.cardholder_id,
        card_id: body.card_id,
        card_type: body.card_type,
        target_card_brand: body.target_card_brand,
        target_card_currency: body.target_card_currency,
        card_limit: body.card_limit,
        pin: body.pin,
    };
    app.migrate_card(&caller.0, request).await?;
    Ok(success(
        StatusCode::CREATED,
        "The card migration is processing; a webhook will follow",
        Empty {},
    ))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CardQuery {
    pub(super) card_id: String,
}

/// One card. The number, CVV and expiry are sealed strings on the base
/// address and in clear on the relay address (or by a details token).
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_card_details",
    tag = "cards",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "The card", body = Envelope<CardView>),
        NoSuchCard,
        ReadTooSoon,
    )
)]
pub async fn get_card_details(
    Keyed(app, caller): Keyed,
    CardFields(view): CardFields,
    Query(query): Query<CardQuery>,
) -> Result<HttpResponse, ApiError> {
    let card = app
        .get_card_details(&caller.0, &CardId::new(query.card_id), view)
        .await?;
    Ok(success(
        StatusCode::OK,
        "Card details were fetched successfully",
        CardView::single(card),
    ))
}

#[derive(Serialize, ToSchema)]
pub struct CardBalanceView {
    card_id: String,
    /// All money on the card, the held maintenance fee included (cents).
    balance: String,
    /// Same as balance.
    settled_book_balance: String,
    /// What can be spent or unloaded: balance minus the held fee.
    settled_available_balance: String,
}

#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_card_balance",
    tag = "cards",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "The balance", body = Envelope<CardBalanceView>),
        NoSuchCard,
        ReadTooSoon,
    )
)]
pub async fn get_card_balance(
    Keyed(app, caller): Keyed,
    Query(query): Query<CardQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = CardId::new(query.card_id);
    let balance = app.get_card_balance(&caller.0, &id).await?;
    Ok(success(
        StatusCode::OK,
        "Card balance was fetched successfully",
        CardBalanceView {
            card_id: id.to_string(),
            balance: balance.balance.to_string(),
            settled_book_balance: balance.balance.to_string(),
            settled_available_balance: balance.available.to_string(),
        },
    ))
}

#[derive(Serialize, ToSchema)]
pub struct CardIdData {
    card_id: String,
}

impl CardIdData {
    pub fn new(id: &CardId) -> Self {
        CardIdData {
            card_id: id.to_string(),
        }
    }
}

/// Freezes or unfreezes the card of `query`; `only` one of that currency
/// (the Naira paths).
pub(super) async fn set_active(
    Keyed(app, caller): Keyed,
    query: CardQuery,
    (active, only): (bool, Option<Currency>),
    message: &'static str,
) -> Result<HttpResponse, ApiError> {
    let id = CardId::new(query.card_id);
    app.set_card_active(&caller.0, &id, active, only).await?;
    Ok(success(StatusCode::OK, message, CardIdData::new(&id)))
}

/// Freeze a card: `is_active` is false at once.
#[utoipa::path(
    patch,
    path = "/v1/issuing/cards/freeze_card",
    tag = "cards",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "Frozen", body = Envelope<CardIdData>),
        NoSuchCard,
    )
)]
pub async fn freeze_card(keyed: Keyed, Query(query): Query<CardQuery>) -> Result<HttpResponse, ApiError> {
    set_active(keyed, query, (false, None), "This card has been frozen successfully").await
}

/// Unfreeze a card: `is_active` is true at once.
#[utoipa::path(
    patch,
    path = "/v1/issuing/cards/unfreeze_card",
    tag = "cards",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "Unfrozen", body = Envelope<CardIdData>),
        NoSuchCard,
    )
)]
pub async fn unfreeze_card(keyed: Keyed, Query(query): Query<CardQuery>) -> Result<HttpResponse, ApiError> {
    set_active(keyed, query, (true, None), "This card has been unfrozen successfully").await
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CardholderCardsQuery {
    cardholder_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct CardholderCards {
    cards: Vec<CardView>,
    total: usize,
}

#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_all_cardholder_cards",
    tag = "cards",
    security(("token" = [])),
    params(CardholderCardsQuery),
    responses(
        (status = 200, description = "The cardholder's cards, newest first", body = Envelope<CardholderCards>),
        NoSuchCardholder,
        ListedTooSoon,
    )
)]
pub async fn get_all_cardholder_cards(
    Keyed(app, caller): Keyed,
    CardFields(view): CardFields,
    Query(query): Query<CardholderCardsQuery>,
) -> Result<HttpResponse, ApiError> {
    let cards = app
        .get_all_cardholder_cards(&caller.0, &CardholderId::new(query.cardholder_id), view)
        .await?;
    let data = CardholderCards {
        total: cards.len(),
        cards: cards.into_iter().map(CardView::listed).collect(),
    };
    Ok(success(StatusCode::OK, "Cards were fetched successfully", data))
}

#[derive(Serialize, ToSchema)]
pub struct CardList {
    cards: Vec<CardView>,
    meta: Meta,
}

/// The account's cards in the key's mode.
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_all_cards",
    tag = "cards",
    security(("token" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of cards", body = Envelope<CardList>),
        BadPage,
        ListedTooSoon,
    )
)]
pub async fn get_all_cards(
    Keyed(app, caller): Keyed,
    CardFields(view): CardFields,
    Query(query): Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page()?;
    let (cards, paging) = app.get_all_cards(&caller.0, page, view).await?;
    let data = CardList {
        cards: cards.into_iter().map(CardView::listed).collect(),
        meta: paging.into(),
    };
    Ok(success(StatusCode::OK, "Cards were fetched successfully", data))
}

/// Delete a card. Its remaining balance (the held fee included) goes back
/// to the USD issuing wallet.
#[utoipa::path(
    delete,
    path = "/v1/issuing/cards/delete_card/{card_id}",
    tag = "cards",
    security(("token" = [])),
    params(("card_id" = String, Path, description = "The card's id")),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Empty>),
        NoSuchCard,
    )
)]
pub async fn delete_card(Keyed(app, caller): Keyed, card_id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    app.delete_card(&caller.0, &CardId::new(path_id("card_id", card_id.into_inner())?))
        .await?;
    Ok(success(StatusCode::OK, "The card was deleted successfully", Empty {}))
}

#[derive(Deserialize, ToSchema)]
pub struct PinBody {
    card_id: String,
    /// A 4-digit PIN, AES Everywhere encrypted with your secret key.
    card_pin: String,
}

async fn set_pin(Keyed(app, caller): Keyed, body: PinBody, kind: PinKind) -> Result<HttpResponse, ApiError> {
    app.set_card_pin(&caller.0, &CardId::new(body.card_id), kind, &body.card_pin)
        .await?;
    Ok(success(
        StatusCode::CREATED,
        "The card PIN was updated successfully",
        Empty {},
    ))
}

#[utoipa::path(
    post,
    path = "/v1/issuing/cards/update_card_pin",
    tag = "cards",
    security(("token" = [])),
    request_body = PinBody,
    responses(
        (status = 201, description = "Updated", body = Envelope<Empty>),
        (status = 400, description = "No such card, or card_pin is not an encrypted 4-digit PIN", body = ErrorBody),
    )
)]
pub async fn update_card_pin(keyed: Keyed, Json(body): Json<PinBody>) -> Result<HttpResponse, ApiError> {
    set_pin(keyed, body, PinKind::Card).await
}

/// Set the 3-D Secure PIN (the same body as update_card_pin).
#[utoipa::path(
    post,
    path = "/v1/issuing/cards/set_3d_secure_pin",
    tag = "cards",
    security(("token" = [])),
    request_body = PinBody,
    responses(
        (status = 201, description = "Set; pin_3ds_activated is true", body = Envelope<Empty>),
        (status = 400, description = "No such card, or card_pin is not an encrypted 4-digit PIN", body = ErrorBody),
    )
)]
pub async fn set_3d_secure_pin(keyed: Keyed, Json(body): Json<PinBody>) -> Result<HttpResponse, ApiError> {
    set_pin(keyed, body, PinKind::ThreeDSecure).await
}

#[derive(Serialize, ToSchema)]
pub struct TokenData {
    /// Single use, valid 5 minutes: redeem it on the relay address at
    /// `get_card_details_from_token`.
    token: String,
}

#[utoipa::path(
    get,
    path = "/v1/issuing/cards/generate_token_for_card_details",
    tag = "cards",
    security(("token" = [])),
    params(CardQuery),
    responses(
        (status = 200, description = "A card-details token", body = Envelope<TokenData>),
        NoSuchCard,
        (status = 420, description = "A token was made for this card less than 3 seconds ago", body = ErrorBody),
    )
)]
pub async fn generate_token_for_card_details(
    Keyed(app, caller): Keyed,
    Query(query): Query<CardQuery>,
) -> Result<HttpResponse, ApiError> {
    let token = app
        .generate_token_for_card_details(&caller.0, &CardId::new(query.card_id))
        .await?;
    Ok(success(
        StatusCode::OK,
        "The token was generated successfully",
        TokenData {
            token: token.expose().clone(),
        },
    ))
}

use super::answers::{BadPage, NoSuchCardholder};
use crate::envelope::{Empty, Envelope, Meta, success};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Keyed, Query, path_id};
use crate::paging::PageQuery;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use app::cardholders::CardholderUpdate;
use domain::InvalidInput;
use domain::cardholders::CardholderStatus;
use domain::cardholders::identity::IdentityInput;
use domain::cardholders::registration::{AddressInput, RegistrationInput};
use domain::ids::CardholderId;
use ports::cardholders::CardholderRecord;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

#[derive(Deserialize, Serialize, ToSchema, Default)]
pub struct AddressBody {
    #[schema(example = "Admiralty Way")]
    #[schema(required = true, nullable = false)]
    address: Option<String>,
    #[schema(example = "Lekki")]
    #[schema(required = true, nullable = false)]
    city: Option<String>,
    /// A state or region name or code (see get_all_states).
    #[schema(example = "Lagos")]
    #[schema(required = true, nullable = false)]
    state: Option<String>,
    /// Nigeria, Ghana, Uganda or Kenya (name or ISO code).
    #[schema(example = "Nigeria")]
    #[schema(required = true, nullable = false)]
    country: Option<String>,
    /// Nigeria: 6 digits; Kenya: 5 digits; Ghana: a GhanaPost GPS address; Uganda: none.
    #[schema(example = "106104")]
    postal_code: Option<String>,
    #[schema(example = "12B")]
    #[schema(required = true, nullable = false)]
    house_no: Option<String>,
    /// Optional; checked against get_all_lga where the state's LGAs are known.
    #[schema(example = "Eti Osa")]
    lga: Option<String>,
}

impl From<AddressBody> for AddressInput {
    fn from(a: AddressBody) -> Self {
        AddressInput {
            address: a.address,
            city: a.city,
            state: a.state,
            country: a.country,
            postal_code: a.postal_code,
            house_no: a.house_no,
            lga: a.lga,
        }
    }
}

/// The identity object; which fields are required depends on the country
/// and `id_type` (see the API guide).
#[derive(Deserialize, ToSchema, Default)]
pub struct IdentityBody {
    #[schema(example = "NIGERIAN_BVN_VERIFICATION")]
    #[schema(required = true, nullable = false)]
    id_type: Option<String>,
    /// 11 digits.
    #[schema(example = "22212345678")]
    bvn: Option<String>,
    id_no: Option<String>,
    id_image: Option<String>,
    #[schema(example = "https://example.com/selfie.jpg")]
    selfie_image: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    middle_name: Option<String>,
    /// yyyy-mm-dd
    date_of_birth: Option<String>,
    /// male or female
    gender: Option<String>,
}

impl From<IdentityBody> for IdentityInput {
    fn from(i: IdentityBody) -> Self {
        IdentityInput {
            id_type: i.id_type,
            bvn: i.bvn,
            id_no: i.id_no,
            id_image: i.id_image,
            selfie_image: i.selfie_image,
            first_name: i.first_name,
            last_name: i.last_name,
            middle_name: i.middle_name,
            date_of_birth: i.date_of_birth,
            gender: i.gender,
        }
    }
}

#[derive(Deserialize, ToSchema)]
pub struct RegisterBody {
    #[schema(example = "Adaeze")]
    #[schema(required = true, nullable = false)]
    first_name: Option<String>,
    #[schema(example = "Okafor")]
    #[schema(required = true, nullable = false)]
    last_name: Option<String>,
    #[schema(required = true, nullable = false)]
    address: Option<AddressBody>,
    /// E.164, of the address's country.
    #[schema(example = "+2348031234567")]
    #[schema(required = true, nullable = false)]
    phone: Option<String>,
    #[schema(example = "adaeze@example.com")]
    email_address: Option<String>,
    #[schema(required = true, nullable = false)]
    identity: Option<IdentityBody>,
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    meta_data: Option<serde_json::Value>,
}

pub(crate) fn meta_text(meta: Option<serde_json::Value>) -> Option<String> {
    meta.filter(|m| !m.is_null()).map(|m| m.to_string())
}

#[derive(Serialize, ToSchema)]
pub struct CardholderIdData {
    cardholder_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct IdentityDetails {
    blacklisted: bool,
    date_of_birth: Option<String>,
    first_name: String,
    last_name: String,
    gender: Option<String>,
    id_no: Option<String>,
    id_type: &'static str,
    phone: String,
}

#[derive(Serialize, ToSchema)]
pub struct CardholderView {
    cardholder_id: String,
    first_name: String,
    last_name: String,
    address: AddressBody,
    email_address: Option<String>,
    phone: String,
    identity_details: IdentityDetails,
    /// True once verified: the cardholder can be issued cards.
    is_active: bool,
    is_id_verified: bool,
    /// `pending`, `manual_review`, `verified` or `failed`.
    verification_status: &'static str,
    /// Why verification failed, when it did.
    error_description: Option<String>,
    created_at: i64,
    issuing_app_id: String,
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    meta_data: Option<serde_json::Value>,
}

impl From<CardholderRecord> for CardholderView {
    fn from(r: CardholderRecord) -> Self {
        let reg = r.registration;
        let identity = reg.identity;
        let a = reg.address;
        CardholderView {
            cardholder_id: r.id.to_string(),
            identity_details: IdentityDetails {
                blacklisted: r.blacklisted,
                date_of_birth: identity.date_of_birth.map(|d| d.format("%Y-%m-%d").to_string()),
                first_name: identity.first_name.unwrap_or_else(|| reg.first_name.clone()),
                last_name: identity.last_name.unwrap_or_else(|| reg.last_name.clone()),
                gender: identity.gender,
                id_no: identity.id_no.or(identity.bvn),
                id_type: identity.id_type.as_str(),
                phone: reg.phone.clone(),
            },
            first_name: reg.first_name,
            last_name: reg.last_name,
            address: AddressBody {
                address: Some(a.address),
                city: Some(a.city),
                state: Some(a.state),
                country: Some(a.country.name().to_string()),
                postal_code: Some(a.postal_code),
                house_no: Some(a.house_no),
                lga: a.lga,
            },
            email_address: reg.email_address,
            phone: reg.phone,
            is_active: r.status.is_active(),
            is_id_verified: r.status.is_active(),
            verification_status: r.status.as_str(),
            error_description: r.error_description,
            created_at: r.created_at.unix(),
            issuing_app_id: r.account_id.to_string(),
            meta_data: r.meta_data.and_then(|m| serde_json::from_str(&m).ok()),
        }
    }
}

async fn register(Keyed(app, caller): Keyed, body: RegisterBody, synchronous: bool) -> Result<HttpResponse, ApiError> {
    let input = RegistrationInput {
        first_name: body.first_name,
        last_name: body.last_name,
        address: body.address.map(AddressInput::from),
        phone: body.phone,
        email_address: body.email_address,
        identity: body.identity.map(IdentityInput::from),
    };
    let (id, status) = app
        .register_cardholder(&caller.0, &input, meta_text(body.meta_data), synchronous)
        .await?;
    let message = match status {
        CardholderStatus::Verified => "The cardholder was registered and verified",
        CardholderStatus::ManualReview => {
            "The cardholder was registered and is in manual review; a webhook will follow"
        }
        CardholderStatus::Pending | CardholderStatus::Failed => {
            "The cardholder was registered; the verification result will follow by webhook"
        }
    };
    Ok(success(
        StatusCode::CREATED,
        message,
        CardholderIdData {
            cardholder_id: id.to_string(),
        },
    ))
}

/// Register and verify a cardholder now; the answer carries the outcome.
#[utoipa::path(
    post,
    path = "/v1/issuing/cardholder/register_cardholder_synchronously",
    tag = "cardholders",
    security(("token" = [])),
    request_body = RegisterBody,
    responses(
        (status = 201, description = "Registered (verified, or in manual review)", body = Envelope<CardholderIdData>),
        (status = 400, description = "A field breaks a rule, the BVN or phone is taken, or verification refused", body = ErrorBody),
        (status = 403, description = "The account's company address or utility bill is missing", body = ErrorBody),
        (status = 420, description = "The same identity was registered less than a minute ago", body = ErrorBody),
        (status = 451, description = "The individual is blacklisted", body = ErrorBody),
    )
)]
pub async fn register_cardholder_synchronously(
    keyed: Keyed,
    Json(body): Json<RegisterBody>,
) -> Result<HttpResponse, ApiError> {
    register(keyed, body, true).await
}

/// Register a cardholder; the verification result follows by webhook
/// (`cardholder_verification.successful`, `.manual_review` or `.failed`).
#[utoipa::path(
    post,
    path = "/v1/issuing/cardholder/register_cardholder",
    tag = "cardholders",
    security(("token" = [])),
    request_body = RegisterBody,
    responses(
        (status = 201, description = "Registered; verification follows", body = Envelope<CardholderIdData>),
        (status = 400, description = "A field breaks a rule, or the BVN or phone is taken", body = ErrorBody),
        (status = 403, description = "The account's company address or utility bill is missing", body = ErrorBody),
        (status = 420, description = "The same identity was registered less than a minute ago", body = ErrorBody),
    )
)]
pub async fn register_cardholder(keyed: Keyed, Json(body): Json<RegisterBody>) -> Result<HttpResponse, ApiError> {
    register(keyed, body, false).await
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CardholderQuery {
    cardholder_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct CardholderEnvelope {
    #[schema(example = "success")]
    status: &'static str,
    message: &'static str,
    data: CardholderView,
    /// The client's object, beside `data`.
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    meta_data: Option<serde_json::Value>,
}

/// One cardholder; `meta_data` stands beside `data`.
#[utoipa::path(
    get,
    path = "/v1/issuing/cardholder/get_cardholder",
    tag = "cardholders",
    security(("token" = [])),
    params(CardholderQuery),
    responses(
        (status = 200, description = "The cardholder", body = CardholderEnvelope),
        NoSuchCardholder,
    )
)]
pub async fn get_cardholder(
    Keyed(app, caller): Keyed,
    Query(query): Query<CardholderQuery>,
) -> Result<HttpResponse, ApiError> {
    let record = app
        .get_cardholder(&caller.0, &CardholderId::new(query.cardholder_id))
        .await?;
    let data = CardholderView::from(record);
    let meta_data = data.meta_data.clone();
    Ok(HttpResponse::Ok().json(CardholderEnvelope {
        status: "success",
        message: "Cardholder was fetched successfully",
        data,
        meta_data,
    }))
}

/// Integrations name the cardholder in the body or in the query: either
/// is taken, the same id in both too.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UpdateQuery {
    /// The cardholder, when the body does not name it.
    cardholder_id: Option<String>,
}

#[derive(Deserialize, ToSchema)]
pub struct UpdateBody {
    /// Required here or in the query.
    cardholder_id: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    address: Option<AddressBody>,
    phone: Option<String>,
    #[schema(example = "adaeze@example.com")]
    email_address: Option<String>,
    identity: Option<IdentityBody>,
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    meta_data: Option<serde_json::Value>,
}

/// Change a cardholder's details (checked by the registration rules; not
/// verified again).
#[utoipa::path(
    patch,
    path = "/v1/issuing/cardholder/update_cardholder",
    tag = "cardholders",
    security(("token" = [])),
    params(UpdateQuery),
    request_body = UpdateBody,
    responses(
        (status = 200, description = "The updated cardholder", body = Envelope<CardholderView>),
        (status = 400, description = "No such cardholder, or a field breaks a rule", body = ErrorBody),
    )
)]
pub async fn update_cardholder(
    Keyed(app, caller): Keyed,
    Query(query): Query<UpdateQuery>,
    Json(body): Json<UpdateBody>,
) -> Result<HttpResponse, ApiError> {
    let id = match (query.cardholder_id, body.cardholder_id) {
        (Some(q), Some(b)) if q != b => {
            let rule = "is given in the query and in the body with different values";
            return Err(InvalidInput::new("cardholder_id", rule).into());
        }
        (_, Some(id)) | (Some(id), None) => id,
        (None, None) => {
            return Err(InvalidInput::new("cardholder_id", "is required (in the body or the query)").into());
        }
    };
    let update = CardholderUpdate {
        first_name: body.first_name,
        last_name: body.last_name,
        address: body.address.map(AddressInput::from),
        phone: body.phone,
        email_address: body.email_address,
        identity: body.identity.map(IdentityInput::from),
        meta_data: meta_text(body.meta_data),
    };
    let record = app.update_cardholder(&caller.0, &CardholderId::new(id), update).await?;
    Ok(success(
        StatusCode::OK,
        "Cardholder was updated successfully",
        CardholderView::from(record),
    ))
}

/// Delete a cardholder; it is gone for every endpoint afterwards.
#[utoipa::path(
    delete,
    path = "/v1/issuing/cardholder/delete_cardholder/{cardholder_id}",
    tag = "cardholders",
    security(("token" = [])),
    params(("cardholder_id" = String, Path, description = "The cardholder's id")),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Empty>),
        NoSuchCardholder,
    )
)]
pub async fn delete_cardholder(
    Keyed(app, caller): Keyed,
    cardholder_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    app.delete_cardholder(
        &caller.0,
        &CardholderId::new(path_id("cardholder_id", cardholder_id.into_inner())?),
    )
    .await?;
    Ok(success(StatusCode::OK, "Cardholder was deleted successfully", Empty {}))
}

#[derive(Serialize, ToSchema)]
pub struct CardholderList {
    cardholders: Vec<CardholderView>,
    meta: Meta,
}

/// The account's cardholders in the key's mode.
#[utoipa::path(
    get,
    path = "/v1/issuing/cards/get_all_cardholder",
    tag = "cardholders",
    security(("token" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of cardholders", body = Envelope<CardholderList>),
        BadPage,
    )
)]
pub async fn get_all_cardholder(
    Keyed(app, caller): Keyed,
    Query(query): Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page()?;
    let (records, paging) = app.list_cardholders(&caller.0, page).await?;
    let data = CardholderList {
        cardholders: records.into_iter().map(CardholderView::from).collect(),
        meta: paging.into(),
    };
    Ok(success(StatusCode::OK, "Cardholders were fetched successfully", data))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CountryQuery {
    /// Nigeria, Ghana, Uganda or Kenya (name or ISO code).
    country: String,
}

#[derive(Serialize, ToSchema)]
pub struct StateView {
    name: String,
    code: String,
}

#[derive(Serialize, ToSchema)]
pub struct StateList {
    states: Vec<StateView>,
}

/// The states or regions of a country (201, as the contract states).
#[utoipa::path(
    get,
    path = "/v1/issuing/cardholder/get_all_states",
    tag = "cardholders",
    security(("token" = [])),
    params(CountryQuery),
    responses(
        (status = 201, description = "The states", body = Envelope<StateList>),
        (status = 400, description = "Not a supported country", body = ErrorBody),
    )
)]
pub async fn get_all_states(Keyed(app, _): Keyed, Query(query): Query<CountryQuery>) -> Result<HttpResponse, ApiError> {
    let states = app
        .get_all_states(&query.country)?
        .iter()
        .map(|s| StateView {
            name: s.name.clone(),
            code: s.code.clone(),
        })
        .collect();
    Ok(success(
        StatusCode::CREATED,
        "States were fetched successfully",
        StateList { states },
    ))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StateQuery {
    /// A state or region name or code (`Lagos`, `LA`; `Abuja`, `FCT`).
    state: String,
    /// Nigeria, Ghana, Uganda or Kenya: needed where two countries share
    /// a region's name (Ghana's and Uganda's `Central`); without it, a
    /// name Nigeria has is Nigeria's.
    country: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct LgaView {
    name: String,
    /// Per-LGA postal codes are not in the shipped data: always null.
    postal_code: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct LgaList {
    lgas: Vec<LgaView>,
}

/// The LGAs or districts of a state (empty where the data has none).
#[utoipa::path(
    get,
    path = "/v1/issuing/cardholder/get_all_lga",
    tag = "cardholders",
    security(("token" = [])),
    params(StateQuery),
    responses(
        (status = 200, description = "The LGAs", body = Envelope<LgaList>),
        (status = 400, description = "Not a known state, or one several countries have (give country)", body = ErrorBody),
    )
)]
pub async fn get_all_lga(Keyed(app, _): Keyed, Query(query): Query<StateQuery>) -> Result<HttpResponse, ApiError> {
    let lgas = app
        .get_all_lga(&query.state, query.country.as_deref())?
        .iter()
        .map(|l| LgaView {
            name: l.clone(),
            postal_code: None,
        })
        .collect();
    Ok(success(
        StatusCode::OK,
        "LGAs were fetched successfully",
        LgaList { lgas },
    ))
}

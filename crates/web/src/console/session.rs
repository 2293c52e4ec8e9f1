//! Who is asking: the session a cookie names ([`Signed`]), and a form
//! posted with its session's CSRF token ([`Posted`]).

use super::problem::Problem;
use actix_web::cookie::{Cookie, SameSite};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use app::App;
use app::console::Actor;
use domain::ids::AccountId;
use domain::{Mode, Secret};
use futures::future::LocalBoxFuture;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use subtle::ConstantTimeEq;

/// The session cookie's name.
pub const COOKIE: &str = "issuing_console";

/// The most a console form may hold.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

/// A signed-in user: who, from where, their session's CSRF token, and
/// the session's own token (the cookie's).
pub struct Signed {
    pub actor: Actor,
    pub csrf: String,
    pub token: Secret<String>,
}

impl Signed {
    /// The account an account user works on; the operator has none here.
    pub fn account(&self) -> Result<AccountId, Problem> {
        self.actor.user.seat.account().cloned().ok_or(Problem::Forbidden)
    }

    /// The account, when this user may change its things.
    pub fn acting(&self) -> Result<AccountId, Problem> {
        let account = self.account()?;
        self.actor.user.seat.may_act_on(&account)?;
        Ok(account)
    }

    /// The operator's screens.
    pub fn operator(&self) -> Result<(), Problem> {
        Ok(self.actor.user.seat.is_operator()?)
    }

    /// The operator's changes: with their second factor set up.
    pub fn operator_acting(&self) -> Result<(), Problem> {
        let user = &self.actor.user;
        Ok(user.seat.operator_acts(user.second_factor)?)
    }
}

/// Where a request came from, as the audit log keeps it: the peer's
/// address (a proxy's header could name anyone).
pub fn origin(req: &HttpRequest) -> String {
    req.peer_addr().map(|a| a.ip().to_string()).unwrap_or_default()
}

impl FromRequest for Signed {
    type Error = Problem;
    type Future = LocalBoxFuture<'static, Result<Self, Problem>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let app = req.app_data::<web::Data<App>>().cloned();
        let token = req.cookie(COOKIE).map(|c| c.value().to_string());
        let from = origin(req);
        let (Some(app), Some(token)) = (app, token) else {
            return Box::pin(async { Err(Problem::SignIn) });
        };
        // A task of its own, as the API's key lookup: actix drops the other
        // extractors' futures when one fails (a bad query), and a storage
        // query must not be cancelled half-way.
        let lookup = actix_web::rt::spawn(async move {
            let user = app.console_session(&token).await?;
            Ok::<_, ports::StoreError>(user.map(|user| (user, app.csrf_token(&token), token)))
        });
        Box::pin(async move {
            match lookup.await.map_err(|_| Problem::Unavailable)?? {
                Some((user, csrf, token)) => Ok(Signed {
                    csrf,
                    actor: Actor { user, from },
                    token: Secret::new(token),
                }),
                None => Err(Problem::SignIn),
            }
        })
    }
}

/// A form posted by a signed-in user, with the CSRF token of their
/// session (`csrf`): without it, or with another session's, nothing is
/// read and nothing changes.
pub struct Posted<T> {
    pub signed: Signed,
    pub form: T,
}

#[derive(Deserialize)]
struct Csrf {
    csrf: Option<String>,
}

impl<T: DeserializeOwned + 'static> FromRequest for Posted<T> {
    type Error = Problem;
    type Future = LocalBoxFuture<'static, Result<Self, Problem>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let signed = Signed::from_request(req, payload);
        let body = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            let signed = signed.await?;
            let body = body.await.map_err(|_| Problem::BadForm)?;
            let Csrf { csrf } = serde_urlencoded::from_bytes(&body).map_err(|_| Problem::BadForm)?;
            let sent = csrf.unwrap_or_default();
            if !bool::from(sent.as_bytes().ct_eq(signed.csrf.as_bytes())) {
                return Err(Problem::Csrf);
            }
            let form = serde_urlencoded::from_bytes(&body).map_err(|_| Problem::BadForm)?;
            Ok(Posted { signed, form })
        })
    }
}

/// The `{id}` of a path: an id with a control character (a NUL, which
/// PostgreSQL's text refuses) names nothing, and is answered so (404).
pub struct Id(pub String);

impl FromRequest for Id {
    type Error = Problem;
    type Future = std::future::Ready<Result<Self, Problem>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let id = req.match_info().get("id").unwrap_or_default();
        std::future::ready(match id.is_empty() || id.chars().any(char::is_control) {
            true => Err(Problem::NotFound),
            false => Ok(Id(id.to_string())),
        })
    }
}

/// A request of a sign-in form (no session yet) must come from a page of
/// this console: a browser names the page's origin, which must be ours.
pub fn same_origin(req: &HttpRequest) -> Result<(), Problem> {
    let Some(origin) = req.headers().get("origin") else {
        return Ok(());
    };
    let info = req.connection_info();
    let ours = format!("{}://{}", info.scheme(), info.host());
    let ours = origin.to_str().is_ok_and(|o| o.eq_ignore_ascii_case(&ours));
    if ours { Ok(()) } else { Err(Problem::Csrf) }
}

/// The session cookie: HttpOnly, SameSite=Strict, Secure over https.
pub fn cookie(req: &HttpRequest, value: &str) -> Cookie<'static> {
    Cookie::build(COOKIE, value.to_string())
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(req.connection_info().scheme() == "https")
        .finish()
}

/// The mode a page shows: `?mode=live`, or the sandbox.
#[derive(Deserialize)]
pub struct ModeQuery {
    mode: Option<String>,
}

impl ModeQuery {
    pub fn mode(&self) -> Result<Mode, Problem> {
        parse_mode(self.mode.as_deref())
    }
}

pub fn parse_mode(value: Option<&str>) -> Result<Mode, Problem> {
    match value {
        None | Some("test") => Ok(Mode::Test),
        Some("live") => Ok(Mode::Live),
        Some(_) => Err(domain::InvalidInput::new("mode", "must be test or live").into()),
    }
}

//! Extractors that turn a request into typed input or a clear 400/401/413:
//! the JSON body, the query string, and the authenticated caller.

use crate::error::ApiError;
use crate::{MAX_BODY_BYTES, Surface};
use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use app::Caller;
use app::cards::DetailsView;
use domain::{InvalidInput, Mode};
use futures::StreamExt;
use futures::future::LocalBoxFuture;
use serde::de::DeserializeOwned;

/// A JSON body of at most [`MAX_BODY_BYTES`], parsed with the failing
/// field's path in the error.
pub struct Json<T>(pub T);

/// A query string, parsed with the failing field named in the error.
pub struct Query<T>(pub T);

/// The caller, authenticated by the `token: Bearer <key>` header for the
/// mode of the path.
pub struct Authenticated(pub Caller);

/// Which mode a scope of paths serves; set as app data on the scope.
#[derive(Debug, Clone, Copy)]
pub struct PathMode(pub Mode);

/// How this listener shows card details: sealed on the base address, in
/// clear on the relay (from the app's [`Surface`]; sealed when unset).
pub struct CardFields(pub DetailsView);

impl FromRequest for CardFields {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let surface = req.app_data::<Surface>().copied().unwrap_or(Surface::Base);
        std::future::ready(Ok(CardFields(surface.details_view())))
    }
}

/// Rewrites a serde message into `field: rule`. serde names a missing
/// field only inside its message, and serde_json appends a position.
pub(crate) fn describe(path: &str, message: &str) -> InvalidInput {
    let path = if path == "?" { "" } else { path };
    let message = message.split(" at line ").next().unwrap_or(message);
    if let Some(missing) = message
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        let field = if path.is_empty() || path == "." {
            missing.to_string()
        } else {
            format!("{path}.{missing}")
        };
        return InvalidInput::new(field, "is required");
    }
    let field = if path.is_empty() || path == "." { "body" } else { path };
    InvalidInput::new(field, message)
}

/// The same for a query string: a parameter given twice is named, and
/// an error of no parameter in particular is the query's.
fn describe_query(path: &str, message: &str) -> InvalidInput {
    if let Some(name) = message
        .strip_prefix("duplicate field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        return InvalidInput::new(name, "must be given once");
    }
    let described = describe(path, message);
    match described.field.as_str() {
        "body" => InvalidInput::new("query", described.rule),
        _ => described,
    }
}

pub(crate) fn payload_too_large(max: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("body: must be at most {max} bytes"),
    )
}

/// The raw body, at most `MAX` bytes ([`MAX_BODY_BYTES`] unless a
/// provider's route says more; 413 `payload_too_large` past it, as every
/// body).
pub struct Body<const MAX: usize = MAX_BODY_BYTES>(pub web::Bytes);

impl<const MAX: usize> FromRequest for Body<MAX> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let declared = req
            .headers()
            .get(actix_web::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        let mut payload = payload.take();
        Box::pin(async move {
            if declared.is_some_and(|len| len > MAX) {
                return Err(payload_too_large(MAX));
            }
            let mut body = web::BytesMut::new();
            while let Some(chunk) = payload.next().await {
                let chunk = chunk.map_err(|_| ApiError::from(InvalidInput::new("body", "could not be read")))?;
                if body.len() + chunk.len() > MAX {
                    return Err(payload_too_large(MAX));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Body(body.freeze()))
        })
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = <Body>::from_request(req, payload);
        Box::pin(async move { parse_json(&body.await?.0).map(Json) })
    }
}

/// A JSON body that may be left out: an empty body (or `null`) is
/// `T::default()`; any other is parsed as [`Json`] parses it.
pub struct JsonOrEmpty<T>(pub T);

impl<T: DeserializeOwned + Default + 'static> FromRequest for JsonOrEmpty<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = <Body>::from_request(req, payload);
        Box::pin(async move {
            let body = body.await?.0;
            match body.trim_ascii() {
                b"" | b"null" => Ok(JsonOrEmpty(T::default())),
                _ => parse_json(&body).map(JsonOrEmpty),
            }
        })
    }
}

const NUL_RULE: &str = "must not contain NUL characters";

/// The path of the first string (or key) of `value` holding a NUL
/// character, as serde_path_to_error writes paths (`a.b[2]`).
fn nul_in(value: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match value {
        Value::String(text) => text.contains('\0').then(|| path.to_string()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(n, v)| nul_in(v, &format!("{path}[{n}]"))),
        Value::Object(fields) => fields.iter().find_map(|(key, v)| match key.contains('\0') {
            true => Some(join("key")),
            false => nul_in(v, &join(key)),
        }),
        _ => None,
    }
}

/// Whether the raw JSON `body` writes a NUL character: the escape
/// `\u0000`, its backslash not itself escaped (`\\u0000` is a backslash
/// and text). JSON allows no raw NUL byte, which the parse refuses.
fn escapes_nul(body: &[u8]) -> bool {
    body.windows(6)
        .enumerate()
        .any(|(at, w)| w == b"\\u0000" && body[..=at].iter().rev().take_while(|b| **b == b'\\').count() % 2 == 1)
}

/// A whole JSON body as `T`: one object and nothing after it but
/// whitespace, with the failing field's path in the error (serde would
/// also fill a struct from an array: every body is an object). No string
/// may hold a NUL character (the same refusal on both databases, which
/// otherwise differ on it).
pub(crate) fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(InvalidInput::new("body", "must be a JSON object").into());
    }
    // On the raw bytes, before any parse can stop short of the NUL (a
    // body nested past serde_json's depth limit would skip a walk of the
    // parsed value). The walk only names the field, when it can.
    if escapes_nul(body) {
        let path = serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|value| nul_in(&value, ""))
            .filter(|path| !path.is_empty());
        return Err(InvalidInput::new(path.unwrap_or_else(|| "body".into()), NUL_RULE).into());
    }
    let not_json = |e: &serde_json::Error| {
        let reason = e.to_string();
        let reason = reason.split(" at line ").next().unwrap_or_default().to_string();
        ApiError::from(InvalidInput::new("body", format!("is not valid JSON ({reason})")))
    };
    let mut json = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let inner = e.inner();
        if inner.is_syntax() || inner.is_eof() {
            return not_json(inner);
        }
        describe(&e.path().to_string(), &inner.to_string()).into()
    })?;
    json.end().map_err(|e| not_json(&e))?;
    Ok(value)
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let query = req.query_string();
        if query.contains("%00") {
            let pairs = serde_urlencoded::from_str::<Vec<(String, String)>>(query).unwrap_or_default();
            if let Some((name, _)) = pairs.iter().find(|(k, v)| k.contains('\0') || v.contains('\0')) {
                let name = if name.contains('\0') { "query" } else { name };
                return std::future::ready(Err(InvalidInput::new(name, NUL_RULE).into()));
            }
        }
        let pairs = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        let parsed = serde_path_to_error::deserialize(pairs)
            .map(Query)
            .map_err(|e| describe_query(&e.path().to_string(), &e.inner().to_string()).into());
        std::future::ready(parsed)
    }
}

/// An id in the path, as `field`: refused if it holds a NUL character.
pub(crate) fn path_id(field: &'static str, id: String) -> Result<String, ApiError> {
    match id.contains('\0') {
        true => Err(InvalidInput::new(field, NUL_RULE).into()),
        false => Ok(id),
    }
}

impl FromRequest for PathMode {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(Ok(*req
            .app_data::<PathMode>()
            .expect("every mode-dependent route sits in a mode scope")))
    }
}

/// The key's header as the key lookup takes it: `token`, or
/// `Authorization` as Stripe's and Lithic's clients send it, the same
/// `Bearer <key>` either way.
pub(crate) fn token_header(headers: &actix_web::http::header::HeaderMap) -> Option<String> {
    let mut tokens = headers
        .get_all("token")
        .chain(headers.get_all(actix_web::http::header::AUTHORIZATION));
    match (tokens.next(), tokens.next()) {
        (None, _) => None,
        (Some(token), None) => Some(token.to_str().unwrap_or_default().to_string()),
        // Two credentials (two headers, or both names): which one is
        // meant is not ours to guess (malformed).
        (Some(_), Some(_)) => Some(String::new()),
    }
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let found = req.extensions().get::<app::Caller>().cloned();
        if let Some(caller) = found {
            // Authenticated already, by the Idempotency-Key middleware.
            return Box::pin(async move { Ok(Authenticated::of(caller)) });
        }
        let app = req
            .app_data::<web::Data<app::App>>()
            .cloned()
            .expect("the app is wired");
        let PathMode(mode) = *req
            .app_data::<PathMode>()
            .expect("every keyed route sits in a mode scope");
        let header = token_header(req.headers());
        // The lookup runs as a task of its own: actix drops the other
        // extractors' futures as soon as one fails (a bad body), and a
        // storage query must not be cancelled half-way.
        let lookup = actix_web::rt::spawn(async move { app.authenticate(header.as_deref(), mode).await });
        Box::pin(async move {
            let caller = lookup.await.map_err(|_| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "authentication did not finish",
                )
            })??;
            Ok(Authenticated::of(caller))
        })
    }
}

/// What every keyed handler takes: the app, and the caller authenticated
/// for the path's mode.
pub struct Keyed(pub web::Data<app::App>, pub Authenticated);

impl FromRequest for Keyed {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let app = req
            .app_data::<web::Data<app::App>>()
            .cloned()
            .expect("the app is wired");
        let caller = Authenticated::from_request(req, payload);
        Box::pin(async move { Ok(Keyed(app, caller.await?)) })
    }
}

impl Authenticated {
    /// The caller, named in the request's span.
    fn of(caller: app::Caller) -> Self {
        tracing::Span::current().record("account_id", tracing::field::display(&caller.account_id));
        Authenticated(caller)
    }
}

#[cfg(test)]
mod tests {
    use super::{describe, describe_query, parse_json};
    use crate::amount_text::AmountText;
    use actix_web::ResponseError;
    use proptest::prelude::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Body {
        amount: Option<AmountText>,
        card_id: Option<String>,
        nested: Option<Vec<std::collections::HashMap<String, String>>>,
    }

    /// Whatever arrives as a body is parsed, or refused with a 400 whose
    /// message names a field; an amount that parses is in range.
    fn judged(body: &[u8]) -> Result<(), TestCaseError> {
        match parse_json::<Body>(body) {
            Ok(parsed) => {
                if let Some(amount) = parsed.amount
                    && let Ok(amount) = domain::Amount::parse("amount", &amount.0)
                {
                    prop_assert!(amount.minor() <= domain::Amount::MAX.minor());
                }
            }
            Err(e) => {
                prop_assert_eq!(e.status_code().as_u16(), 400);
                prop_assert!(e.to_string().contains(':'), "{}", e);
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_are_refused_cleanly(body in proptest::collection::vec(any::<u8>(), 0..2_000)) {
            judged(&body)?;
        }

        #[test]
        fn json_shaped_bodies_are_judged(
            amount in r#"("[0-9 .eE+\-]{0,40}"|[0-9.eE+\-]{0,40}|null|true|\[\]|\{\})"#,
            id in r#""(\\u0000|[^"\\]){0,20}""#,
            tail in r#"( |\}|xyz|,|"|\\){0,3}"#,
        ) {
            judged(format!(r#"{{"amount": {amount}, "card_id": {id}}}{tail}"#).as_bytes())?;
        }
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Reference {
        transaction_reference: String,
    }

    #[test]
    fn a_nul_is_refused_however_deep_an_extra_field_nests() {
        let message = |body: &str| {
            parse_json::<Reference>(body.as_bytes())
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            message(r#"{"transaction_reference": "a\u0000b"}"#),
            "400 invalid_request: transaction_reference: must not contain NUL characters"
        );
        // Past serde_json's depth of 128 no walk of the parsed value sees it.
        let deep = format!(
            r#"{{"transaction_reference": "a\u0000b", "extra": {}0{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(
            message(&deep),
            "400 invalid_request: body: must not contain NUL characters"
        );
        // An escaped backslash and the text `u0000` hold no NUL.
        let text = parse_json::<Reference>(br#"{"transaction_reference": "a\\u0000"}"#).unwrap();
        assert_eq!(text.transaction_reference, "a\\u0000");
        assert!(parse_json::<Reference>(br#"{"transaction_reference": "a\\\u0000"}"#).is_err());
    }

    #[test]
    fn query_messages_name_the_parameter() {
        assert_eq!(
            describe_query("", "duplicate field `page`").to_string(),
            "page: must be given once"
        );
        assert_eq!(
            describe_query("", "missing field `state`").to_string(),
            "state: is required"
        );
        assert_eq!(
            describe_query("", "something else").to_string(),
            "query: something else"
        );
    }

    #[test]
    fn messages_name_the_field() {
        assert_eq!(
            describe(".", "missing field `amount` at line 1 column 2").to_string(),
            "amount: is required"
        );
        assert_eq!(
            describe("address", "missing field `city`").to_string(),
            "address.city: is required"
        );
        assert_eq!(
            describe(
                "amount",
                "invalid type: integer `5`, expected a string at line 1 column 12"
            )
            .to_string(),
            "amount: invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            describe(".", "expected value at line 1 column 1").to_string(),
            "body: expected value"
        );
    }
}

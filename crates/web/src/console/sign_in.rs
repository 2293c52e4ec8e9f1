//! Signing in and out, and setting a password through a one-time link.

use super::problem::Problem;
use super::session::{self, Signed, same_origin};
use super::view::{respond, see_other};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::App;
use app::console::{Actor, SetPasswordError, SignInError};
use domain::Secret;
use maud::{Markup, html};
use serde::Deserialize;

fn sign_in_page(status: StatusCode, error: Option<&str>) -> HttpResponse {
    let body = html! {
        h1 { "Sign in" }
        (alert(error))
        form.card method="post" action="/login" {
            label for="email" { "Email" }
            input id="email" name="email" type="email" autocomplete="username" required autofocus;
            label for="password" { "Password" }
            input id="password" name="password" type="password" autocomplete="current-password" required;
            label for="code" { "Authenticator code (with two-step sign-in)" }
            input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6";
            button type="submit" { "Sign in" }
        }
    };
    respond(status, "Sign in", None, body)
}

fn alert(error: Option<&str>) -> Markup {
    html! { @if let Some(error) = error { p.error role="alert" { (error) } } }
}

pub async fn form() -> HttpResponse {
    sign_in_page(StatusCode::OK, None)
}

#[derive(Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    code: String,
}

pub async fn sign_in(
    app: web::Data<App>,
    req: HttpRequest,
    form: web::Form<SignInForm>,
) -> Result<HttpResponse, Problem> {
    same_origin(&req)?;
    let SignInForm { email, password, code } = form.into_inner();
    match app.sign_in(&email, Secret::new(password), &code).await {
        Ok(signed_in) => {
            let actor = Actor {
                user: signed_in.user,
                from: session::origin(&req),
            };
            app.audit(&actor, None, "signed in", String::new()).await?;
            let home = if actor.user.seat.account().is_some() {
                "/"
            } else {
                "/operator"
            };
            let mut response = see_other(home);
            response
                .add_cookie(&session::cookie(&req, signed_in.token.expose()))
                .map_err(|_| Problem::Unavailable)?;
            Ok(response)
        }
        Err(SignInError::Store(e)) => Err(e.into()),
        Err(e @ SignInError::Locked(_)) => Ok(sign_in_page(StatusCode::TOO_MANY_REQUESTS, Some(&e.to_string()))),
        Err(e @ SignInError::Wrong) => Ok(sign_in_page(StatusCode::UNAUTHORIZED, Some(&e.to_string()))),
    }
}

pub async fn sign_out(
    app: web::Data<App>,
    req: HttpRequest,
    posted: session::Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, Problem> {
    let signed: Signed = posted.signed;
    app.sign_out(signed.token.expose()).await?;
    app.audit(&signed.actor, None, "signed out", String::new()).await?;
    signed_out(&req)
}

/// To the sign-in page, with the session cookie removed.
pub fn signed_out(req: &HttpRequest) -> Result<HttpResponse, Problem> {
    let mut response = see_other("/login");
    let mut gone = session::cookie(req, "");
    gone.make_removal();
    response.add_removal_cookie(&gone).map_err(|_| Problem::Unavailable)?;
    Ok(response)
}

#[derive(Deserialize)]
pub struct LinkQuery {
    #[serde(default)]
    token: String,
}

fn password_page(status: StatusCode, token: &str, error: Option<&str>) -> HttpResponse {
    let body = html! {
        h1 { "Set your password" }
        p.muted { "12 to 128 characters. A passphrase of a few words is easiest to type." }
        (alert(error))
        form.card method="post" action="/set-password" {
            input type="hidden" name="token" value=(token);
            label for="password" { "New password" }
            input id="password" name="password" type="password" autocomplete="new-password" minlength="12" maxlength="128" required autofocus;
            button type="submit" { "Set password" }
        }
    };
    respond(status, "Set your password", None, body)
}

pub async fn password_form(query: web::Query<LinkQuery>) -> HttpResponse {
    password_page(StatusCode::OK, &query.token, None)
}

#[derive(Deserialize)]
pub struct PasswordForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    password: String,
}

pub async fn set_password(
    app: web::Data<App>,
    req: HttpRequest,
    form: web::Form<PasswordForm>,
) -> Result<HttpResponse, Problem> {
    same_origin(&req)?;
    let PasswordForm { token, password } = form.into_inner();
    match app.set_password(&token, Secret::new(password)).await {
        Ok(user) => {
            let actor = Actor {
                user,
                from: session::origin(&req),
            };
            app.audit(&actor, None, "set their password", String::new()).await?;
            Ok(see_other("/login"))
        }
        Err(SetPasswordError::Store(e)) => Err(e.into()),
        Err(e @ SetPasswordError::Invalid(_)) => {
            Ok(password_page(StatusCode::BAD_REQUEST, &token, Some(&e.to_string())))
        }
        Err(e @ SetPasswordError::Link) => Ok(password_page(StatusCode::GONE, "", Some(&e.to_string()))),
    }
}

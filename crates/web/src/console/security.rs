//! A user's two-step sign-in: a TOTP secret to add to an authenticator
//! app, kept once a code from the app proves it.

use super::problem::Problem;
use super::session::{Posted, Signed};
use super::view::{csrf, page};
use actix_web::{HttpRequest, HttpResponse, web};
use app::App;
use domain::Mode;
use maud::html;
use serde::Deserialize;

pub async fn show(app: web::Data<App>, signed: Signed) -> Result<HttpResponse, Problem> {
    let user = &signed.actor.user;
    let body = if user.second_factor {
        html! {
            h1 { "Security" }
            p.passed role="status" data-second-factor="on" { "Two-step sign-in is on: each sign-in asks for your authenticator's code." }
        }
    } else {
        let new = app.new_second_factor(user);
        html! {
            h1 { "Security" }
            p { "Two-step sign-in is off. " @if user.seat.account().is_none() { "The operator needs it to change anything." } }
            form.card method="post" action="/security" {
                h2 { "Set up two-step sign-in" }
                p { "Add this key to your authenticator app (or open the link on the phone that has it), then type the code it shows." }
                p.secret { code data-totp-key { (new.base32.expose()) } }
                p { a href=(new.uri.expose()) { "Open in an authenticator app" } }
                (csrf(&signed))
                input type="hidden" name="secret" value=(new.secret.expose());
                label for="totp-code" { "Code" }
                input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required;
                button type="submit" { "Turn on" }
            }
        }
    };
    Ok(page(&signed, Mode::Test, "Security", body))
}

#[derive(Deserialize)]
pub struct SetUpForm {
    #[serde(default)]
    secret: String,
    #[serde(default)]
    code: String,
}

/// Sets it up, and signs out: every session of the user ends, and the
/// next sign-in asks for the code.
pub async fn set_up(app: web::Data<App>, req: HttpRequest, posted: Posted<SetUpForm>) -> Result<HttpResponse, Problem> {
    let user = &posted.signed.actor.user;
    app.set_up_second_factor(user, &posted.form.secret, &posted.form.code)
        .await?;
    app.audit(&posted.signed.actor, None, "set up two-step sign-in", String::new())
        .await?;
    super::sign_in::signed_out(&req)
}

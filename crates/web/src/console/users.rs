//! An account's team (its users, and invitations by its admins), and the
//! audit log.

use super::ConsoleSettings;
use super::problem::Problem;
use super::session::{Posted, Signed};
use super::view::{csrf, page, when};
use actix_web::{HttpResponse, web};
use app::App;
use app::console::Invited;
use domain::Mode;
use domain::console::{Role, Seat};
use domain::ids::AccountId;
use maud::{Markup, html};
use serde::Deserialize;

pub fn role(seat: &Seat) -> &'static str {
    match seat {
        Seat::Operator => Role::Operator.as_str(),
        Seat::Account { role, .. } => role.as_str(),
    }
}

pub async fn list(app: web::Data<App>, signed: Signed) -> Result<HttpResponse, Problem> {
    let account = signed.account()?;
    let users = app.console_users(&signed.actor.user, Some(&account)).await?;
    let body = html! {
        h1 { "Team" }
        table tabindex="0" {
            thead { tr { th { "Email" } th { "Role" } } }
            tbody { @for u in &users { tr { td { (u.email) } td { (role(&u.seat)) } } } }
        }
        @if signed.acting().is_ok() {
            form.card method="post" action="/users/invite" {
                h2 { "Invite a team member" }
                (csrf(&signed))
                label for="invite-email" { "Email" }
                input id="invite-email" name="email" type="email" required;
                label for="invite-role" { "Role" }
                select id="invite-role" name="role" { option value="viewer" { "Viewer (reads only)" } option value="admin" { "Admin" } }
                button type="submit" { "Invite" }
            }
        }
    };
    Ok(page(&signed, Mode::Test, "Team", body))
}

/// The one-time link of an invitation, shown once to whoever invited.
pub fn invitation(settings: &ConsoleSettings, email: &str, invited: &Invited) -> Markup {
    let link = format!(
        "{}/set-password?token={}",
        settings.public_url,
        invited.link_token.expose()
    );
    html! {
        section.card aria-labelledby="invited" {
            h2 id="invited" { "Invitation for " (email) }
            p { "Send this link to them. It sets their password once, until " (when(invited.expires_at)) ", and is not shown again." }
            p.secret { code data-link { (link) } }
        }
    }
}

#[derive(Deserialize)]
pub struct InviteForm {
    /// The operator's: which account (an account's admin invites to theirs).
    account: Option<String>,
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
}

pub async fn invite(
    app: web::Data<App>,
    settings: web::Data<ConsoleSettings>,
    posted: Posted<InviteForm>,
) -> Result<HttpResponse, Problem> {
    let (signed, form) = (&posted.signed, &posted.form);
    let (account, back) = match (signed.actor.user.seat.account(), &form.account) {
        (Some(own), _) => (own.clone(), "/users".to_string()),
        (None, Some(named)) => {
            let named = AccountId::new(named.as_str());
            app.console_account(&signed.actor.user, &named).await?;
            let back = format!("/operator/accounts/{}", named.as_str());
            (named, back)
        }
        (None, None) => return Err(domain::InvalidInput::new("account", "is required").into()),
    };
    let role = Role::parse("role", &form.role)?;
    let invited = app.invite(&signed.actor.user, &account, &form.email, role).await?;
    let detail = format!("{} as {}", form.email.trim().to_lowercase(), role.as_str());
    app.audit(&signed.actor, Some(&account), "invited a user", detail)
        .await?;
    let body = html! {
        h1 { "Invited" }
        (invitation(&settings, &form.email, &invited))
        p { a href=(back) { "Back" } }
    };
    Ok(page(signed, Mode::Test, "Invited", body))
}

pub async fn audit(app: web::Data<App>, signed: Signed) -> Result<HttpResponse, Problem> {
    let entries = app.audit_log(&signed.actor.user).await?;
    let body = html! {
        h1 { "Audit log" }
        table tabindex="0" {
            thead { tr { th { "When" } th { "Who" } th { "Account" } th { "What" } th { "Detail" } th { "From" } } }
            tbody {
                @for e in &entries {
                    tr {
                        td { (when(e.at)) }
                        td { (e.email) }
                        td { (e.account.as_ref().map_or("—", AccountId::as_str)) }
                        td { (e.action) }
                        td { (e.detail) }
                        td { (e.from) }
                    }
                }
            }
        }
    };
    Ok(page(&signed, Mode::Test, "Audit log", body))
}

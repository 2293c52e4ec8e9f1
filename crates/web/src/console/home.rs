//! An account's home: its API keys (ids only; a new key is shown once,
//! when rolled), webhooks, and both modes' issuing wallets, with the
//! sandbox's funding.

use super::problem::Problem;
use super::session::{ModeQuery, Posted, Signed, parse_mode};
use super::view::{csrf, mode_name, mode_query, money, money_fields, page, see_other, wallets, when};
use actix_web::{HttpResponse, web};
use app::{App, Caller};
use domain::{Amount, Currency, Mode};
use maud::{Markup, html};
use serde::Deserialize;

pub async fn show(app: web::Data<App>, signed: Signed, query: web::Query<ModeQuery>) -> Result<HttpResponse, Problem> {
    if signed.actor.user.seat.account().is_none() {
        return Ok(see_other("/operator"));
    }
    let mode = query.mode()?;
    let account = signed.account()?;
    let row = app.console_account(&signed.actor.user, &account).await?;
    let keys = app.list_keys(&account).await?;
    let balances = app
        .get_issuing_wallet_balance(&Caller::console(account.clone(), mode))
        .await?;
    let admin = signed.acting().is_ok();
    let webhook_url = match mode {
        Mode::Test => row.webhook_url_test,
        Mode::Live => row.webhook_url_live,
    };
    let body = html! {
        h1 { (row.name) }
        p.muted { "Account " code { (account.as_str()) } }
        section aria-labelledby="wallets" {
            h2 id="wallets" { "Issuing wallets (" (mode_name(mode)) ")" }
            (wallets(&balances))
            @if admin && mode == Mode::Test {
                form.card method="post" action="/wallet/fund" {
                    h3 { "Fund the sandbox wallet" }
                    (csrf(&signed))
                    (money_fields("fund"))
                    button type="submit" { "Fund" }
                }
            }
            @if mode == Mode::Live {
                p.muted { "Live wallets are credited by the operator when your transfer arrives." }
            }
        }
        section aria-labelledby="keys" {
            h2 id="keys" { "API keys" }
            p.muted { "Keys are shown once, when made. Each is kept only as a hash and sealed under the master key." }
            (key_table(&keys))
            @if admin { (roll_form(&signed, "/keys/roll", "Roll the key", "roll-key")) }
        }
        section aria-labelledby="webhooks" {
            h2 id="webhooks" { "Webhooks (" (mode_name(mode)) ")" }
            p { "Endpoint: " @match &webhook_url { Some(url) => code { (url) }, None => em { "none set" } } }
            @if admin { (roll_form(&signed, "/webhook/roll", "Roll the signing secret", "roll-secret")) }
        }
    };
    Ok(page(&signed, mode, "Home", body))
}

fn key_table(keys: &[ports::accounts::KeySummary]) -> Markup {
    html! {
        table tabindex="0" {
            thead { tr { th { "Key" } th { "Mode" } th { "Made" } th { "Stops working" } } }
            tbody {
                @for key in keys {
                    tr {
                        td { code { "…" (key.id) } }
                        td { (mode_name(key.mode)) }
                        td { (when(key.created_at)) }
                        td { @match key.expires_at { Some(at) => (when(at)), None => "—" } }
                    }
                }
            }
        }
    }
}

fn roll_form(signed: &Signed, action: &str, label: &str, id: &str) -> Markup {
    html! {
        form.card method="post" action=(action) {
            (csrf(signed))
            label for={(id) "-mode"} { "Mode" }
            select id={(id) "-mode"} name="mode" { option value="test" { "Sandbox" } option value="live" { "Live" } }
            label for={(id) "-overlap"} { "The old one keeps working for (hours, 0 to 168)" }
            input id={(id) "-overlap"} name="expire_old_in_hours" inputmode="numeric" value="24" required;
            button type="submit" { (label) }
        }
    }
}

#[derive(Deserialize)]
pub struct RollForm {
    mode: Option<String>,
    #[serde(default)]
    expire_old_in_hours: String,
}

impl RollForm {
    fn read(&self) -> Result<(Mode, i64), Problem> {
        let hours = self
            .expire_old_in_hours
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|h| (0..=168).contains(h))
            .ok_or_else(|| domain::InvalidInput::new("expire_old_in_hours", "must be a whole number from 0 to 168"))?;
        Ok((parse_mode(self.mode.as_deref())?, hours * 3600))
    }
}

/// The secret, once: this response is the only place it is shown.
fn shown_once(signed: &Signed, mode: Mode, what: &str, secret: &str, old_until: domain::Timestamp) -> HttpResponse {
    let body = html! {
        h1 { "Your new " (what) }
        p.error role="alert" { "Copy it now: it is not shown again." }
        p.secret { code data-secret { (secret) } }
        p { "The previous one works until " (when(old_until)) "." }
        p { a href={"/" (mode_query(mode))} { "Back to home" } }
    };
    page(signed, mode, what, body)
}

pub async fn roll_key(app: web::Data<App>, posted: Posted<RollForm>) -> Result<HttpResponse, Problem> {
    let account = posted.signed.acting()?;
    let (mode, overlap) = posted.form.read()?;
    let rolled = app.roll_key(&account, mode, overlap).await?;
    let detail = format!(
        "{} key, old keys until {}",
        mode_name(mode),
        when(rolled.old_keys_expire_at)
    );
    app.audit(&posted.signed.actor, Some(&account), "rolled an API key", detail)
        .await?;
    let secret = rolled.secret_key.expose();
    Ok(shown_once(
        &posted.signed,
        mode,
        "secret key",
        secret,
        rolled.old_keys_expire_at,
    ))
}

pub async fn roll_webhook_secret(app: web::Data<App>, posted: Posted<RollForm>) -> Result<HttpResponse, Problem> {
    let account = posted.signed.acting()?;
    let (mode, overlap) = posted.form.read()?;
    let rolled = app.roll_webhook_secret(&account, mode, overlap).await?;
    let detail = format!("{} secret", mode_name(mode));
    app.audit(
        &posted.signed.actor,
        Some(&account),
        "rolled the webhook secret",
        detail,
    )
    .await?;
    let secret = rolled.webhook_secret.expose();
    Ok(shown_once(
        &posted.signed,
        mode,
        "webhook secret",
        secret,
        rolled.old_secret_expires_at,
    ))
}

#[derive(Deserialize)]
pub struct FundForm {
    #[serde(default)]
    currency: String,
    #[serde(default)]
    amount: String,
}

pub async fn fund(app: web::Data<App>, posted: Posted<FundForm>) -> Result<HttpResponse, Problem> {
    let account = posted.signed.acting()?;
    let currency = Currency::parse("currency", &posted.form.currency)?;
    let amount = Amount::parse_positive("amount", posted.form.amount.trim())?;
    let caller = Caller::console(account.clone(), Mode::Test);
    let balance = app.fund_issuing_wallet(&caller, currency, amount).await?;
    let detail = format!("{}, balance {}", money(currency, amount), money(currency, balance));
    app.audit(
        &posted.signed.actor,
        Some(&account),
        "funded the sandbox wallet",
        detail,
    )
    .await?;
    Ok(see_other("/?mode=test"))
}

//! An account's reward rules: read by its users, set by its admins (the
//! switch is the operator's, on the account's operator page).

use super::problem::Problem;
use super::session::{ModeQuery, Posted, Signed, parse_mode};
use super::view::{csrf, mode_name, mode_query, money, page, see_other};
use actix_web::{HttpResponse, web};
use app::rewards::RulesChange;
use app::{App, Caller};
use domain::{Currency, InvalidInput};
use maud::html;
use serde::Deserialize;

pub async fn show(app: web::Data<App>, signed: Signed, query: web::Query<ModeQuery>) -> Result<HttpResponse, Problem> {
    let mode = query.mode()?;
    let caller = Caller::console(signed.account()?, mode);
    let rules = app.reward_rules(&caller).await?;
    let body = html! {
        h1 { "Rewards (" (mode_name(mode)) ")" }
        p { "Rewards are " strong data-rewards { @if rules.enabled { "on" } @else { "off" } }
            @if !rules.enabled { ": the operator turns them on for your account." } }
        dl.figures {
            div { dt { "Monthly spending above" } dd { (money(Currency::Usd, rules.spend_threshold)) } }
            div { dt { "Approved debits in a month" } dd { (rules.monthly_debits) } }
            div { dt { "Days without a debit" } dd { (rules.inactivity_days) } }
        }
        @if signed.acting().is_ok() {
            form.card method="post" action="/rewards/rules" {
                h2 { "Change the rules" }
                (csrf(&signed))
                input type="hidden" name="mode" value=(mode_name(mode));
                label for="spend" { "Monthly spending above (USD cents)" }
                input id="spend" name="spend_threshold" inputmode="numeric" value=(rules.spend_threshold.minor()) required;
                label for="debits" { "Approved debits in a month" }
                input id="debits" name="monthly_debits" inputmode="numeric" value=(rules.monthly_debits) required;
                label for="days" { "Days without a debit" }
                input id="days" name="inactivity_days" inputmode="numeric" value=(rules.inactivity_days) required;
                button type="submit" { "Save the rules" }
            }
        }
    };
    Ok(page(&signed, mode, "Rewards", body))
}

#[derive(Deserialize)]
pub struct RulesForm {
    mode: Option<String>,
    #[serde(default)]
    spend_threshold: String,
    #[serde(default)]
    monthly_debits: String,
    #[serde(default)]
    inactivity_days: String,
}

fn count(field: &str, value: &str) -> Result<u32, InvalidInput> {
    value
        .trim()
        .parse()
        .map_err(|_| InvalidInput::new(field, "must be a whole number"))
}

pub async fn set_rules(app: web::Data<App>, posted: Posted<RulesForm>) -> Result<HttpResponse, Problem> {
    let account = posted.signed.acting()?;
    let form = &posted.form;
    let mode = parse_mode(form.mode.as_deref())?;
    let change = RulesChange {
        enabled: None,
        spend_threshold: Some(form.spend_threshold.trim().to_string()),
        monthly_debits: Some(count("monthly_debits", &form.monthly_debits)?),
        inactivity_days: Some(count("inactivity_days", &form.inactivity_days)?),
    };
    let rules = app
        .update_reward_rules(&Caller::console(account.clone(), mode), change)
        .await?;
    let detail = format!(
        "{}: above {} cents, {} debits, {} days",
        mode_name(mode),
        rules.spend_threshold.minor(),
        rules.monthly_debits,
        rules.inactivity_days
    );
    app.audit(&posted.signed.actor, Some(&account), "set the reward rules", detail)
        .await?;
    Ok(see_other(&format!("/rewards{}", mode_query(mode))))
}

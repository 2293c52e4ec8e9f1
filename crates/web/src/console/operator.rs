//! The operator's screens: accounts (made with their first admin), an
//! account's live wallet credit and reward switch, the KYC review queue,
//! parked jobs, and the ledger check on demand.

use super::ConsoleSettings;
use super::problem::Problem;
use super::session::{Id, Posted, Signed, parse_mode};
use super::users::{invitation, role};
use super::view::{csrf, mode_name, money, money_fields, page, post_button, see_other, wallets, when};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use app::accounts::AccountDetails;
use app::cardholders::ReviewError;
use app::console::{CaseImage, CaseImageError};
use app::rewards::RulesChange;
use app::wallets::CreditRequest;
use app::{App, Caller};
use domain::Mode;
use domain::ids::{AccountId, CardholderId, JobId};
use maud::html;
use serde::Deserialize;

pub async fn accounts(app: web::Data<App>, signed: Signed) -> Result<HttpResponse, Problem> {
    let accounts = app.console_accounts(&signed.actor.user).await?;
    let body = html! {
        h1 { "Accounts" }
        form.card method="post" action="/operator/accounts" {
            h2 { "Make an account" }
            (csrf(&signed))
            label for="account-name" { "Company name" }
            input id="account-name" name="name" required;
            label for="admin-email" { "Its first admin's email" }
            input id="admin-email" name="admin_email" type="email" required;
            label for="company-address" { "Company address (registering cardholders needs it)" }
            input id="company-address" name="company_address";
            label for="utility-bill" { "Utility bill URL (likewise)" }
            input id="utility-bill" name="utility_bill_url" type="url";
            button type="submit" { "Make the account" }
        }
        table tabindex="0" {
            caption { (accounts.len()) " accounts" }
            thead { tr { th { "Name" } th { "Id" } th { "Made" } } }
            tbody {
                @for a in &accounts {
                    tr {
                        td { a href={"/operator/accounts/" (a.id.as_str())} { (a.name) } }
                        td { code { (a.id.as_str()) } }
                        td { (when(a.created_at)) }
                    }
                }
            }
        }
    };
    Ok(page(&signed, Mode::Live, "Accounts", body))
}

#[derive(Deserialize)]
pub struct AccountForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    admin_email: String,
    company_address: Option<String>,
    utility_bill_url: Option<String>,
}

/// An optional field left empty: not given.
fn given(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

pub async fn create_account(
    app: web::Data<App>,
    settings: web::Data<ConsoleSettings>,
    posted: Posted<AccountForm>,
) -> Result<HttpResponse, Problem> {
    let form = &posted.form;
    let details = AccountDetails {
        name: form.name.clone(),
        webhook_url: None,
        company_address: given(&form.company_address),
        utility_bill_url: given(&form.utility_bill_url),
    };
    let (created, invited) = app
        .create_account_with_admin(&posted.signed.actor.user, &details, &form.admin_email)
        .await?;
    let account = &created.account_id;
    let actor = &posted.signed.actor;
    app.audit(actor, Some(account), "made an account", form.name.trim().to_string())
        .await?;
    let detail = format!("{} as admin", form.admin_email.trim().to_lowercase());
    app.audit(actor, Some(account), "invited a user", detail).await?;
    let body = html! {
        h1 { "Account made" }
        p { code { (account.as_str()) } ". Its API keys are on its home page, which its admin rolls before first use." }
        (invitation(&settings, &form.admin_email, &invited))
        p { a href={"/operator/accounts/" (account.as_str())} { "To the account" } }
    };
    Ok(page(&posted.signed, Mode::Live, "Account made", body))
}

pub async fn account(app: web::Data<App>, signed: Signed, Id(id): Id) -> Result<HttpResponse, Problem> {
    signed.operator()?;
    let account = AccountId::new(id);
    let row = app.console_account(&signed.actor.user, &account).await?;
    let users = app.console_users(&signed.actor.user, Some(&account)).await?;
    let live = app
        .get_issuing_wallet_balance(&Caller::console(account.clone(), Mode::Live))
        .await?;
    let mut switches = Vec::new();
    for mode in [Mode::Test, Mode::Live] {
        let rules = app.reward_rules(&Caller::console(account.clone(), mode)).await?;
        switches.push((mode, rules.enabled));
    }
    let path = format!("/operator/accounts/{}", account.as_str());
    let body = html! {
        h1 { (row.name) }
        p.muted { code { (account.as_str()) } ", made " (when(row.created_at)) }
        h2 { "Live issuing wallets" }
        (wallets(&live))
        form.card method="post" action={(path) "/credit"} {
            h3 { "Credit the live wallet (money received)" }
            (csrf(&signed))
            (money_fields("credit"))
            label for="credit-reference" { "Bank reference (credited once)" }
            input id="credit-reference" name="reference" required;
            label for="credit-note" { "Note" }
            input id="credit-note" name="note" required;
            button type="submit" { "Credit" }
        }
        h2 { "Rewards" }
        @for (mode, enabled) in &switches {
            p { (mode_name(*mode)) ": " strong { @if *enabled { "on" } @else { "off" } } " "
                (post_button(&signed, &format!("{path}/rewards"), if *enabled { "Turn off" } else { "Turn on" },
                    &[("mode", mode_name(*mode)), ("enabled", if *enabled { "false" } else { "true" })])) }
        }
        h2 { "Users" }
        table tabindex="0" {
            thead { tr { th { "Email" } th { "Role" } } }
            tbody { @for u in &users { tr { td { (u.email) } td { (role(&u.seat)) } } } }
        }
        form.card method="post" action="/users/invite" {
            h3 { "Invite a user" }
            (csrf(&signed))
            input type="hidden" name="account" value=(account.as_str());
            label for="invite-email" { "Email" }
            input id="invite-email" name="email" type="email" required;
            label for="invite-role" { "Role" }
            select id="invite-role" name="role" { option value="admin" { "Admin" } option value="viewer" { "Viewer" } }
            button type="submit" { "Invite" }
        }
    };
    Ok(page(&signed, Mode::Live, "Account", body))
}

#[derive(Deserialize)]
pub struct CreditForm {
    #[serde(default)]
    currency: String,
    #[serde(default)]
    amount: String,
    #[serde(default)]
    reference: String,
    #[serde(default)]
    note: String,
}

/// Funding through the dashboard: `issuing wallets credit`'s use case.
pub async fn credit(app: web::Data<App>, posted: Posted<CreditForm>, Id(id): Id) -> Result<HttpResponse, Problem> {
    posted.signed.operator_acting()?;
    let account = AccountId::new(id);
    app.console_account(&posted.signed.actor.user, &account).await?;
    let form = &posted.form;
    let credited = app
        .credit_wallet(CreditRequest {
            account: account.clone(),
            mode: Mode::Live,
            currency: &form.currency,
            amount: form.amount.trim(),
            reference: &form.reference,
            note: &form.note,
        })
        .await?;
    let detail = format!(
        "{} reference {}{}",
        money(credited.currency, credited.amount),
        credited.reference,
        if credited.moved_now {
            ""
        } else {
            " (credited before: nothing moved)"
        }
    );
    app.audit(&posted.signed.actor, Some(&account), "credited a live wallet", detail)
        .await?;
    Ok(see_other(&format!("/operator/accounts/{}", account.as_str())))
}

#[derive(Deserialize)]
pub struct SwitchForm {
    mode: Option<String>,
    #[serde(default)]
    enabled: String,
}

pub async fn rewards_switch(
    app: web::Data<App>,
    posted: Posted<SwitchForm>,
    Id(id): Id,
) -> Result<HttpResponse, Problem> {
    posted.signed.operator_acting()?;
    let account = AccountId::new(id);
    app.console_account(&posted.signed.actor.user, &account).await?;
    let mode = parse_mode(posted.form.mode.as_deref())?;
    let on = match posted.form.enabled.as_str() {
        "true" => true,
        "false" => false,
        _ => return Err(domain::InvalidInput::new("enabled", "must be true or false").into()),
    };
    let change = RulesChange {
        enabled: Some(on),
        ..Default::default()
    };
    app.change_reward_rules(&account, mode, change).await?;
    let action = if on { "turned rewards on" } else { "turned rewards off" };
    app.audit(
        &posted.signed.actor,
        Some(&account),
        action,
        mode_name(mode).to_string(),
    )
    .await?;
    Ok(see_other(&format!("/operator/accounts/{}", account.as_str())))
}

pub async fn reviews(app: web::Data<App>, signed: Signed) -> Result<HttpResponse, Problem> {
    signed.operator()?;
    let cases = app.cases_in_review().await?;
    let body = html! {
        h1 { "KYC reviews" }
        @if cases.is_empty() { p.empty { "No case waits for review." } }
        @for c in &cases {
            @let r = &c.registration;
            section.card {
                h2 { (r.first_name) " " (r.last_name) }
                dl.facts {
                    div { dt { "Cardholder" } dd { code { (c.id.as_str()) } " (" (mode_name(c.mode)) ")" } }
                    div { dt { "Account" } dd { code { (c.account_id.as_str()) } } }
                    div { dt { "ID" } dd { (r.identity.id_type.as_str()) } }
                    div { dt { "Name on the ID" } dd {
                        (r.identity.first_name.as_deref().unwrap_or("—")) " " (r.identity.last_name.as_deref().unwrap_or("")) } }

                    div { dt { "Registered" } dd { (when(c.created_at)) } }
                }
                div.images {
                    @for (label, which, url) in [("The ID document", "id_image", &r.identity.id_image),
                                                 ("The selfie", "selfie_image", &r.identity.selfie_image)] {
                        @if url.is_some() {
                            figure {
                                img src={"/operator/reviews/" (c.id.as_str()) "/" (which)} alt=(label);
                                figcaption { (label) }
                            }
                        }
                    }
                }
                form.inline method="post" action={"/operator/reviews/" (c.id.as_str())} {
                    (csrf(&signed))
                    input type="hidden" name="decision" value="approve";
                    button type="submit" { "Approve" }
                }
                form.card method="post" action={"/operator/reviews/" (c.id.as_str())} {
                    (csrf(&signed))
                    input type="hidden" name="decision" value="reject";
                    label for={"reason-" (c.id.as_str())} { "Reason" }
                    input id={"reason-" (c.id.as_str())} name="reason" required;
                    button.danger type="submit" { "Reject" }
                }
            }
        }
    };
    Ok(page(&signed, Mode::Live, "KYC reviews", body))
}

#[derive(Deserialize)]
pub struct ReviewForm {
    #[serde(default)]
    decision: String,
    reason: Option<String>,
}

/// `issuing review`'s use case.
pub async fn review(app: web::Data<App>, posted: Posted<ReviewForm>, Id(id): Id) -> Result<HttpResponse, Problem> {
    posted.signed.operator_acting()?;
    let id = CardholderId::new(id);
    let form = &posted.form;
    let approve = match form.decision.as_str() {
        "approve" => true,
        "reject" => false,
        _ => return Err(domain::InvalidInput::new("decision", "must be approve or reject").into()),
    };
    let reason = form.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
    if let Some(reason) = reason {
        domain::text::plain("reason", reason, 500)?;
    }
    match app.review_cardholder(&id, approve, reason).await {
        Ok(()) => {}
        Err(ReviewError::NotInReview(_)) => return Err(Problem::NotFound),
        Err(ReviewError::Store(e)) => return Err(e.into()),
    }
    let action = if approve {
        "approved a KYC case"
    } else {
        "rejected a KYC case"
    };
    app.audit(&posted.signed.actor, None, action, id.as_str().to_string())
        .await?;
    Ok(see_other("/operator/reviews"))
}

pub async fn jobs(app: web::Data<App>, signed: Signed) -> Result<HttpResponse, Problem> {
    signed.operator()?;
    let jobs = app.list_jobs(true).await?;
    let body = html! {
        h1 { "Parked jobs" }
        @if jobs.is_empty() { p.empty { "No job is parked." } }
        @else {
            table tabindex="0" {
                thead { tr { th { "Job" } th { "Kind" } th { "Account" } th { "Attempts" } th { "Last error" } th {} } }
                tbody {
                    @for j in &jobs {
                        tr {
                            td { code { (j.id) } }
                            td { (j.kind) " " (j.subject) }
                            td { code { (j.account_id) } " (" (mode_name(j.mode)) ")" }
                            td { (j.attempts) "/" (j.max_attempts) }
                            td { (j.last_error.as_deref().unwrap_or("—")) }
                            td { (post_button(&signed, &format!("/operator/jobs/{}/retry", j.id), "Retry", &[])) }
                        }
                    }
                }
            }
        }
    };
    Ok(page(&signed, Mode::Live, "Jobs", body))
}

pub async fn retry_job(
    app: web::Data<App>,
    posted: Posted<serde::de::IgnoredAny>,
    Id(id): Id,
) -> Result<HttpResponse, Problem> {
    posted.signed.operator_acting()?;
    if !app.retry_job(&JobId::new(id.as_str())).await? {
        return Err(Problem::NotFound);
    }
    app.audit(&posted.signed.actor, None, "retried a job", id).await?;
    Ok(see_other("/operator/jobs"))
}

fn ledger_page(
    signed: &Signed,
    result: Option<&[domain::ledger::Breach]>,
    reconciliations: &[ports::reconciliation::Run],
) -> HttpResponse {
    let body = html! {
        h1 { "Ledger" }
        h2 { "Reconciliation with the card processor" }
        @if reconciliations.is_empty() {
            p data-reconciliation="none" { "No run yet (" code { "issuing reconcile transactions" } ", and hourly while workers run, on a processor that keeps books)." }
        } @else {
            table tabindex="0" data-reconciliation="runs" {
                caption { "The last run of each mode" }
                thead { tr { th { "Mode" } th { "Started" } th { "Compared" } th { "Differences" } th { "Repaired" } th { "Left to an operator" } th { "Error" } } }
                tbody {
                    @for run in reconciliations {
                        tr {
                            td { (mode_name(run.mode)) }
                            td { (when(run.started_at)) }
                            td { (run.compared) }
                            td { (run.differences) }
                            td { (run.repaired) }
                            td { (run.unresolved) }
                            td { (run.error.as_deref().unwrap_or(if run.finished_at.is_some() { "" } else { "not finished" })) }
                        }
                    }
                }
            }
        }
        h2 { "Ledger check" }
        p { "Checks that every entry balances within one account and mode, that every cached balance matches its postings and range, and that the books agree with the cards, transfers, credits and transactions (" code { "issuing ledger check" } ")." }
        (post_button(signed, "/operator/ledger", "Run the ledger check", &[]))
        @match result {
            Some([]) => p.passed role="status" data-ledger="passed" { "Ledger check passed." },
            Some(breaches) => {
                p.error role="alert" data-ledger="failed" { "Ledger check failed: " (breaches.len()) " breach(es)." }
                ul { @for b in breaches { li { (b.to_string()) } } }
            },
            None => {},
        }
    };
    super::view::respond(StatusCode::OK, "Ledger", Some((signed, Mode::Live)), body)
}

pub async fn ledger(app: web::Data<App>, signed: Signed) -> Result<HttpResponse, Problem> {
    signed.operator()?;
    let runs = app.last_reconciliations().await?;
    Ok(ledger_page(&signed, None, &runs))
}

pub async fn check_ledger(
    app: web::Data<App>,
    settings: web::Data<ConsoleSettings>,
    posted: Posted<serde::de::IgnoredAny>,
) -> Result<HttpResponse, Problem> {
    posted.signed.operator()?;
    let breaches = settings.ledger.breaches(settings.max_wallet).await?;
    let detail = format!("{} breach(es)", breaches.len());
    app.audit(&posted.signed.actor, None, "ran the ledger check", detail)
        .await?;
    let runs = app.last_reconciliations().await?;
    Ok(ledger_page(&posted.signed, Some(&breaches), &runs))
}

/// One of a case's images, fetched from the URL stored on the case, and
/// served as an image only (no other type, no script, not cached).
pub async fn review_image(
    app: web::Data<App>,
    signed: Signed,
    Id(id): Id,
    req: HttpRequest,
) -> Result<HttpResponse, Problem> {
    let which = req.match_info().get("image").unwrap_or_default();
    let which = CaseImage::parse(which).ok_or(Problem::NotFound)?;
    let image = match app.case_image(&signed.actor.user, &CardholderId::new(id), which).await {
        Ok(image) => image,
        Err(CaseImageError::Console(e)) => return Err(e.into()),
        Err(e @ CaseImageError::Fetch(_)) => {
            return Err(Problem::Refused {
                status: StatusCode::BAD_GATEWAY,
                message: e.to_string(),
            });
        }
    };
    Ok(HttpResponse::Ok()
        .content_type(image.content_type)
        .insert_header(("Content-Security-Policy", "default-src 'none'"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .insert_header(("Cache-Control", "no-store"))
        .body(image.bytes))
}

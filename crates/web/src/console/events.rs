//! The event log: each event with its delivery attempts, redelivery, and
//! a test event sent to the sandbox's endpoint.

use super::problem::Problem;
use super::session::{Id, ModeQuery, Posted, Signed, parse_mode};
use super::view::{csrf, mode_name, mode_query, page, pages, post_button, see_other, when};
use actix_web::{HttpResponse, web};
use app::{App, Caller};
use domain::Mode;
use domain::ids::EventId;
use domain::paging::Page;
use maud::html;
use serde::Deserialize;

#[derive(Deserialize)]
pub struct ListQuery {
    #[serde(flatten)]
    mode: ModeQuery,
    page: Option<String>,
}

pub async fn list(app: web::Data<App>, signed: Signed, query: web::Query<ListQuery>) -> Result<HttpResponse, Problem> {
    let mode = query.mode.mode()?;
    let account = signed.account()?;
    let caller = Caller::console(account, mode);
    let (events, paging) = app
        .list_events(&caller, Page::parse(query.page.as_deref(), Some("25"))?)
        .await?;
    let link = |number: u64| format!("/events{}&page={number}", mode_query(mode));
    let body = html! {
        h1 { "Events" }
        @if mode == Mode::Test && signed.acting().is_ok() {
            form.inline method="post" action="/events/test" {
                (csrf(&signed))
                button type="submit" { "Send a test event" }
            }
        }
        @if events.is_empty() {
            p.empty { "No event yet." }
        } @else {
            table tabindex="0" {
                caption { (paging.total) " events" }
                thead { tr { th { "Event" } th { "When" } th { "Delivery" } th { "Attempts" } } }
                tbody {
                    @for e in &events {
                        tr {
                            td { a href={"/events/" (e.id.as_str()) (mode_query(mode))} { (e.event) } }
                            td { (when(e.created_at)) }
                            td { (e.delivery_state.as_str()) }
                            td { (e.attempts) }
                        }
                    }
                }
            }
            (pages(&paging, link))
        }
    };
    Ok(page(&signed, mode, "Events", body))
}

pub async fn show(
    app: web::Data<App>,
    signed: Signed,
    Id(id): Id,
    query: web::Query<ModeQuery>,
) -> Result<HttpResponse, Problem> {
    let mode = query.mode()?;
    let caller = Caller::console(signed.account()?, mode);
    let (event, attempts) = app.get_event(&caller, &EventId::new(id)).await?;
    let body = html! {
        h1 { (event.event) }
        p.muted { code { (event.id.as_str()) } ", " (when(event.created_at)) ", " (event.delivery_state.as_str()) }
        @if signed.acting().is_ok() {
            (post_button(&signed, &format!("/events/{}/redeliver", event.id.as_str()), "Redeliver", &[("mode", mode_name(mode))]))
        }
        h2 { "Payload" }
        pre.payload { (event.data) }
        h2 { "Delivery attempts" }
        @if attempts.is_empty() {
            p.empty { "Not attempted yet." }
        } @else {
            table tabindex="0" {
                thead { tr { th { "#" } th { "When" } th { "URL" } th { "Answer" } th.amount { "ms" } } }
                tbody {
                    @for a in &attempts {
                        tr {
                            td { (a.attempt) }
                            td { (when(a.outcome.attempted_at)) }
                            td { (a.outcome.url) }
                            td { @match (a.outcome.status_code, &a.outcome.error) {
                                (Some(code), _) => (code),
                                (None, Some(error)) => (error),
                                (None, None) => "—",
                            } }
                            td.amount { (a.outcome.duration_ms) }
                        }
                    }
                }
            }
        }
    };
    Ok(page(&signed, mode, "Event", body))
}

#[derive(Deserialize)]
pub struct EventForm {
    mode: Option<String>,
}

pub async fn redeliver(app: web::Data<App>, posted: Posted<EventForm>, Id(id): Id) -> Result<HttpResponse, Problem> {
    let account = posted.signed.acting()?;
    let mode = parse_mode(posted.form.mode.as_deref())?;
    let id = EventId::new(id);
    app.redeliver_event(&Caller::console(account.clone(), mode), &id)
        .await?;
    let detail = format!("{} {}", mode_name(mode), id.as_str());
    app.audit(&posted.signed.actor, Some(&account), "redelivered an event", detail)
        .await?;
    Ok(see_other(&format!("/events/{}{}", id.as_str(), mode_query(mode))))
}

pub async fn send_test(app: web::Data<App>, posted: Posted<serde::de::IgnoredAny>) -> Result<HttpResponse, Problem> {
    let account = posted.signed.acting()?;
    let id = app
        .send_test_event(&Caller::console(account.clone(), Mode::Test))
        .await?;
    app.audit(
        &posted.signed.actor,
        Some(&account),
        "sent a test event",
        id.as_str().to_string(),
    )
    .await?;
    Ok(see_other(&format!("/events/{}?mode=test", id.as_str())))
}

//! The dashboard's listener (`--dashboard-listen`): the console of
//! `web::console` over the same `App` as the API, on an address of its own
//! to keep off the public network.

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::web::Data;
use actix_web::{App, HttpServer};
use anyhow::Context;
use domain::Amount;
use ports::ledger::LedgerAudit;
use std::net::SocketAddr;
use std::sync::Arc;

/// Binds `listen`, when it is given: the server, to run. `public_url`
/// (`--dashboard-url`) is where people reach it; by default the address
/// bound.
pub fn start(
    (listen, public_url): (Option<SocketAddr>, Option<String>),
    app: Data<app::App>,
    ledger: Arc<dyn LedgerAudit>,
    max_wallet: Amount,
) -> anyhow::Result<Option<Server>> {
    let Some(listen) = listen else {
        return Ok(None);
    };
    let listener =
        std::net::TcpListener::bind(listen).with_context(|| format!("listening on {listen} (the dashboard)"))?;
    let addr = listener.local_addr()?;
    let settings = web::console::ConsoleSettings {
        ledger,
        max_wallet,
        public_url: public_url.unwrap_or(format!("http://{addr}")),
    };
    let server = HttpServer::new(move || {
        App::new()
            .wrap(from_fn(web::console::whole))
            .app_data(app.clone())
            .configure(|cfg| web::console::configure(cfg, settings.clone()))
    })
    .workers(2)
    .listen(listener)?
    .run();
    println!("dashboard listening on http://{addr}");
    Ok(Some(server))
}

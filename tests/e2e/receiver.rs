//! A real webhook receiver on loopback: records every delivery, answers
//! 500 while told to refuse, and notices two deliveries of one event in
//! flight at the same time.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Delivery {
    pub event_id: String,
    pub body: String,
    pub webhook_signature: String,
    pub issuing_signature: String,
    /// Standard Webhooks' `webhook-id`, `webhook-timestamp` and
    /// `webhook-signature`.
    pub standard: [String; 3],
    pub accepted: bool,
}

#[derive(Default)]
struct State {
    refuse: AtomicBool,
    deliveries: Mutex<Vec<Delivery>>,
    in_flight: Mutex<HashSet<String>>,
    overlaps: Mutex<Vec<String>>,
    hold: Mutex<Duration>,
}

pub struct Receiver {
    pub url: String,
    state: Arc<State>,
    handle: actix_web::dev::ServerHandle,
}

async fn receive(state: web::Data<Arc<State>>, req: HttpRequest, body: String) -> HttpResponse {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let event_id = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["event_id"].as_str().map(str::to_string))
        .unwrap_or_default();
    if !state.in_flight.lock().unwrap().insert(event_id.clone()) {
        state.overlaps.lock().unwrap().push(event_id.clone());
    }
    let hold = *state.hold.lock().unwrap();
    if !hold.is_zero() {
        tokio::time::sleep(hold).await;
    }
    let accepted = !state.refuse.load(Ordering::SeqCst);
    state.deliveries.lock().unwrap().push(Delivery {
        event_id: event_id.clone(),
        body,
        webhook_signature: header("x-webhook-signature"),
        issuing_signature: header("x-issuing-signature"),
        standard: ["webhook-id", "webhook-timestamp", "webhook-signature"].map(header),
        accepted,
    });
    state.in_flight.lock().unwrap().remove(&event_id);
    if accepted {
        HttpResponse::Ok().finish()
    } else {
        HttpResponse::InternalServerError().finish()
    }
}

impl Receiver {
    pub fn start() -> Receiver {
        let state = Arc::new(State::default());
        let data = web::Data::new(state.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                // A collector's batches of spans run past actix's 256 KiB.
                .app_data(web::PayloadConfig::new(16 << 20))
                .route("/hooks", web::post().to(receive))
                // Standing for an OpenTelemetry collector at `url`.
                .route("/hooks/v1/traces", web::post().to(receive))
        })
        .workers(2)
        .bind("127.0.0.1:0")
        .unwrap();
        let url = format!("http://{}/hooks", server.addrs()[0]);
        let server = server.run();
        let handle = server.handle();
        tokio::spawn(server);
        Receiver { url, state, handle }
    }

    pub fn refuse(&self, refuse: bool) {
        self.state.refuse.store(refuse, Ordering::SeqCst);
    }

    /// Holds every answer this long, so overlapping deliveries would show.
    pub fn hold(&self, hold: Duration) {
        *self.state.hold.lock().unwrap() = hold;
    }

    pub fn deliveries(&self) -> Vec<Delivery> {
        self.state.deliveries.lock().unwrap().clone()
    }

    /// Deliveries being answered now.
    pub fn in_flight(&self) -> usize {
        self.state.in_flight.lock().unwrap().len()
    }

    /// Event ids delivered while a delivery of the same id was in flight.
    pub fn overlaps(&self) -> Vec<String> {
        self.state.overlaps.lock().unwrap().clone()
    }

    /// Accepted deliveries per event id.
    pub fn accepted(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for d in self.deliveries().into_iter().filter(|d| d.accepted) {
            *counts.entry(d.event_id).or_insert(0) += 1;
        }
        counts
    }

    /// Waits until `done` holds, at most `secs` seconds.
    pub async fn wait_for(&self, secs: u64, done: impl Fn(&Receiver) -> bool) -> bool {
        for _ in 0..secs * 20 {
            if done(self) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        done(self)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

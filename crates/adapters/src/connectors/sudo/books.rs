//! Sudo's own books, read for reconciliation: its authorizations
//! (`GET /cards/authorizations`, `GET /cards/authorizations/{id}`) and
//! transactions (`GET /cards/transactions`), page by page as its
//! pagination page says (`page` from 0, `limit` at most 100, a
//! `pagination` object with the number of `pages`). Amounts are in major
//! units; a capture's is written negative. docs/connectors.md says what
//! each page shows and how its gaps are read.

use super::gateway::object_id;
use super::{Sudo, segment, unavailable};
use crate::connectors::http::CallError;
use chrono::DateTime;
use domain::{Amount, Currency, Timestamp};
use ports::card_network::{BookedAuthorization, BookedKind, BookedTransaction, Books, NetworkUnavailable};
use reqwest::Method;
use serde::Deserialize;
use serde_json::Value;

/// The most Sudo answers in one page.
const PAGE: u32 = 100;

/// Past this many pages a listing is taken as never ending.
const MOST_PAGES: u32 = 10_000;

/// A page of a listing: `{statusCode, message, data: [...], pagination}`.
#[derive(Deserialize)]
struct Listing {
    #[serde(default)]
    data: Vec<Value>,
    #[serde(default)]
    pagination: Value,
}

/// How many pages the listing has (`pages`, written as a number or a
/// string as the pagination page writes `page` and `limit`).
fn pages(pagination: &Value) -> Option<u32> {
    let pages = &pagination["pages"];
    pages
        .as_u64()
        .or_else(|| pages.as_str()?.parse().ok())
        .and_then(|p| u32::try_from(p).ok())
}

/// An amount as written (a number or a string holding one), its sign
/// dropped (a capture's is negative).
fn amount(value: &Value) -> Option<Amount> {
    let written = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => return None,
    };
    Amount::from_major_rounded_up(written.strip_prefix('-').unwrap_or(&written))
}

/// A currency code, in either case (`usd` is USD).
fn currency(value: &Value) -> Option<Currency> {
    Currency::parse("currency", &value.as_str()?.to_ascii_uppercase()).ok()
}

fn created_at(object: &Value) -> Option<Timestamp> {
    let written = object["createdAt"].as_str()?;
    DateTime::parse_from_rfc3339(written)
        .ok()
        .map(|t| Timestamp::from_unix(t.timestamp()))
}

/// An authorization as listed: its fields at the top, or under `data` as
/// the Authorizations overview's object shows them. It stands approved
/// when `approved` is true and its `status` is neither `declined` nor
/// `reversed`; its amount is `amount`, or (that zero) its pending
/// request's.
fn authorization(item: &Value) -> Option<BookedAuthorization> {
    let fields = match &item["data"] {
        data @ Value::Object(_) if item.get("card").is_none() => data,
        _ => item,
    };
    let id = object_id(&item["_id"])?;
    let status = fields["status"].as_str().unwrap_or_default();
    let approved = fields["approved"].as_bool() == Some(true) && !matches!(status, "declined" | "reversed");
    let money = |object: &Value| amount(&object["amount"]).zip(currency(&object["currency"]));
    // Its pending request's only when it says none (`0`, as the request
    // shows it): an amount or currency it says and cannot be read is no
    // amount at all.
    let amount = match amount(&fields["amount"]) {
        Some(own) if own > Amount::ZERO => currency(&fields["currency"]).map(|c| (own, c)),
        Some(_) => money(&fields["pendingRequest"]),
        None if fields["amount"].is_null() => money(&fields["pendingRequest"]),
        None => None,
    };
    Some(BookedAuthorization {
        id,
        card: object_id(&fields["card"])?,
        approved,
        amount,
        created_at: created_at(fields).or_else(|| created_at(item)),
    })
}

/// A capture or a refund as listed; another type is no money of an
/// authorization.
fn transaction(item: &Value) -> Option<BookedTransaction> {
    let kind = match item["type"].as_str()? {
        "capture" => BookedKind::Capture,
        "refund" => BookedKind::Refund,
        _ => return None,
    };
    Some(BookedTransaction {
        id: object_id(&item["_id"])?,
        card: object_id(&item["card"])?,
        authorization: object_id(&item["authorization"]),
        kind,
        amount: amount(&item["amount"])?,
        currency: currency(&item["currency"])?,
        created_at: created_at(item),
    })
}

/// Whether `at` is within the period (a time not said is).
fn within(at: Option<Timestamp>, from: Timestamp, to: Timestamp) -> bool {
    at.is_none_or(|at| from <= at && at <= to)
}

impl Sudo {
    /// Every page of `path` from `from` to `to` (`fromDate` and `toDate`,
    /// days), each item read by `read`; an item that cannot be read is
    /// left out and logged (reconciliation asks for an authorization it
    /// misses by its id).
    async fn listing<T>(
        &self,
        path: &str,
        (from, to): (Timestamp, Timestamp),
        read: fn(&Value) -> Option<T>,
    ) -> Result<Vec<T>, NetworkUnavailable> {
        let day = |t: Timestamp| {
            DateTime::from_timestamp(t.unix(), 0)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default()
        };
        let dates = format!("&fromDate={}&toDate={}", day(from), day(to));
        self.every_page(path, &dates, read).await
    }

    /// Every page of `path` (with `query` after its `page` and `limit`),
    /// each item read by `read`; an item that cannot be read is left out
    /// and logged.
    pub(super) async fn every_page<T>(
        &self,
        path: &str,
        query: &str,
        read: impl Fn(&Value) -> Option<T>,
    ) -> Result<Vec<T>, NetworkUnavailable> {
        let mut read_all = vec![];
        for page in 0..MOST_PAGES {
            let listing: Listing = self
                .listed(&format!("{path}?page={page}&limit={PAGE}{query}"))
                .await
                .map_err(unavailable)?;
            let count = listing.data.len();
            for item in &listing.data {
                match read(item) {
                    Some(read) => read_all.push(read),
                    None => tracing::warn!(path, "Sudo listed an item this connector cannot read: left out"),
                }
            }
            let last = pages(&listing.pagination).is_none_or(|pages| page + 1 >= pages);
            if count == 0 || last {
                return Ok(read_all);
            }
        }
        Err(NetworkUnavailable(format!(
            "Sudo's {path} listed more than {MOST_PAGES} pages"
        )))
    }

    async fn listed(&self, path: &str) -> Result<Listing, CallError> {
        let auth = format!("Bearer {}", self.api_key.expose());
        self.http
            .call(
                Method::GET,
                path,
                &[("authorization", &auth)],
                None,
                super::error_message,
            )
            .await
    }

    pub(super) async fn read_books(&self, from: Timestamp, to: Timestamp) -> Result<Books, NetworkUnavailable> {
        let authorizations = self.listing("/cards/authorizations", (from, to), authorization).await?;
        let transactions = self.listing("/cards/transactions", (from, to), transaction).await?;
        Ok(Books {
            authorizations: authorizations
                .into_iter()
                .filter(|a| within(a.created_at, from, to))
                .collect(),
            transactions: transactions
                .into_iter()
                .filter(|t| within(t.created_at, from, to))
                .collect(),
        })
    }

    pub(super) async fn read_booked(&self, id: &str) -> Result<Option<BookedAuthorization>, NetworkUnavailable> {
        let path = format!("/cards/authorizations/{}", segment(id)?);
        match self.call::<Value>(Method::GET, &path, None).await {
            Ok(found) => authorization(&found)
                .map(Some)
                .ok_or_else(|| NetworkUnavailable("Sudo answered an authorization this connector cannot read".into())),
            Err(CallError::Refused { status: 404, .. }) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_authorization_as_listed_or_as_the_overview_wraps_it() {
        let flat = json!({"_id": "au1", "card": {"_id": "ca1"}, "approved": true, "status": "closed",
            "amount": 12.5, "currency": "USD", "createdAt": "2026-11-28T10:00:00.000Z"});
        let read = authorization(&flat).unwrap();
        assert_eq!(
            (read.approved, read.amount, read.card.as_str()),
            (true, Some((Amount::from_const(1250), Currency::Usd)), "ca1")
        );
        assert_eq!(read.created_at, Some(Timestamp::from_unix(1_795_860_000)));
        let wrapped = json!({"_id": "au2", "type": "authorization.request", "data": {"card": "ca1",
            "approved": false, "status": "pending", "amount": 0, "currency": "NGN",
            "pendingRequest": {"amount": "100", "currency": "NGN"}}});
        let read = authorization(&wrapped).unwrap();
        assert_eq!(
            (read.id.as_str(), read.approved, read.amount),
            ("au2", false, Some((Amount::from_const(10_000), Currency::Ngn)))
        );
        for reversed in ["reversed", "declined"] {
            let item = json!({"_id": "au3", "card": "ca1", "approved": true, "status": reversed});
            assert!(!authorization(&item).unwrap().approved);
        }
        // A NUL in an id names nothing.
        assert_eq!(authorization(&json!({"_id": "au\u{0}", "card": "ca1"})), None);
    }

    #[test]
    fn reads_captures_negative_and_refunds_positive() {
        let capture = json!({"_id": "tx1", "card": "ca1", "authorization": {"_id": "au1"}, "type": "capture",
            "amount": -25.375, "currency": "USD"});
        let read = transaction(&capture).unwrap();
        assert_eq!(
            (read.kind, read.amount, read.authorization.as_deref()),
            (BookedKind::Capture, Amount::from_const(2538), Some("au1"))
        );
        let refund = json!({"_id": "rf1", "card": "ca1", "authorization": "au1", "type": "refund",
            "amount": 10, "currency": "USD"});
        assert_eq!(transaction(&refund).unwrap().kind, BookedKind::Refund);
        assert_eq!(
            transaction(&json!({"_id": "x", "card": "ca1", "type": "fee", "amount": 1})),
            None
        );
        assert_eq!(pages(&json!({"pages": "3"})), Some(3));
        assert_eq!(pages(&json!({"pages": 2})), Some(2));
    }
}

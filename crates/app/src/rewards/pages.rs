//! What the two hosted pages show and do. The deal page exchanges its
//! single-use card token, on first load, for a page session: a cookie
//! value naming the reward and its expiry, with a keyed hash so only this
//! service makes one; the claim form carries a CSRF value derived from it.
//! The charts page sums the card's debits of the last six months.

use crate::App;
use domain::paging::Page;
use domain::rewards::{ClaimRefused, PromoCode, Reward};
use domain::{Amount, Currency, Mode, Secret, Timestamp};
use ports::StoreError;
use ports::cards::CardRecord;

/// How long a deal page may be used after it was opened.
pub const PAGE_SESSION_SECS: i64 = 15 * 60;

/// Months the bar chart shows, this one included.
pub const CHART_MONTHS: u32 = 6;

#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// A query or form field is missing or wrong.
    #[error("{field}: {rule}")]
    BadLink { field: &'static str, rule: &'static str },
    /// The link's token is unknown, expired or used, or the page session
    /// ended (or a sandbox link left out `environment=sandbox`, which
    /// looks the same).
    #[error(
        "this link has expired or was already used; open it again from the app (a sandbox link needs \
         environment=sandbox)"
    )]
    Expired,
    /// The deal is a promo code already: shown to its own cardholder.
    #[error("this deal was claimed already")]
    Claimed(Option<Box<PromoCode>>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PageError {
    fn bad(field: &'static str, rule: &'static str) -> Self {
        PageError::BadLink { field, rule }
    }
}

/// The deal page's query, as sent.
#[derive(Debug, Clone, Default)]
pub struct DealQuery {
    pub reward_token: Option<String>,
    pub card_token: Option<String>,
    pub merchant: Option<String>,
    pub environment: Option<String>,
}

/// A deal page session: the cookie's value.
#[derive(Debug, Clone)]
pub struct PageSession(pub Secret<String>);

/// What the deal page shows.
#[derive(Debug, Clone)]
pub struct DealPage {
    pub merchant: String,
    pub description: String,
    /// Each product's name and what its promo code gives.
    pub products: Vec<(String, String)>,
    /// The value the claim form must send back.
    pub csrf: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    Bar,
    Pie,
}

/// A card's spending for the charts page, in its currency's minor units.
#[derive(Debug, Clone)]
pub struct SpendingChart {
    pub kind: ChartKind,
    pub currency: Currency,
    /// Bar: `YYYY-MM` and the month's total, oldest first. Pie: each
    /// transaction group and its total, largest first.
    pub slices: Vec<(String, Amount)>,
}

/// Equal without saying where they differ (the values are secrets).
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn mode_of(environment: Option<&str>) -> Result<Mode, PageError> {
    match environment {
        Some("sandbox") => Ok(Mode::Test),
        None | Some("production") => Ok(Mode::Live),
        Some(_) => Err(PageError::bad(
            "environment",
            "must be sandbox, or absent in production",
        )),
    }
}

impl App {
    /// Opens a deal page: checks the reward token, the merchant and the
    /// environment, redeems the card token (the reward's cardholder's
    /// card), and starts the page session.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn open_deal_page(&self, query: DealQuery) -> Result<(DealPage, PageSession), PageError> {
        let mode = mode_of(query.environment.as_deref())?;
        let token = query
            .reward_token
            .as_deref()
            .ok_or(PageError::bad("reward_token", "is required"))?;
        let card_token = query.card_token.ok_or(PageError::bad("card_token", "is required"))?;
        let merchant = query.merchant.ok_or(PageError::bad("merchant", "is required"))?;
        // Shapes only, which tell nothing of any reward or card: a token cut
        // short or mistyped says so, one of the right shape is looked up.
        let (id, mac) = token
            .split_once('.')
            .filter(|(id, mac)| !id.is_empty() && mac.len() == 64 && mac.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or(PageError::bad(
                "reward_token",
                "is not a reward token: copy it whole from the reward's entry",
            ))?;
        check_card_token(&card_token)?;
        if !same(mac, &self.ports.vault.keyed_hash(id, "reward_token")) {
            return Err(PageError::Expired);
        }
        let reward = self
            .ports
            .rewards
            .get(id)
            .await?
            .filter(|r| r.mode == mode)
            .ok_or(PageError::Expired)?;
        let card_token = Secret::new(card_token);
        // Checked before the token is used up: another's token stays theirs.
        // Another cardholder's reward answers as a forged token does, and
        // before anything else of it is told (claimed, its merchant): a
        // link shows nothing of a reward but to its own cardholder's card.
        let card = self.peek_card_token(Some(mode), &card_token).await?;
        if card.account_id != reward.account_id || card.cardholder_id != reward.cardholder_id {
            return Err(PageError::Expired);
        }
        let deal = match &reward.reward {
            Reward::Deal(deal) => deal,
            Reward::PromoCode(code) => return Err(PageError::Claimed(Some(Box::new(code.clone())))),
        };
        if deal.merchant != merchant {
            return Err(PageError::bad("merchant", "is not this deal's merchant"));
        }
        self.use_card_token(Some(mode), &card_token, false).await?;
        let expires = self.ports.clock.now().plus(PAGE_SESSION_SECS);
        let body = format!("{id}.{}", expires.unix());
        let session = format!("{body}.{}", self.ports.vault.keyed_hash(&body, "page_session"));
        let page = DealPage {
            merchant: deal.merchant.clone(),
            description: deal.description.clone(),
            products: deal
                .products
                .iter()
                .map(|p| (p.name.clone(), p.promo_code.description.clone()))
                .collect(),
            csrf: self.ports.vault.keyed_hash(&session, "page_csrf"),
        };
        Ok((page, PageSession(Secret::new(session))))
    }

    /// Claims the session's deal as `product`: its promo code. Claiming
    /// again in the same session (a double click) shows the same code.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn claim_deal(&self, session: &str, csrf: &str, product: &str) -> Result<PromoCode, PageError> {
        let mut parts = session.rsplitn(2, '.');
        let (mac, body) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        if body.is_empty() || !same(mac, &self.ports.vault.keyed_hash(body, "page_session")) {
            return Err(PageError::Expired);
        }
        let (id, expires) = body.rsplit_once('.').ok_or(PageError::Expired)?;
        let expires = expires.parse::<i64>().map_err(|_| PageError::Expired)?;
        if self.ports.clock.now().unix() >= expires {
            return Err(PageError::Expired);
        }
        if !same(csrf, &self.ports.vault.keyed_hash(session, "page_csrf")) {
            return Err(PageError::bad(
                "csrf",
                "does not match this page; open it again from the app",
            ));
        }
        let reward = self.ports.rewards.get(id).await?.ok_or(PageError::Expired)?;
        let claimed = match reward.reward.claim(product) {
            Ok(claimed) => claimed,
            Err(ClaimRefused::NotOffered) => {
                return Err(PageError::bad("product", "is not one of this deal's products"));
            }
            Err(ClaimRefused::AlreadyClaimed) => reward.reward.clone(),
        };
        let now = self.now_for(&reward.account_id, reward.mode).await?;
        if !self.ports.rewards.claim(id, &claimed, now).await? {
            // Claimed first by another request of this session: show that.
            let stored = self.ports.rewards.get(id).await?.ok_or(PageError::Expired)?;
            return match stored.reward {
                Reward::PromoCode(code) => Ok(code),
                Reward::Deal(_) => Err(PageError::Claimed(None)),
            };
        }
        match claimed {
            Reward::PromoCode(code) => Ok(code),
            Reward::Deal(_) => Err(PageError::Claimed(None)),
        }
    }

    /// The spending of the card a card token is for (redeemed), by month
    /// or by transaction group.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn spending_chart(
        &self,
        card_token: Option<String>,
        chart_type: Option<&str>,
    ) -> Result<SpendingChart, PageError> {
        let kind = match chart_type {
            Some("bar_chart") => ChartKind::Bar,
            Some("pie_chart") => ChartKind::Pie,
            Some(_) => return Err(PageError::bad("chart_type", "must be bar_chart or pie_chart")),
            None => return Err(PageError::bad("chart_type", "is required")),
        };
        let token = card_token.ok_or(PageError::bad("card_token", "is required"))?;
        check_card_token(&token)?;
        let card = self.use_card_token(None, &Secret::new(token), false).await?;
        Ok(self.chart_of(&card, kind).await?)
    }

    /// The dashboard's chart of one of the caller's cards.
    #[tracing::instrument(level = "debug", skip_all)]
    pub async fn card_spending_chart(
        &self,
        caller: &crate::Caller,
        id: &domain::ids::CardId,
        kind: ChartKind,
    ) -> Result<SpendingChart, crate::cards::CardError> {
        let card = self.card(caller, id).await?;
        Ok(self.chart_of(&card, kind).await?)
    }

    /// The card's spending of the last [`CHART_MONTHS`] months, by month
    /// or by transaction group.
    async fn chart_of(&self, card: &CardRecord, kind: ChartKind) -> Result<SpendingChart, StoreError> {
        let now = self.now_for(&card.account_id, card.mode).await?;
        let (from, _) = now.month_bounds(CHART_MONTHS - 1);
        let debits = self.debits_since(card, from, now).await?;
        let mut slices: Vec<(String, Amount)> = match kind {
            ChartKind::Bar => (0..CHART_MONTHS)
                .rev()
                .map(|back| {
                    let (start, _) = now.month_bounds(back);
                    (start.gmt()[..7].to_string(), Amount::ZERO)
                })
                .collect(),
            ChartKind::Pie => vec![],
        };
        for (at, group, amount) in debits {
            let label = match kind {
                ChartKind::Bar => at.gmt()[..7].to_string(),
                ChartKind::Pie => group,
            };
            match slices.iter_mut().find(|(l, _)| *l == label) {
                Some((_, total)) => *total = total.checked_add(amount).unwrap_or(Amount::MAX),
                None => slices.push((label, amount)),
            }
        }
        if kind == ChartKind::Pie {
            slices.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        Ok(SpendingChart {
            kind,
            currency: card.currency,
            slices,
        })
    }

    /// The card's approved debits from `from` to `now`: when, the
    /// transaction group, and how much.
    async fn debits_since(
        &self,
        card: &CardRecord,
        from: Timestamp,
        now: Timestamp,
    ) -> Result<Vec<(Timestamp, String, Amount)>, StoreError> {
        let mut debits = vec![];
        for number in 1.. {
            let page = Page { number, size: 100 };
            let (rows, total) = self
                .ports
                .card_transactions
                .history(&card.account_id, card.mode, &card.id, page, Some((from, now)))
                .await?;
            let done = rows.is_empty() || u64::from(number) * 100 >= total;
            for row in rows {
                let enriched: serde_json::Value = serde_json::from_str(&row.enriched_data).unwrap_or_default();
                let group = enriched["transaction_group"].as_str().unwrap_or("Other").to_string();
                debits.push((row.created_at, group, row.amount));
            }
            if done {
                break;
            }
        }
        Ok(debits)
    }
}

/// A card token's shape: what `generate_token_for_card_details` hands out.
fn check_card_token(token: &str) -> Result<(), PageError> {
    match crate::cards::is_card_token(token) {
        true => Ok(()),
        false => Err(PageError::bad(
            "card_token",
            "is not a card token: ask generate_token_for_card_details for one",
        )),
    }
}

impl From<crate::cards::CardError> for PageError {
    fn from(e: crate::cards::CardError) -> Self {
        match e {
            crate::cards::CardError::Store(e) => PageError::Store(e),
            _ => PageError::Expired,
        }
    }
}

//! Spending controls: what a card may be used for beyond its state, its
//! balance and its monthly limit. A card may have controls of its own, and
//! an account may have controls for every card of a mode; a debit must pass
//! both. Limits count in USD cents, as the monthly limit does (a Naira
//! card's debit at the rate in force), and over windows of the mode's
//! clock: the GMT day, the week from Monday, the calendar month, and the
//! card's whole life.

use crate::{Amount, InvalidInput, Timestamp};
use serde::{Deserialize, Serialize};

/// How a card was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Online,
    Pos,
    Atm,
    Contactless,
}

impl Channel {
    pub const NAMES: [&'static str; 4] = ["online", "pos", "atm", "contactless"];

    pub fn parse(field: &str, name: &str) -> Result<Self, InvalidInput> {
        match name {
            "online" => Ok(Channel::Online),
            "pos" => Ok(Channel::Pos),
            "atm" => Ok(Channel::Atm),
            "contactless" => Ok(Channel::Contactless),
            _ => Err(InvalidInput::new(
                field,
                format!("must be one of {}", Self::NAMES.join(", ")),
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// A merchant's country: an ISO 3166-1 alpha-2 code, upper case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Country([u8; 2]);

impl Country {
    /// An assigned ISO 3166-1 alpha-2 code (rust_iso3166's list), in
    /// either case: what a spending control may name. `XX` is two letters
    /// but no country.
    pub fn parse_assigned(field: &str, code: &str) -> Result<Self, InvalidInput> {
        let country = Country::parse(field, code)?;
        match rust_iso3166::from_alpha2(country.as_str()) {
            Some(_) => Ok(country),
            None => Err(InvalidInput::new(
                field,
                "must be an assigned ISO 3166-1 alpha-2 country code, such as NG",
            )),
        }
    }

    /// Every assigned code, upper case.
    pub fn assigned() -> impl Iterator<Item = &'static str> {
        rust_iso3166::ALL_ALPHA2.iter().copied()
    }

    /// Two ASCII letters, in either case (`ng` is `NG`): the form a
    /// network's merchant country and a stored control take (controls
    /// stored before assigned codes were required still read).
    pub fn parse(field: &str, code: &str) -> Result<Self, InvalidInput> {
        match code.as_bytes() {
            [a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
                Ok(Country([a.to_ascii_uppercase(), b.to_ascii_uppercase()]))
            }
            _ => Err(InvalidInput::new(
                field,
                "must be an ISO 3166-1 alpha-2 country code: two letters, such as NG",
            )),
        }
    }

    pub fn as_str(&self) -> &str {
        // Two ASCII letters by construction.
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl TryFrom<String> for Country {
    type Error = String;
    fn try_from(code: String) -> Result<Self, String> {
        Country::parse("country", &code).map_err(|e| e.rule)
    }
}

impl From<Country> for String {
    fn from(c: Country) -> String {
        c.as_str().to_string()
    }
}

/// A merchant category: an ISO 18245 merchant category code (four digits)
/// or one of the named groups of the merchant catalogue (`Lodging`,
/// `Transportation`, ...), spelled as the catalogue spells it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Category {
    Code(String),
    Group(String),
}

impl Category {
    /// Four digits are a code; anything else names a group, which the
    /// caller checks against the catalogue.
    pub fn of(text: &str) -> Self {
        match text.len() == 4 && text.bytes().all(|b| b.is_ascii_digit()) {
            true => Category::Code(text.to_string()),
            false => Category::Group(text.to_string()),
        }
    }

    fn matches(&self, merchant: &Merchant<'_>) -> bool {
        match self {
            Category::Code(code) => merchant.category_code == Some(code.as_str()),
            Category::Group(group) => merchant.group == Some(group.as_str()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Category::Code(s) | Category::Group(s) => s,
        }
    }
}

impl From<String> for Category {
    fn from(text: String) -> Self {
        Category::of(&text)
    }
}

impl From<Category> for String {
    fn from(c: Category) -> String {
        match c {
            Category::Code(s) | Category::Group(s) => s,
        }
    }
}

/// Amount limits, in USD cents; `None`: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    #[serde(with = "minor")]
    pub per_authorization: Option<Amount>,
    #[serde(with = "minor")]
    pub daily: Option<Amount>,
    #[serde(with = "minor")]
    pub weekly: Option<Amount>,
    #[serde(with = "minor")]
    pub monthly: Option<Amount>,
    #[serde(with = "minor")]
    pub lifetime: Option<Amount>,
}

/// A card's or an account's spending controls. `None` in an `allowed_`
/// list: anything is allowed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpendingControls {
    pub allowed_categories: Option<Vec<Category>>,
    pub blocked_categories: Vec<Category>,
    pub allowed_channels: Option<Vec<Channel>>,
    pub allowed_countries: Option<Vec<Country>>,
    pub limits: Limits,
}

/// Which control refused a debit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Category,
    Channel,
    Country,
    PerAuthorization,
    Daily,
    Weekly,
    Monthly,
    Lifetime,
}

/// The most entries a control list may hold.
pub const MAX_LIST: usize = 100;

impl SpendingControls {
    /// Checks the lists' shapes: an `allowed_` list names at least one
    /// entry (leave it out to allow all), no list holds more than
    /// [`MAX_LIST`], and categories are allowed or blocked, not both.
    pub fn validate(self) -> Result<Self, InvalidInput> {
        fn sized<T>(field: &str, list: Option<&Vec<T>>) -> Result<(), InvalidInput> {
            match list.map(Vec::len) {
                Some(0) => Err(InvalidInput::new(
                    field,
                    "must name at least one entry: leave it out (or null) to allow all",
                )),
                Some(n) if n > MAX_LIST => Err(InvalidInput::new(
                    field,
                    format!("must hold at most {MAX_LIST} entries"),
                )),
                _ => Ok(()),
            }
        }
        sized("allowed_categories", self.allowed_categories.as_ref())?;
        sized("allowed_channels", self.allowed_channels.as_ref())?;
        sized("allowed_countries", self.allowed_countries.as_ref())?;
        if self.blocked_categories.len() > MAX_LIST {
            let rule = format!("must hold at most {MAX_LIST} entries");
            return Err(InvalidInput::new("blocked_categories", rule));
        }
        if self.allowed_categories.is_some() && !self.blocked_categories.is_empty() {
            return Err(InvalidInput::new(
                "blocked_categories",
                "cannot be set together with allowed_categories: allow some, or block some",
            ));
        }
        Ok(self)
    }

    /// The control that refuses `debit` (of `counts` USD cents) with
    /// `spent` before it in each window, if one does. An unknown category,
    /// channel or country passes a blocked list and fails an allowed one.
    ///
    /// An increment of an authorization that already counts `raises`
    /// (what its hold took so far) is held to the per-authorization limit
    /// with it; the network does not send an increment's channel and
    /// country again, so the authorization's passing them stands.
    pub fn refusal(
        &self,
        debit: &Merchant<'_>,
        counts: Amount,
        spent: &Spent,
        raises: Option<Amount>,
    ) -> Option<Control> {
        let any = |list: &[Category]| list.iter().any(|c| c.matches(debit));
        if any(&self.blocked_categories) || self.allowed_categories.as_deref().is_some_and(|l| !any(l)) {
            return Some(Control::Category);
        }
        let allowed = |list: Option<&[Channel]>| list.is_none_or(|l| debit.channel.is_some_and(|c| l.contains(&c)));
        if raises.is_none() && !allowed(self.allowed_channels.as_deref()) {
            return Some(Control::Channel);
        }
        let countries = self.allowed_countries.as_deref();
        if raises.is_none() && !countries.is_none_or(|l| debit.country.is_some_and(|c| l.contains(&c))) {
            return Some(Control::Country);
        }
        let l = &self.limits;
        let counts = counts.minor();
        let over =
            |limit: Option<Amount>, before: i64| limit.is_some_and(|l| before.saturating_add(counts) > l.minor());
        [
            (
                l.per_authorization,
                raises.map_or(0, Amount::minor),
                Control::PerAuthorization,
            ),
            (l.daily, spent.day, Control::Daily),
            (l.weekly, spent.week, Control::Weekly),
            (l.monthly, spent.month, Control::Monthly),
            (l.lifetime, spent.lifetime, Control::Lifetime),
        ]
        .into_iter()
        .find(|(limit, before, _)| over(*limit, *before))
        .map(|(_, _, control)| control)
    }
}

/// What the controls know of the merchant and the way the card was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Merchant<'a> {
    /// The network's merchant category code.
    pub category_code: Option<&'a str>,
    /// The catalogue's group of that code.
    pub group: Option<&'a str>,
    pub channel: Option<Channel>,
    pub country: Option<Country>,
}

/// Approved spend before a debit, in USD cents, in each window of its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spent {
    pub day: i64,
    pub week: i64,
    pub month: i64,
    pub lifetime: i64,
}

/// The windows a time falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowKeys {
    /// Days since 1970-01-01, GMT.
    pub day: i32,
    /// Weeks since the Monday before 1970-01-01 (a Thursday).
    pub week: i32,
    /// `Timestamp::month_key`.
    pub month: i32,
}

impl WindowKeys {
    pub fn of(at: Timestamp) -> Self {
        let day = at.unix().div_euclid(86_400);
        let day = i32::try_from(day).unwrap_or(i32::MAX);
        Self {
            day,
            week: day.saturating_add(3).div_euclid(7),
            month: at.month_key(),
        }
    }
}

/// One window's approved spend as the card keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    /// The window `spend` counts.
    pub key: i32,
    pub spend: i64,
}

/// A card's approved spend by window, as it keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Windows {
    pub day: Window,
    pub week: Window,
    pub month: Window,
    pub lifetime: i64,
}

impl Windows {
    /// The windows a debit made at `at` counts in, and what they hold
    /// before it. A time in a window before the card's (a process that read
    /// its clock first, decided after a later one) counts in the card's
    /// window: a window never moves back, so a later one's spend is never
    /// dropped.
    pub fn at(&self, at: WindowKeys) -> (WindowKeys, Spent) {
        let key = |w: Window, k: i32| k.max(w.key);
        let keys = WindowKeys {
            day: key(self.day, at.day),
            week: key(self.week, at.week),
            month: key(self.month, at.month),
        };
        let spend = |w: Window, k: i32| if w.key == k { w.spend } else { 0 };
        let spent = Spent {
            day: spend(self.day, keys.day),
            week: spend(self.week, keys.week),
            month: spend(self.month, keys.month),
            lifetime: self.lifetime,
        };
        (keys, spent)
    }

    /// Counts an approval of `counts` USD cents made at `at`. Approvals
    /// pass the limits, so the sums stay small; saturating keeps them total.
    pub fn add(&mut self, at: WindowKeys, counts: Amount) {
        let (keys, spent) = self.at(at);
        let plus = |s: i64| s.saturating_add(counts.minor());
        self.day = Window {
            key: keys.day,
            spend: plus(spent.day),
        };
        self.week = Window {
            key: keys.week,
            spend: plus(spent.week),
        };
        self.month = Window {
            key: keys.month,
            spend: plus(spent.month),
        };
        self.lifetime = plus(spent.lifetime);
    }
}

/// Optional amounts as whole minor units in storage.
mod minor {
    use crate::Amount;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(amount: &Option<Amount>, s: S) -> Result<S::Ok, S::Error> {
        match amount {
            Some(a) => s.serialize_some(&a.minor()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Amount>, D::Error> {
        Option::<i64>::deserialize(d)?
            .map(|m| Amount::from_minor(m).ok_or_else(|| serde::de::Error::custom("an amount out of range")))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cents(c: i64) -> Amount {
        Amount::from_minor(c).unwrap()
    }

    const GROCERY: Merchant<'static> = Merchant {
        category_code: Some("5411"),
        group: Some("Retail outlets"),
        channel: Some(Channel::Pos),
        country: Some(Country(*b"NG")),
    };

    #[test]
    fn each_control_refuses_with_its_name() {
        let nothing = Spent::default();
        let refuse =
            |c: SpendingControls, m: Merchant, amount: i64, spent: Spent| c.refusal(&m, cents(amount), &spent, None);
        assert_eq!(refuse(SpendingControls::default(), GROCERY, 1, nothing), None);
        let blocked = SpendingControls {
            blocked_categories: vec![Category::of("Retail outlets")],
            ..Default::default()
        };
        assert_eq!(refuse(blocked.clone(), GROCERY, 1, nothing), Some(Control::Category));
        let other = Merchant {
            category_code: Some("4121"),
            group: Some("Transportation"),
            ..GROCERY
        };
        assert_eq!(refuse(blocked, other, 1, nothing), None);
        let allowed = SpendingControls {
            allowed_categories: Some(vec![Category::of("4121")]),
            ..Default::default()
        };
        assert_eq!(refuse(allowed.clone(), other, 1, nothing), None);
        assert_eq!(refuse(allowed.clone(), GROCERY, 1, nothing), Some(Control::Category));
        let unknown = Merchant::default();
        assert_eq!(refuse(allowed, unknown, 1, nothing), Some(Control::Category));
        let online_only = SpendingControls {
            allowed_channels: Some(vec![Channel::Online]),
            ..Default::default()
        };
        assert_eq!(refuse(online_only.clone(), GROCERY, 1, nothing), Some(Control::Channel));
        assert_eq!(refuse(online_only, unknown, 1, nothing), Some(Control::Channel));
        let ghana = SpendingControls {
            allowed_countries: Some(vec![Country::parse("c", "gh").unwrap()]),
            ..Default::default()
        };
        assert_eq!(refuse(ghana, GROCERY, 1, nothing), Some(Control::Country));
        let limits = |l: Limits| SpendingControls {
            limits: l,
            ..Default::default()
        };
        let per = limits(Limits {
            per_authorization: Some(cents(500)),
            ..Default::default()
        });
        assert_eq!(refuse(per.clone(), GROCERY, 500, nothing), None);
        assert_eq!(
            refuse(per.clone(), GROCERY, 501, nothing),
            Some(Control::PerAuthorization)
        );
        // An increment counts with what its authorization holds, and is
        // not asked again for the channel and country it does not carry.
        let raise = |c: &SpendingControls, amount, held| {
            c.refusal(&Merchant::default(), cents(amount), &nothing, Some(cents(held)))
        };
        assert_eq!(raise(&per, 100, 400), None);
        assert_eq!(raise(&per, 101, 400), Some(Control::PerAuthorization));
        let pos_in_nigeria = SpendingControls {
            allowed_channels: Some(vec![Channel::Pos]),
            allowed_countries: Some(vec![Country(*b"NG")]),
            ..Default::default()
        };
        assert_eq!(raise(&pos_in_nigeria, 1, 1), None);
        let all = limits(Limits {
            daily: Some(cents(100)),
            weekly: Some(cents(200)),
            monthly: Some(cents(300)),
            lifetime: Some(cents(400)),
            ..Default::default()
        });
        let spent = |day, week, month, lifetime| Spent {
            day,
            week,
            month,
            lifetime,
        };
        assert_eq!(refuse(all.clone(), GROCERY, 100, nothing), None);
        assert_eq!(
            refuse(all.clone(), GROCERY, 1, spent(100, 100, 100, 100)),
            Some(Control::Daily)
        );
        assert_eq!(
            refuse(all.clone(), GROCERY, 1, spent(0, 200, 200, 200)),
            Some(Control::Weekly)
        );
        assert_eq!(
            refuse(all.clone(), GROCERY, 1, spent(0, 0, 300, 300)),
            Some(Control::Monthly)
        );
        assert_eq!(refuse(all, GROCERY, 1, spent(0, 0, 0, 400)), Some(Control::Lifetime));
    }

    #[test]
    fn lists_are_checked_for_shape() {
        let empty = SpendingControls {
            allowed_countries: Some(vec![]),
            ..Default::default()
        };
        assert_eq!(empty.validate().unwrap_err().field, "allowed_countries");
        let both = SpendingControls {
            allowed_categories: Some(vec![Category::of("5411")]),
            blocked_categories: vec![Category::of("5812")],
            ..Default::default()
        };
        assert_eq!(both.validate().unwrap_err().field, "blocked_categories");
        let long = SpendingControls {
            blocked_categories: vec![Category::of("5411"); MAX_LIST + 1],
            ..Default::default()
        };
        assert!(long.validate().unwrap_err().rule.contains("at most 100"));
        assert!(Country::parse("c", "NGA").is_err() && Country::parse("c", "N1").is_err());
        assert!(Country::parse("c", "ÑG").is_err());
        // Two letters name a country only when assigned; a stored control
        // of unassigned letters still reads.
        assert_eq!(Country::parse_assigned("c", "gh").unwrap().as_str(), "GH");
        let unassigned = Country::parse_assigned("allowed_countries[0]", "XX").unwrap_err();
        assert!(unassigned.rule.contains("assigned ISO 3166-1"), "{}", unassigned.rule);
        assert!(Country::parse_assigned("c", "N1").is_err());
        let stored: Country = serde_json::from_str(r#""XX""#).unwrap();
        assert_eq!(stored.as_str(), "XX");
        assert_eq!(Channel::parse("c", "atm").unwrap().as_str(), "atm");
        assert!(Channel::parse("c", "ATM").is_err());
    }

    #[test]
    fn controls_keep_their_form_in_storage() {
        let c = SpendingControls {
            allowed_categories: Some(vec![Category::of("5411"), Category::of("Lodging")]),
            allowed_channels: Some(vec![Channel::Contactless]),
            allowed_countries: Some(vec![Country::parse("c", "ke").unwrap()]),
            limits: Limits {
                daily: Some(Amount::MAX),
                ..Default::default()
            },
            ..Default::default()
        };
        let stored = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<SpendingControls>(&stored).unwrap(), c);
        assert!(stored.contains(r#""allowed_countries":["KE"]"#), "{stored}");
        let out_of_range = stored.replace("1000000000000000", "1000000000000001");
        assert!(serde_json::from_str::<SpendingControls>(&out_of_range).is_err());
    }

    #[test]
    fn windows_follow_the_clock() {
        // 2026-11-22 was a Sunday; the 23rd a Monday.
        let sunday = WindowKeys::of(Timestamp::from_unix(1_795_305_600 + 3_600));
        let monday = WindowKeys::of(Timestamp::from_unix(1_795_305_600 + 86_400));
        assert_eq!(monday.day, sunday.day + 1);
        assert_eq!(monday.week, sunday.week + 1, "a week starts on Monday");
        let mut w = Windows::default();
        w.add(sunday, cents(70));
        assert_eq!(
            w.at(sunday).1,
            Spent {
                day: 70,
                week: 70,
                month: 70,
                lifetime: 70
            }
        );
        assert_eq!(
            w.at(monday).1,
            Spent {
                day: 0,
                week: 0,
                month: 70,
                lifetime: 70
            }
        );
        w.add(monday, cents(5));
        // A debit timed before the card's windows counts in them.
        assert_eq!(
            w.at(sunday).1,
            Spent {
                day: 5,
                week: 5,
                month: 75,
                lifetime: 75
            }
        );
    }

    proptest! {
        /// Approving only what the controls pass, no window ever holds
        /// more than its limit, whatever the order of times and amounts.
        #[test]
        fn approvals_never_pass_a_limit(
            limits in prop::array::uniform4(1i64..5_000),
            debits in prop::collection::vec((1i64..3_000, 0i64..40 * 86_400), 0..60),
        ) {
            let c = SpendingControls {
                limits: Limits {
                    daily: Some(cents(limits[0])),
                    weekly: Some(cents(limits[1])),
                    monthly: Some(cents(limits[2])),
                    lifetime: Some(cents(limits[3])),
                    ..Default::default()
                },
                ..Default::default()
            };
            let start = 1_795_305_600;
            let mut w = Windows::default();
            for (amount, offset) in debits {
                let at = WindowKeys::of(Timestamp::from_unix(start + offset));
                let (_, spent) = w.at(at);
                if c.refusal(&GROCERY, cents(amount), &spent, None).is_none() {
                    w.add(at, cents(amount));
                }
                let (_, now) = w.at(at);
                prop_assert!(now.day <= limits[0] && now.week <= limits[1]);
                prop_assert!(now.month <= limits[2] && now.lifetime <= limits[3]);
            }
        }
    }
}

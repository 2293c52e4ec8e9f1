//! The rewards catalogue: the promo codes and deals rewards are drawn
//! from, with the rules an operator's catalogue must keep. Where each item
//! came from (a JSON path, a CSV line) is the reader's business: an error
//! says which item and field broke which rule.

use crate::text::plain;
use crate::{InvalidInput, Timestamp, http_url};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromoCode {
    pub id: String,
    pub coupon_code: String,
    /// A merchant of the merchant catalogue, by name.
    pub merchant: String,
    pub description: String,
    /// The last day it can be used (GMT), `YYYY-MM-DD`.
    pub valid_till: String,
    /// How often it worked, in percent.
    pub success_record: u8,
    pub upvotes: u32,
    pub downvotes: u32,
    pub product_link: String,
}

/// One of a deal's products, and the promo code choosing it gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Product {
    pub name: String,
    pub promo_code: PromoCode,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    pub id: String,
    pub merchant: String,
    pub description: String,
    pub products: Vec<Product>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    #[serde(default)]
    pub promo_codes: Vec<PromoCode>,
    #[serde(default)]
    pub deals: Vec<Deal>,
}

/// Which item of a catalogue an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    PromoCode(usize),
    Deal(usize),
    /// A deal's product: the deal, then the product.
    Product(usize, usize),
    /// The catalogue as a whole.
    Whole,
}

/// A rule an item of a catalogue breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogueError {
    pub item: Item,
    pub problem: InvalidInput,
}

/// The most products a deal may offer: a phone screen's list.
pub const MAX_PRODUCTS: usize = 20;

fn id(field: &str, value: &str) -> Result<(), InvalidInput> {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    if value.is_empty() || value.len() > 64 || !value.bytes().all(allowed) {
        return Err(InvalidInput::new(field, "must be 1 to 64 letters, digits, '_' or '-'"));
    }
    Ok(())
}

/// The end of a `YYYY-MM-DD` day, GMT: exactly that shape (chrono's
/// parser alone also takes a sign and more digits).
fn end_of_day(field: &str, value: &str) -> Result<Timestamp, InvalidInput> {
    let rule = || InvalidInput::new(field, "must be a date as YYYY-MM-DD");
    let shape = value.len() == 10
        && value.bytes().enumerate().all(|(n, b)| {
            if n == 4 || n == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !shape {
        return Err(rule());
    }
    let day = NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|_| rule())?;
    let end = day.and_hms_opt(23, 59, 59).unwrap_or_default().and_utc().timestamp();
    Ok(Timestamp::from_unix(end))
}

impl PromoCode {
    /// The last second it can be used.
    pub fn valid_till(&self) -> Timestamp {
        end_of_day("valid_till", &self.valid_till).unwrap_or(Timestamp::from_unix(0))
    }

    /// `dd/mm/yyyy`, as the contract shows it.
    pub fn valid_till_date(&self) -> String {
        NaiveDate::parse_from_str(&self.valid_till, "%Y-%m-%d")
            .map(|d| d.format("%d/%m/%Y").to_string())
            .unwrap_or_default()
    }

    pub fn is_available(&self, now: Timestamp) -> bool {
        now <= self.valid_till()
    }

    fn check(&self, known_merchant: &dyn Fn(&str) -> bool) -> Result<(), InvalidInput> {
        id("id", &self.id)?;
        let coupon = &self.coupon_code;
        if coupon.is_empty() || coupon.len() > 40 || !coupon.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(InvalidInput::new(
                "coupon_code",
                "must be 1 to 40 printable characters without spaces",
            ));
        }
        if !known_merchant(&self.merchant) {
            return Err(InvalidInput::new(
                "merchant",
                "must be a merchant of the merchant catalogue",
            ));
        }
        plain("description", &self.description, 300)?;
        end_of_day("valid_till", &self.valid_till)?;
        if self.success_record > 100 {
            return Err(InvalidInput::new("success_record", "must be a percentage, 0 to 100"));
        }
        http_url::parse("product_link", &self.product_link)?;
        Ok(())
    }
}

impl Deal {
    fn check(&self, known_merchant: &dyn Fn(&str) -> bool) -> Result<(), CatalogueError> {
        let whole = |problem| CatalogueError {
            item: Item::Whole,
            problem,
        };
        id("id", &self.id).map_err(whole)?;
        if !known_merchant(&self.merchant) {
            let problem = InvalidInput::new("merchant", "must be a merchant of the merchant catalogue");
            return Err(whole(problem));
        }
        plain("description", &self.description, 300).map_err(whole)?;
        if self.products.is_empty() || self.products.len() > MAX_PRODUCTS {
            let rule = format!("must list 1 to {MAX_PRODUCTS} products");
            return Err(whole(InvalidInput::new("products", rule)));
        }
        let mut names = HashSet::new();
        for (n, product) in self.products.iter().enumerate() {
            let at = |problem| CatalogueError {
                item: Item::Product(0, n),
                problem,
            };
            plain("name", &product.name, 100).map_err(at)?;
            if !names.insert(product.name.as_str()) {
                return Err(at(InvalidInput::new(
                    "name",
                    "must differ from the deal's other products",
                )));
            }
            product.promo_code.check(known_merchant).map_err(at)?;
            if product.promo_code.merchant != self.merchant {
                return Err(at(InvalidInput::new("merchant", "must be the deal's merchant")));
            }
        }
        Ok(())
    }
}

impl Catalogue {
    /// Checks every rule: ids unique across promo codes, deals and
    /// products; merchants known (`known_merchant`); texts, dates,
    /// percentages and links well formed; a deal's products its
    /// merchant's; at least one reward in all.
    pub fn validate(&self, known_merchant: impl Fn(&str) -> bool) -> Result<(), CatalogueError> {
        let known: &dyn Fn(&str) -> bool = &known_merchant;
        if self.promo_codes.is_empty() && self.deals.is_empty() {
            let problem = InvalidInput::new("catalogue", "must hold at least one promo code or deal");
            return Err(CatalogueError {
                item: Item::Whole,
                problem,
            });
        }
        let mut ids = HashSet::new();
        let mut unique = |id: &str, item: Item| match ids.insert(id.to_string()) {
            true => Ok(()),
            false => Err(CatalogueError {
                item,
                problem: InvalidInput::new("id", format!("{id} is used twice")),
            }),
        };
        for (n, promo) in self.promo_codes.iter().enumerate() {
            let item = Item::PromoCode(n);
            promo.check(known).map_err(|problem| CatalogueError { item, problem })?;
            unique(&promo.id, item)?;
        }
        for (n, deal) in self.deals.iter().enumerate() {
            deal.check(known).map_err(|e| CatalogueError {
                item: match e.item {
                    Item::Product(_, p) => Item::Product(n, p),
                    _ => Item::Deal(n),
                },
                problem: e.problem,
            })?;
            unique(&deal.id, Item::Deal(n))?;
            for (p, product) in deal.products.iter().enumerate() {
                unique(&product.promo_code.id, Item::Product(n, p))?;
            }
        }
        Ok(())
    }

    /// A reward drawn with a uniform `fraction` in `[0, 1)` from the deals
    /// and the promo codes still available at `now`; `None` when there is
    /// none.
    pub fn draw(&self, fraction: f64, now: Timestamp) -> Option<super::Reward> {
        let promos: Vec<&PromoCode> = self.promo_codes.iter().filter(|p| p.is_available(now)).collect();
        let count = promos.len() + self.deals.len();
        if count == 0 {
            return None;
        }
        let pick = ((fraction.clamp(0.0, 1.0) * count as f64) as usize).min(count - 1);
        Some(match promos.get(pick) {
            Some(promo) => super::Reward::PromoCode((*promo).clone()),
            None => super::Reward::Deal(self.deals[pick - promos.len()].clone()),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn promo(id: &str, merchant: &str) -> PromoCode {
        PromoCode {
            id: id.into(),
            coupon_code: format!("CODE-{id}"),
            merchant: merchant.into(),
            description: "10% off".into(),
            valid_till: "2027-01-31".into(),
            success_record: 87,
            upvotes: 12,
            downvotes: 1,
            product_link: "https://www.jumia.com.ng/".into(),
        }
    }

    pub(crate) fn example() -> Catalogue {
        Catalogue {
            promo_codes: vec![promo("promo_1", "Jumia")],
            deals: vec![Deal {
                id: "deal_1".into(),
                merchant: "Jumia".into(),
                description: "Pick a gadget".into(),
                products: vec![
                    Product {
                        name: "Headphones".into(),
                        promo_code: promo("promo_h", "Jumia"),
                    },
                    Product {
                        name: "Power bank".into(),
                        promo_code: promo("promo_p", "Jumia"),
                    },
                ],
            }],
        }
    }

    fn known(name: &str) -> bool {
        name == "Jumia"
    }

    #[test]
    fn a_well_formed_catalogue_passes() {
        assert_eq!(example().validate(known), Ok(()));
    }

    #[test]
    fn each_broken_rule_names_its_item_and_field() {
        type Break = Box<dyn Fn(&mut Catalogue)>;
        let cases: Vec<(Break, Item, &str)> = vec![
            (
                Box::new(|c| c.promo_codes[0].merchant = "Nobody".into()),
                Item::PromoCode(0),
                "merchant",
            ),
            (
                Box::new(|c| c.promo_codes[0].valid_till = "31/01/2027".into()),
                Item::PromoCode(0),
                "valid_till",
            ),
            (
                Box::new(|c| c.promo_codes[0].valid_till = "+12027-12-31".into()),
                Item::PromoCode(0),
                "valid_till",
            ),
            (
                Box::new(|c| c.promo_codes[0].valid_till = "2027-02-30".into()),
                Item::PromoCode(0),
                "valid_till",
            ),
            (
                Box::new(|c| c.promo_codes[0].success_record = 101),
                Item::PromoCode(0),
                "success_record",
            ),
            (
                Box::new(|c| c.promo_codes[0].product_link = "ftp://x".into()),
                Item::PromoCode(0),
                "product_link",
            ),
            (
                Box::new(|c| c.promo_codes[0].coupon_code = "A B".into()),
                Item::PromoCode(0),
                "coupon_code",
            ),
            (
                Box::new(|c| c.promo_codes[0].description = "a\0b".into()),
                Item::PromoCode(0),
                "description",
            ),
            (Box::new(|c| c.deals[0].id = "promo_1".into()), Item::Deal(0), "id"),
            (Box::new(|c| c.deals[0].products.clear()), Item::Deal(0), "products"),
            (
                Box::new(|c| c.deals[0].products[1].name = "Headphones".into()),
                Item::Product(0, 1),
                "name",
            ),
            (
                Box::new(|c| c.deals[0].products[1].promo_code.id = "promo_1".into()),
                Item::Product(0, 1),
                "id",
            ),
            (
                Box::new(|c| c.deals[0].products[0].promo_code.id = "".into()),
                Item::Product(0, 0),
                "id",
            ),
            (Box::new(|c| *c = Catalogue::default()), Item::Whole, "catalogue"),
        ];
        for (n, (breaks, item, field)) in cases.into_iter().enumerate() {
            let mut catalogue = example();
            breaks(&mut catalogue);
            let error = catalogue.validate(known).unwrap_err();
            assert_eq!((error.item, error.problem.field.as_str()), (item, field), "case {n}");
        }
    }

    #[test]
    fn dates_show_as_the_contract_shows_them_and_expire_after_their_day() {
        let p = promo("p", "Jumia");
        assert_eq!(p.valid_till_date(), "31/01/2027");
        let end = p.valid_till();
        assert!(p.is_available(end) && !p.is_available(end.plus(1)));
    }

    proptest! {
        #[test]
        fn a_draw_is_an_available_reward_of_the_catalogue(fraction in 0.0f64..1.0, expired in any::<bool>()) {
            let mut catalogue = example();
            let now = catalogue.promo_codes[0].valid_till().plus(if expired { 1 } else { 0 });
            catalogue.promo_codes.push(promo("promo_2", "Jumia"));
            let drawn = catalogue.draw(fraction, now).unwrap();
            match &drawn {
                super::super::Reward::PromoCode(p) => {
                    prop_assert!(!expired && catalogue.promo_codes.contains(p));
                }
                super::super::Reward::Deal(d) => prop_assert_eq!(d, &catalogue.deals[0]),
            }
        }
    }

    #[test]
    fn nothing_to_draw_from_an_expired_catalogue_without_deals() {
        let mut catalogue = example();
        catalogue.deals.clear();
        let after = catalogue.promo_codes[0].valid_till().plus(1);
        assert_eq!(catalogue.draw(0.5, after), None);
    }
}

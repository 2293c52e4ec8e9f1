//! The rewards catalogue as files: the shipped one (`data/rewards.json`)
//! and an operator's, JSON in the same shape or CSV, for
//! `issuing rewards import`. A file that breaks a rule is refused whole,
//! with the place (JSON path, or CSV line) and the rule.
//!
//! CSV: a header, then one row per promo code, deal or deal product:
//! `type,id,merchant,description,coupon_code,valid_till,success_record,upvotes,downvotes,product_link,deal_id,product`
//! where `type` is `PROMO_CODE`, `DEAL` (id, merchant, description only)
//! or `PRODUCT` (a promo code with the `deal_id` it belongs to and the
//! `product` name it is chosen by).

use domain::rewards::catalogue::{CatalogueError, Item};
use domain::rewards::{Catalogue, Deal, Product, PromoCode};
use std::path::Path;

/// The catalogue shipped with the service.
pub fn shipped() -> Catalogue {
    serde_json::from_str(include_str!("../data/rewards.json")).expect("the shipped rewards catalogue is valid JSON")
}

/// Reads and validates the catalogue in `path` (`.json` or `.csv`);
/// `known_merchant` says which merchant names the merchant catalogue has.
pub fn read(path: &Path, known_merchant: impl Fn(&str) -> bool) -> Result<Catalogue, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => from_json(&text, known_merchant),
        Some("csv") => from_csv(&text, known_merchant),
        _ => Err(format!("{}: the file must end in .json or .csv", path.display())),
    }
}

pub fn from_json(text: &str, known_merchant: impl Fn(&str) -> bool) -> Result<Catalogue, String> {
    let catalogue: Catalogue =
        serde_json::from_str(text).map_err(|e| format!("line {}, column {}: {e}", e.line(), e.column()))?;
    catalogue.validate(known_merchant).map_err(|e| {
        let at = match e.item {
            Item::PromoCode(n) => format!("promo_codes[{n}]."),
            Item::Deal(n) => format!("deals[{n}]."),
            Item::Product(d, p) => format!("deals[{d}].products[{p}]."),
            Item::Whole => String::new(),
        };
        format!("{at}{}", e.problem)
    })?;
    Ok(catalogue)
}

const COLUMNS: [&str; 12] = [
    "type",
    "id",
    "merchant",
    "description",
    "coupon_code",
    "valid_till",
    "success_record",
    "upvotes",
    "downvotes",
    "product_link",
    "deal_id",
    "product",
];

pub fn from_csv(text: &str, known_merchant: impl Fn(&str) -> bool) -> Result<Catalogue, String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| format!("line 1: {e}"))?.clone();
    if header.iter().collect::<Vec<_>>() != COLUMNS {
        return Err(format!("line 1: the header must be {}", COLUMNS.join(",")));
    }
    let mut catalogue = Catalogue::default();
    // The line each promo code, deal and product came from.
    let (mut promo_lines, mut deal_lines, mut product_lines) = (vec![], vec![], vec![]);
    for row in reader.records() {
        let row = row.map_err(|e| format!("line {}: {e}", e.position().map_or(0, |p| p.line())))?;
        let line = row.position().map_or(0, |p| p.line());
        let at = |rule: String| format!("line {line}: {rule}");
        let field = |name: &str| {
            row.get(COLUMNS.iter().position(|c| *c == name).unwrap_or(0))
                .unwrap_or("")
        };
        let number = |name: &str| {
            field(name)
                .parse::<u32>()
                .map_err(|_| at(format!("{name}: must be a whole number")))
        };
        let promo = || -> Result<PromoCode, String> {
            Ok(PromoCode {
                id: field("id").into(),
                coupon_code: field("coupon_code").into(),
                merchant: field("merchant").into(),
                description: field("description").into(),
                valid_till: field("valid_till").into(),
                success_record: u8::try_from(number("success_record")?)
                    .map_err(|_| at("success_record: must be a percentage, 0 to 100".into()))?,
                upvotes: number("upvotes")?,
                downvotes: number("downvotes")?,
                product_link: field("product_link").into(),
            })
        };
        match field("type") {
            "PROMO_CODE" => {
                catalogue.promo_codes.push(promo()?);
                promo_lines.push(line);
            }
            "DEAL" => {
                catalogue.deals.push(Deal {
                    id: field("id").into(),
                    merchant: field("merchant").into(),
                    description: field("description").into(),
                    products: vec![],
                });
                deal_lines.push(line);
                product_lines.push(vec![]);
            }
            "PRODUCT" => {
                let deal = catalogue
                    .deals
                    .iter()
                    .position(|d| d.id == field("deal_id"))
                    .ok_or_else(|| at("deal_id: must be the id of a DEAL row above".into()))?;
                catalogue.deals[deal].products.push(Product {
                    name: field("product").into(),
                    promo_code: promo()?,
                });
                product_lines[deal].push(line);
            }
            _ => return Err(at("type: must be PROMO_CODE, DEAL or PRODUCT".into())),
        }
    }
    catalogue
        .validate(known_merchant)
        .map_err(|CatalogueError { item, problem }| {
            let line = match item {
                Item::PromoCode(n) => promo_lines.get(n).copied(),
                Item::Deal(n) => deal_lines.get(n).copied(),
                Item::Product(d, p) => product_lines.get(d).and_then(|l: &Vec<u64>| l.get(p)).copied(),
                Item::Whole => None,
            };
            match line {
                Some(line) => format!("line {line}: {problem}"),
                None => problem.to_string(),
            }
        })?;
    Ok(catalogue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merchant_catalogue::ShippedCatalogue;
    use ports::merchants::MerchantCatalogue;

    fn known(name: &str) -> bool {
        ShippedCatalogue::load().knows(name)
    }

    #[test]
    fn the_shipped_catalogue_keeps_every_rule_with_merchants_of_the_merchant_catalogue() {
        let catalogue = shipped();
        assert_eq!(catalogue.validate(known), Ok(()));
        assert!(catalogue.promo_codes.len() >= 10 && catalogue.deals.len() >= 3);
    }

    const HEADER: &str = "type,id,merchant,description,coupon_code,valid_till,success_record,upvotes,downvotes,product_link,deal_id,product";

    #[test]
    fn a_csv_catalogue_reads_into_promo_codes_and_deals_with_their_products() {
        let text = format!(
            "{HEADER}\n\
             PROMO_CODE,p1,Jumia,\"10% off, today\",J10,2027-12-31,90,5,1,https://www.jumia.com.ng/,,\n\
             DEAL,d1,Konga,Pick one,,,,,,,,\n\
             PRODUCT,p2,Konga,5% off phones,K5,2027-12-31,80,1,0,https://www.konga.com/,d1,Phones\n"
        );
        let catalogue = from_csv(&text, known).unwrap();
        assert_eq!(catalogue.promo_codes[0].description, "10% off, today");
        assert_eq!(catalogue.deals[0].products[0].name, "Phones");
        assert_eq!(catalogue.deals[0].products[0].promo_code.coupon_code, "K5");
    }

    #[test]
    fn csv_errors_name_the_line_and_the_rule() {
        let cases = [
            (
                format!("{HEADER}\nPROMO_CODE,p1,Nobody,x,J,2027-12-31,90,5,1,https://a.b/,,\n"),
                "line 2: merchant:",
            ),
            (
                format!("{HEADER}\nPROMO_CODE,p1,Jumia,x,J,2027-12-31,900,5,1,https://a.b/,,\n"),
                "line 2: success_record:",
            ),
            (
                format!("{HEADER}\nPROMO_CODE,p1,Jumia,x,J,2027-12-31,90,five,1,https://a.b/,,\n"),
                "line 2: upvotes:",
            ),
            (
                format!("{HEADER}\nPRODUCT,p1,Jumia,x,J,2027-12-31,90,5,1,https://a.b/,d9,P\n"),
                "line 2: deal_id:",
            ),
            (
                format!(
                    "{HEADER}\nDEAL,d1,Konga,x,,,,,,,,\nPRODUCT,p2,Konga,y,K,31-12-2027,80,1,0,https://a.b/,d1,P\n"
                ),
                "line 3: valid_till:",
            ),
            (format!("{HEADER}\nDEAL,d1,Konga,x,,,,,,,,\n"), "line 2: products:"),
            (
                format!("{HEADER}\nCOUPON,p1,Jumia,x,J,2027-12-31,90,5,1,https://a.b/,,\n"),
                "line 2: type:",
            ),
            ("type,id\n".to_string(), "line 1: the header"),
            (format!("{HEADER}\n"), "catalogue:"),
        ];
        for (text, start) in cases {
            let error = from_csv(&text, known).unwrap_err();
            assert!(error.starts_with(start), "{start}: {error}");
        }
    }

    #[test]
    fn json_errors_name_the_path_or_the_line() {
        let mut catalogue = shipped();
        catalogue.deals[1].products[0].promo_code.product_link = "javascript:alert(1)".into();
        let error = from_json(&serde_json::to_string(&catalogue).unwrap(), known).unwrap_err();
        assert!(error.starts_with("deals[1].products[0].product_link:"), "{error}");
        let error = from_json("{\n \"promo_codes\": [}", known).unwrap_err();
        assert!(error.starts_with("line 2, column"), "{error}");
        let error = from_json(r#"{"promo_codes": [], "extra": 1}"#, known).unwrap_err();
        assert!(error.contains("unknown field"), "{error}");
    }
}

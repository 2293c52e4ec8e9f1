//! The rule of every request field, stated in the document: what the
//! handlers' types say (a string, an optional integer) is widened by serde
//! to what integrations send, and narrowed here to what the service
//! accepts, so that a request the document calls valid is never refused
//! for its shape (`scripts/fuzz-api` holds the service to that).
//!
//! A field's rule goes by its name, the same wherever it appears (body,
//! query or path); amounts, whose bounds depend on the card's currency,
//! go by operation. A test fails on any field without a rule.

use domain::cards::hold::{TransactionKind, TransactionStatus};
use domain::cards::product::Product;
use domain::cards::spending_controls::{Channel, MAX_LIST};
use domain::ledger::DEFAULT_MAX_WALLET;
use domain::rewards::rules::{MAX_INACTIVITY_DAYS, MAX_MONTHLY_DEBITS};
use domain::{Amount, Currency};
use serde_json::{Value, json};

/// Characters `domain::text::plain` refuses anywhere in free text, as
/// the inside of an ECMA-262 character class: control characters and
/// [`domain::text::INVISIBLE`].
fn misleading() -> String {
    let escape = |c: char| format!("\\u{:04x}", u32::from(c));
    let invisible: String = domain::text::INVISIBLE
        .iter()
        .map(|(low, high)| match low == high {
            true => escape(*low),
            false => format!("{}-{}", escape(*low), escape(*high)),
        })
        .collect();
    format!(r"\x00-\x1f\x7f-\x9f{invisible}")
}

/// What a field of that name accepts.
enum Rule {
    /// An id: any text without control characters; one that names no
    /// record of the caller's is the contract's 400 `*_not_found`.
    Id,
    /// 1 to `max` characters, not all spaces, none misleading.
    Text(usize),
    /// Exactly `n` ASCII digits.
    Digits(usize),
    /// One of these values.
    OneOf(&'static [&'static str]),
    /// A digit string of a number from 1 to `max`.
    WholeUpTo(i64),
    /// An integer from `min` to `max`.
    Range(i64, i64),
    /// Matches this ECMA-262 pattern (and is at most `max` characters).
    Pattern(&'static str, usize),
    /// An assigned ISO 3166-1 alpha-2 code, in either case.
    AssignedCountry,
    /// A list of at least `min` and at most [`MAX_LIST`] entries, each
    /// by its rule.
    List(&'static Rule, usize),
    /// The handler's type states it whole (booleans, objects, bounded
    /// integers, amounts bounded by operation).
    Typed,
}

/// A category as the document states it: a merchant category code (the
/// catalogue's group names are taken too, as docs/api.md says).
const CATEGORY: Rule = Rule::Digits(4);
const CHANNEL: Rule = Rule::OneOf(&Channel::NAMES);
const COUNTRY: Rule = Rule::Pattern("^[A-Za-z]{2}$", 2);

/// Every request field by name. The registration's fields also depend on
/// each other (the country decides the phone, postal code, states and
/// identity documents): their single-field rules are here, the rest in
/// docs/api.md.
const RULES: &[(&str, Rule)] = &[
    ("card_id", Rule::Id),
    ("cardholder_id", Rule::Id),
    ("event_id", Rule::Id),
    ("token", Rule::Id),
    ("transaction_reference", Rule::Text(100)),
    ("client_transaction_reference", Rule::Text(100)),
    ("issuer_transaction_reference", Rule::Text(100)),
    ("merchant", Rule::Text(200)),
    ("merchant_category_code", Rule::Digits(4)),
    ("channel", CHANNEL),
    ("status", Rule::OneOf(&TransactionStatus::NAMES)),
    ("type", Rule::OneOf(&TransactionKind::NAMES)),
    ("authorization_id", Rule::Id),
    ("transaction_id", Rule::Id),
    ("reference", Rule::Text(domain::text::MAX_REFERENCE_LEN)),
    ("refund_reference", Rule::Text(domain::text::MAX_REFERENCE_LEN)),
    ("starting_after", Rule::Text(100)),
    ("merchant_country", COUNTRY),
    ("allowed_categories", Rule::List(&CATEGORY, 1)),
    ("blocked_categories", Rule::List(&CATEGORY, 0)),
    ("allowed_channels", Rule::List(&CHANNEL, 1)),
    ("allowed_countries", Rule::List(&Rule::AssignedCountry, 1)),
    ("per_authorization_limit", Rule::Typed),
    ("daily_limit", Rule::Typed),
    ("weekly_limit", Rule::Typed),
    ("monthly_limit", Rule::Typed),
    ("lifetime_limit", Rule::Typed),
    ("otp", Rule::Digits(6)),
    ("nin", Rule::Digits(11)),
    ("currency", Rule::OneOf(&["USD", "NGN"])),
    ("card_currency", Rule::OneOf(&["USD", "NGN"])),
    ("target_card_currency", Rule::OneOf(&["USD", "NGN"])),
    ("card_type", Rule::OneOf(&["virtual", "physical"])),
    ("card_brand", Rule::OneOf(&["Mastercard", "Verve"])),
    ("target_card_brand", Rule::OneOf(&["Mastercard", "Verve"])),
    ("card_limit", Rule::OneOf(&["500000", "1000000"])),
    ("card_token_number", Rule::Digits(13)),
    // AES Everywhere's output: base64 of `Salted__`, salt and ciphertext.
    ("pin", Rule::Pattern("^U2FsdGVkX1[0-9A-Za-z+/]{20,}={0,2}$", 200)),
    ("card_pin", Rule::Pattern("^U2FsdGVkX1[0-9A-Za-z+/]{20,}={0,2}$", 200)),
    ("page", Rule::WholeUpTo(u32::MAX as i64)),
    ("limit", Rule::WholeUpTo(domain::paging::Page::MAX_SIZE as i64)),
    (
        "start_date",
        Rule::Pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$", 19),
    ),
    (
        "end_date",
        Rule::Pattern("^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$", 19),
    ),
    ("url", Rule::Pattern("^https?://[^\\s/?#@]+([/?#][!-~]*)?$", 2048)),
    // The registration's fields: each rule takes at least what the
    // service takes (the rest depends on other fields).
    (
        "country",
        Rule::OneOf(&["Nigeria", "Ghana", "Uganda", "Kenya", "NG", "GH", "UG", "KE"]),
    ),
    ("state", Rule::Text(100)),
    ("lga", Rule::Text(100)),
    ("address", Rule::Text(200)),
    ("city", Rule::Text(100)),
    (
        "house_no",
        Rule::Pattern("^ *[A-Za-z0-9 /-]*[0-9][A-Za-z0-9 /-]* *$", 20),
    ),
    ("postal_code", Rule::Pattern("^ *[A-Za-z0-9-]* *$", 20)),
    ("first_name", Rule::Text(100)),
    ("last_name", Rule::Text(100)),
    ("middle_name", Rule::Typed),
    ("phone", Rule::Pattern("^ *\\+[0-9 ().-]{4,40} *$", 50)),
    ("email_address", Rule::Typed),
    ("bvn", Rule::Pattern("^ *[0-9]{11} *$", 20)),
    ("id_no", Rule::Pattern("^ *[A-Za-z0-9/-]{5,20} *$", 30)),
    ("id_type", Rule::OneOf(&domain::cardholders::IdType::NAMES)),
    ("id_image", Rule::Pattern("^ *https?://[!-~]+ *$", 2048)),
    ("selfie_image", Rule::Pattern("^ *https?://[!-~]+ *$", 2048)),
    ("date_of_birth", Rule::Pattern("^ *[0-9]{4}-[0-9]{2}-[0-9]{2} *$", 20)),
    ("gender", Rule::Typed),
    ("amount", Rule::Typed),
    ("funding_amount", Rule::Typed),
    ("spend_threshold", Rule::Typed),
    ("seconds", Rule::Typed),
    ("monthly_debits", Rule::Range(1, MAX_MONTHLY_DEBITS as i64)),
    ("inactivity_days", Rule::Range(1, MAX_INACTIVITY_DAYS as i64)),
    ("force", Rule::Typed),
    ("reversal_reference", Rule::Text(domain::text::MAX_REFERENCE_LEN)),
    ("kind", Rule::OneOf(&domain::cards::reversal::ReversalKind::NAMES)),
    ("three_ds", Rule::Typed),
    ("hold", Rule::Typed),
    ("meta_data", Rule::Typed),
    ("identity", Rule::Typed),
    ("x-processor-signature", Rule::Typed),
    // 1 to 255 visible ASCII characters or spaces, not blank.
    (
        domain::idempotency::HEADER,
        Rule::Pattern("^[ -~]*[!-~][ -~]*$", domain::idempotency::MAX_KEY_LEN),
    ),
    // The gateway funding source's authorizationHeader, as Sudo sends it.
    ("authorization", Rule::Typed),
];

/// The most each operation's amount fields take, and whether they take zero.
fn amount_bound(path: &str) -> Option<(&'static [&'static str], Amount, bool)> {
    let usd = Product::USD;
    let ngn = Product::NGN;
    let ends = |suffix: &str| path.ends_with(suffix);
    Some(match () {
        _ if [
            "fund_card_asynchronously",
            "unload_card_asynchronously",
            "fund_card",
            "unload_card",
        ]
        .iter()
        .any(|name| ends(&format!("/cards/{name}"))) =>
        {
            (&["amount"], usd.max_balance, false)
        }
        _ if ends("/naira_cards/fund_naira_card") || ends("/naira_cards/unload_naira_card") => {
            (&["amount"], ngn.max_balance, false)
        }
        _ if ends("/cards/mock_debit_transaction") => (&["amount"], usd.max_debit, false),
        _ if ends("/naira_cards/mock_debit_naira_card") => (&["amount"], ngn.max_debit, false),
        _ if ends("/naira_cards/get_otp_message") => (&["amount"], ngn.max_debit, false),
        _ if ends("/cards/create_card") => (&["funding_amount"], usd.max_balance.max(ngn.max_balance), true),
        _ if ends("/reward/rules") => (&["spend_threshold"], Amount::MAX, true),
        _ if ends("/processor/authorizations")
            || ends("/processor/reversals")
            || ends("/sandbox/authorizations")
            || ends("/capture")
            || ends("/reverse")
            || ends("/increment")
            || ends("/sandbox/refunds") =>
        {
            (&["amount"], usd.max_debit.max(ngn.max_debit), false)
        }
        // The default `--max-wallet-balance`: a service run with another
        // refuses past its own.
        _ if ends("/cards/fund_issuing_wallet") => (&["amount"], DEFAULT_MAX_WALLET, false),
        _ if ends("/spending_controls") => (
            &[
                "per_authorization_limit",
                "daily_limit",
                "weekly_limit",
                "monthly_limit",
                "lifetime_limit",
            ],
            Amount::MAX,
            false,
        ),
        _ => return None,
    })
}

/// The currency an operation's `currency` field must name, and whether it
/// must be there: a USD transfer names it, a Naira one may leave it out,
/// a mock debit may too.
fn currency_of(path: &str) -> Option<(Currency, bool)> {
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| path.ends_with(s));
    if ends(&["/cards/fund_card_asynchronously", "/cards/unload_card_asynchronously"]) {
        Some((Currency::Usd, true))
    } else if ends(&[
        "/cards/mock_debit_transaction",
        "/cards/fund_card",
        "/cards/unload_card",
    ]) {
        Some((Currency::Usd, false))
    } else if ends(&[
        "/naira_cards/fund_naira_card",
        "/naira_cards/unload_naira_card",
        "/naira_cards/mock_debit_naira_card",
    ]) {
        Some((Currency::Ngn, false))
    } else {
        None
    }
}

fn rule(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|(n, _)| *n == name).map(|(_, r)| r)
}

/// Narrows `schema` (a property's or a parameter's, possibly
/// `["string", "null"]`) by `rule`; null stays allowed where it was. A
/// name's rule is for its scalar: the `address` object holding the
/// `address` line is left as it is.
fn narrow(schema: &mut Value, rule: &Rule) {
    let types = match &schema["type"] {
        Value::Array(types) => types.clone(),
        one => vec![one.clone()],
    };
    if let Rule::List(entry, min) = rule {
        narrow(&mut schema["items"], entry);
        schema["minItems"] = json!(min);
        schema["maxItems"] = json!(MAX_LIST);
        return;
    }
    if !types.iter().any(|t| t == "string" || t == "integer") {
        return;
    }
    let constraints = match rule {
        Rule::Id | Rule::Text(_) => {
            let misleading = misleading();
            let pattern = format!("^[^{misleading}]*[^\\s{misleading}][^{misleading}]*$");
            let mut text = json!({ "minLength": 1, "pattern": pattern });
            if let Rule::Text(max) = rule {
                text["maxLength"] = json!(max);
            }
            text
        }
        Rule::Digits(n) => json!({ "pattern": format!("^[0-9]{{{n}}}$") }),
        Rule::OneOf(values) => {
            let mut values: Vec<Value> = values.iter().map(|v| json!(v)).collect();
            if types.contains(&json!("null")) {
                values.push(Value::Null);
            }
            json!({ "enum": values })
        }
        Rule::WholeUpTo(max) => json!({ "pattern": digits_up_to(*max, false) }),
        Rule::Range(min, max) => json!({ "minimum": min, "maximum": max }),
        Rule::Pattern(pattern, max) => json!({ "pattern": pattern, "maxLength": max }),
        Rule::AssignedCountry => {
            // Each code's letters in either case: ECMA-262 has no inline
            // case-insensitivity.
            let either = |c: char| format!("[{}{}]", c, c.to_ascii_lowercase());
            let codes: Vec<String> = domain::cards::spending_controls::Country::assigned()
                .map(|code| code.chars().map(either).collect())
                .collect();
            json!({ "pattern": format!("^(?:{})$", codes.join("|")), "maxLength": 2 })
        }
        Rule::List(..) | Rule::Typed => return,
    };
    if let (Some(target), Value::Object(add)) = (schema.as_object_mut(), constraints) {
        target.extend(add);
    }
}

/// A digit string of a number in `1..=max` (or `0..=max`), leading zeros allowed, as
/// one regular expression: the numbers with fewer digits than `max`, then
/// those with as many, digit by digit below `max`'s, then `max` itself.
fn digits_up_to(max: i64, zero: bool) -> String {
    let max = max.to_string();
    let digits: Vec<u32> = max.chars().filter_map(|c| c.to_digit(10)).collect();
    let mut alternatives = Vec::new();
    if digits.len() > 1 {
        alternatives.push(format!("[1-9][0-9]{{0,{}}}", digits.len() - 2));
    }
    for (i, d) in digits.iter().enumerate() {
        let low = if i == 0 { 1 } else { 0 };
        if *d > low {
            let rest = digits.len() - i - 1;
            alternatives.push(format!("{}[{low}-{}][0-9]{{{rest}}}", &max[..i], d - 1));
        }
    }
    alternatives.push(max);
    if zero {
        alternatives.push("0".into());
    }
    format!("^0*({})$", alternatives.join("|"))
}

/// The amount schema of an operation: a digit string or an integer, within
/// the operation's bounds.
fn bounded_amount(description: Option<&Value>, max: Amount, zero: bool) -> Value {
    let mut amount = json!({
        "oneOf": [
            { "type": "string", "pattern": digits_up_to(max.minor(), zero) },
            { "type": "integer", "minimum": if zero { 0 } else { 1 }, "maximum": max.minor() },
        ],
    });
    if let Some(d) = description {
        amount["description"] = d.clone();
    }
    amount
}

/// Applies every rule to the document (as JSON, after generation).
pub(super) fn apply(doc: &mut Value) {
    let schemas = doc["components"]["schemas"].clone();
    let resolve = |v: &Value| -> Value {
        match v["$ref"].as_str() {
            Some(r) => schemas[r.trim_start_matches("#/components/schemas/")].clone(),
            None => v.clone(),
        }
    };
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else { continue };
        for op in item.values_mut().filter(|op| op.get("responses").is_some()) {
            let parameters = op.get_mut("parameters").and_then(Value::as_array_mut);
            for parameter in parameters.into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap_or_default().to_string();
                if let Some(r) = rule(&name) {
                    narrow(&mut parameter["schema"], r);
                }
                if let Some((fields, max, zero)) = amount_bound(path)
                    && fields.contains(&name.as_str())
                {
                    parameter["schema"] = json!({ "type": "string", "pattern": digits_up_to(max.minor(), zero) });
                }
            }
            let Some(body) = op.pointer_mut("/requestBody/content/application~1json/schema") else {
                continue;
            };
            // Inlined, so that a body shared by USD and Naira operations
            // can carry each one's amount bound; an optional body (`oneOf`
            // the object or null) has its object inlined the same way.
            *body = inline(&resolve(body), &resolve);
            let body = match body.get_mut("oneOf").and_then(Value::as_array_mut) {
                Some(variants) => match variants.iter_mut().find(|v| v.get("$ref").is_some()) {
                    Some(object) => {
                        *object = inline(&resolve(object), &resolve);
                        object
                    }
                    None => continue,
                },
                None => body,
            };
            if let Some((currency, required)) = currency_of(path) {
                let code = currency.code();
                if required {
                    let mut fields = body["required"].as_array().cloned().unwrap_or_default();
                    fields.push(json!("currency"));
                    body["required"] = json!(fields);
                    body["properties"]["currency"] = json!({ "type": "string", "enum": [code] });
                } else {
                    body["properties"]["currency"]["enum"] = json!([code, null]);
                }
            }
            let (fields, max, zero) = amount_bound(path).unwrap_or((&[], Amount::ZERO, false));
            for &field in fields {
                let property = &mut body["properties"][field];
                let nullable = property["oneOf"]
                    .as_array()
                    .is_some_and(|o| o.contains(&json!({ "type": "null" })));
                let mut amount = bounded_amount(property.get("description"), max, zero);
                if nullable && let Some(variants) = amount["oneOf"].as_array_mut() {
                    variants.push(json!({ "type": "null" }));
                }
                *property = amount;
            }
        }
    }
}

/// `schema` with every property narrowed by its rule and nested objects
/// (an address, an identity) inlined the same way.
fn inline(schema: &Value, resolve: &impl Fn(&Value) -> Value) -> Value {
    let mut schema = schema.clone();
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return schema;
    };
    for (name, property) in properties.iter_mut() {
        if let Some(variants) = property.get_mut("oneOf").and_then(Value::as_array_mut) {
            for v in variants.iter_mut().filter(|v| v.get("$ref").is_some()) {
                let target = resolve(v);
                if target.get("properties").is_some() {
                    *v = inline(&target, resolve);
                }
            }
        } else if property.get("$ref").is_some() {
            let target = resolve(property);
            if target.get("properties").is_some() {
                *property = inline(&target, resolve);
            }
        }
        if let Some(r) = rule(name) {
            narrow(property, r);
        }
    }
    schema
}

/// Names of request fields with no rule, for the test that keeps the
/// table whole.
#[cfg(test)]
pub(super) fn unruled(doc: &Value) -> Vec<String> {
    let mut missing = Vec::new();
    let mut check = |name: &str, at: &str| {
        if rule(name).is_none() {
            missing.push(format!("{name} ({at})"));
        }
    };
    fn properties(schema: &Value, at: &str, check: &mut dyn FnMut(&str, &str)) {
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            check(name, at);
            properties(property, at, check);
            for v in property["oneOf"].as_array().into_iter().flatten() {
                properties(v, at, check);
            }
        }
    }
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for op in item.as_object().into_iter().flatten().map(|(_, op)| op) {
            for parameter in op["parameters"].as_array().into_iter().flatten() {
                check(parameter["name"].as_str().unwrap_or_default(), path);
            }
            properties(
                &op["requestBody"]["content"]["application/json"]["schema"],
                path,
                &mut check,
            );
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_digit_pattern_takes_exactly_the_amounts_up_to_the_bound() {
        for (max, zero) in [
            (500_000, false),
            (1_000_000, true),
            (1_000_000_000_000_000, false),
            (7, true),
        ] {
            let re = regex::Regex::new(&digits_up_to(max, zero)).unwrap();
            for n in [0, 1, 9, 10, 99, max / 2, max - 1, max, max + 1, max * 10] {
                assert_eq!(
                    re.is_match(&n.to_string()),
                    (zero || n > 0) && n <= max,
                    "{n} against {max}"
                );
            }
            assert!(re.is_match(&format!("00{max}")), "leading zeros");
            assert!(!re.is_match("-1") && !re.is_match("1.0") && !re.is_match(""));
        }
    }

    proptest! {
        #[test]
        fn the_digit_pattern_agrees_with_the_domains_parse(n in 0i64..2_000_000, max in 1i64..1_500_000) {
            let bound = Amount::from_minor(max).unwrap();
            let re = regex::Regex::new(&digits_up_to(max, false)).unwrap();
            let parsed = Amount::parse_positive_up_to("amount", &n.to_string(), bound, "the bound");
            prop_assert_eq!(re.is_match(&n.to_string()), parsed.is_ok());
        }

        #[test]
        fn the_text_pattern_agrees_with_the_domains_plain_text_rule(value in "\\PC{0,3}[\\x00-\\x20\u{85}\u{a0}\u{ad}\u{34f}\u{115f}\u{180b}-\u{180f}\u{202a}-\u{202f}\u{2060}-\u{206f}\u{200b}-\u{200f}\u{61c}\u{2800}\u{3164}\u{fe00}-\u{fe0f}\u{feff}\u{ffa0}\u{fff0}-\u{fff9}\u{2028}\u{2029}]{0,2}\\PC{0,3}") {
            let mut schema = json!({ "type": "string" });
            narrow(&mut schema, &Rule::Text(100));
            let re = regex::Regex::new(schema["pattern"].as_str().unwrap()).unwrap();
            prop_assert_eq!(re.is_match(&value), domain::text::plain("f", &value, 100).is_ok(), "{:?}", value);
        }
    }

    #[test]
    fn currencies_are_the_domains() {
        let Rule::OneOf(codes) = rule("currency").unwrap() else {
            panic!()
        };
        assert_eq!(codes.to_vec(), Currency::ALL.map(Currency::code).to_vec());
    }
}

//! The merchant catalogue shipped as data (`data/merchants.csv`,
//! `data/mcc.csv`, see `data/SOURCES.md`): a raw card descriptor to the
//! merchant behind it, matched on whole words of the cleaned descriptor.

use aho_corasick::AhoCorasick;
use ports::merchants::{Merchant, MerchantCatalogue};
use std::collections::HashMap;

struct Entry {
    name: String,
    website: String,
    mcc: String,
    city: String,
    /// Cleaned descriptor fragments, each a run of whole words.
    patterns: Vec<String>,
}

pub struct ShippedCatalogue {
    merchants: Vec<Entry>,
    /// Every entry's patterns, each between spaces, found in one pass
    /// over a descriptor (a debit's path looks up every descriptor).
    fragments: AhoCorasick,
    /// Per fragment, in catalogue order: its entry.
    fragment_entry: Vec<usize>,
    /// Code → (description, group).
    codes: HashMap<String, (String, String)>,
}

const UNCATEGORIZED: (&str, &str) = ("Uncategorized", "Other");

/// Upper case, every run of other characters one space: `AMZN Mktp
/// US*2K3` → `AMZN MKTP US 2K3`.
fn clean(descriptor: &str) -> String {
    descriptor
        .to_uppercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A cleaned descriptor or fragment between spaces: a fragment found in a
/// descriptor so padded is there as whole words.
fn padded(cleaned: &str) -> String {
    format!(" {cleaned} ")
}

/// A readable name for an unknown descriptor: its words up to the first
/// one holding a digit, in title case (`SQ *JOES COFFEE 0423` → `Sq Joes
/// Coffee`).
fn readable(cleaned: &str) -> String {
    let words: Vec<String> = cleaned
        .split(' ')
        .take_while(|w| !w.bytes().any(|b| b.is_ascii_digit()))
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|first| first.to_string() + &chars.as_str().to_lowercase())
                .unwrap_or_default()
        })
        .collect();
    if words.is_empty() {
        cleaned.to_string()
    } else {
        words.join(" ")
    }
}

impl ShippedCatalogue {
    pub fn load() -> Self {
        let rows = |text: &'static str| {
            text.lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
                .map(|l| l.split(';').map(str::to_string).collect::<Vec<_>>())
        };
        let merchants: Vec<Entry> = rows(include_str!("../data/merchants.csv"))
            .filter(|r| r.len() == 5)
            .map(|r| Entry {
                name: r[0].clone(),
                website: r[1].clone(),
                mcc: r[2].clone(),
                city: r[3].clone(),
                patterns: r[4].split('|').map(clean).collect(),
            })
            .collect();
        let (fragment_entry, fragments): (Vec<usize>, Vec<String>) = merchants
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.patterns.iter().map(move |p| (i, padded(p))))
            .unzip();
        let fragments = AhoCorasick::new(fragments).expect("the shipped catalogue's fragments build one automaton");
        let codes = rows(include_str!("../data/mcc.csv"))
            .filter(|r| r.len() == 3)
            .map(|r| (r[0].clone(), (r[1].clone(), r[2].clone())))
            .collect();
        Self {
            merchants,
            fragments,
            fragment_entry,
            codes,
        }
    }

    fn category(&self, mcc: Option<&str>) -> (String, String) {
        mcc.and_then(|c| self.codes.get(c))
            .cloned()
            .unwrap_or_else(|| (UNCATEGORIZED.0.to_string(), UNCATEGORIZED.1.to_string()))
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.merchants.len()
    }
}

impl MerchantCatalogue for ShippedCatalogue {
    fn knows(&self, name: &str) -> bool {
        self.merchants.iter().any(|m| m.name == name)
    }

    fn group_of(&self, code: &str) -> Option<String> {
        self.codes.get(code).map(|(_, group)| group.clone())
    }

    fn groups(&self) -> Vec<String> {
        let groups: std::collections::BTreeSet<&String> = self.codes.values().map(|(_, group)| group).collect();
        groups.into_iter().cloned().collect()
    }

    fn merchant(&self, descriptor: &str, merchant_category_code: Option<String>) -> Merchant {
        let cleaned = clean(descriptor);
        // The longest fragment wins (`UBER EATS` over `UBER`); of equal
        // ones, the later in the catalogue.
        let best = self
            .fragments
            .find_overlapping_iter(&padded(&cleaned))
            .max_by_key(|found| (found.len(), found.pattern()))
            .map(|found| &self.merchants[self.fragment_entry[found.pattern()]]);
        match best {
            Some(m) => {
                let (category, group) = self.category(Some(&m.mcc));
                Merchant {
                    name: m.name.clone(),
                    city: Some(m.city.clone()),
                    code: Some(m.mcc.clone()),
                    logo: Some(format!("https://icons.duckduckgo.com/ip3/{}.ico", m.website)),
                    website: Some(format!("https://{}", m.website)),
                    category,
                    group,
                }
            }
            None => {
                let (category, group) = self.category(merchant_category_code.as_deref());
                Merchant {
                    name: readable(&cleaned),
                    city: None,
                    code: merchant_category_code,
                    logo: None,
                    website: None,
                    category,
                    group,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_covers_at_least_200_merchants_and_every_code_is_known() {
        let c = ShippedCatalogue::load();
        assert!(c.len() >= 200, "{}", c.len());
        for m in &c.merchants {
            assert!(c.codes.contains_key(&m.mcc), "{} has unknown code {}", m.name, m.mcc);
            assert!(m.patterns.iter().all(|p| !p.is_empty()), "{}", m.name);
        }
    }

    #[test]
    fn descriptors_as_cards_show_them_find_their_merchant() {
        let c = ShippedCatalogue::load();
        for (descriptor, name) in [
            ("NETFLIX.COM 866-579-7172 CA", "Netflix"),
            ("AMZN Mktp US*2K3JH8", "Amazon"),
            ("UBER *EATS HELP.UBER.COM", "Uber Eats"),
            ("UBER *TRIP", "Uber"),
            ("FACEBK *7KD9X2PLM2", "Facebook Ads"),
            ("GOOGLE *YouTubePremium g.co/helppay#", "YouTube Premium"),
            ("Spotify P1A2B3C4D5 Stockholm", "Spotify"),
            ("BOLT.EU/R/2211", "Bolt"),
            ("AWS EMEA aws.amazon.com LU", "Amazon Web Services"),
            ("OPENAI *CHATGPT SUBSCR", "OpenAI"),
        ] {
            let m = c.merchant(descriptor, None);
            assert_eq!(m.name, name, "{descriptor}");
            assert!(m.logo.is_some() && m.website.is_some());
        }
        let netflix = c.merchant("NETFLIX.COM", None);
        assert_eq!(netflix.category, "Cable and other pay television services");
        assert_eq!(netflix.group, "Utilities");
    }

    /// The rule the automaton keeps, written plainly: the longest fragment
    /// found as whole words; of equal ones, the later in the catalogue.
    fn plainly<'a>(c: &'a ShippedCatalogue, descriptor: &str) -> Option<&'a str> {
        let cleaned = padded(&clean(descriptor));
        c.merchants
            .iter()
            .flat_map(|m| m.patterns.iter().map(move |p| (m, p)))
            .filter(|(_, p)| cleaned.contains(&padded(p)))
            .max_by_key(|(_, p)| p.len())
            .map(|(m, _)| m.name.as_str())
    }

    #[test]
    fn one_pass_finds_what_each_fragment_alone_would() {
        let c = ShippedCatalogue::load();
        let fragments: Vec<&String> = c.merchants.iter().flat_map(|m| &m.patterns).collect();
        let mut checked = 0;
        for (i, p) in fragments.iter().enumerate() {
            let next = fragments[(i + 1) % fragments.len()];
            for descriptor in [
                p.to_string(),
                format!("POS*{p} 0423 LAGOS"),
                format!("X{p}"),
                format!("{p}9"),
                format!("{next} {p}"),
                format!("{p}*{next}"),
            ] {
                let found = c.merchant(&descriptor, None);
                match plainly(&c, &descriptor) {
                    Some(name) => assert_eq!(found.name, name, "{descriptor}"),
                    None => assert_eq!(found.website, None, "{descriptor}: matched {}", found.name),
                }
                checked += 1;
            }
        }
        assert!(checked > 1_000, "{checked}");
    }

    #[test]
    fn unknown_descriptors_get_a_clean_name_and_the_category_of_their_code() {
        let c = ShippedCatalogue::load();
        let m = c.merchant("SQ *JOES COFFEE 0423 LAGOS", Some("5814".into()));
        assert_eq!(m.name, "Sq Joes Coffee");
        assert_eq!(m.category, "Fast food restaurants");
        assert_eq!(m.group, "Miscellaneous outlets");
        assert_eq!(m.website, None);
        let bare = c.merchant("1234 5678", None);
        assert_eq!(
            (bare.name.as_str(), bare.category.as_str()),
            ("1234 5678", "Uncategorized")
        );
    }

    /// docs/api.md's table of groups, each row a group and its code
    /// ranges, is the catalogue's: every code in its row's ranges has the
    /// row's group, and every code of the catalogue is in some row.
    #[test]
    fn the_documented_groups_are_the_catalogues() {
        let c = ShippedCatalogue::load();
        let doc = include_str!("../../../docs/api.md");
        let table = doc
            .split("| Group | Codes |")
            .nth(1)
            .expect("docs/api.md has the groups' table");
        let mut covered = 0;
        for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let group = cells[1].trim_matches('`');
            for range in cells[2].split(", ") {
                let digits: Vec<u16> = range
                    .split(|ch: char| !ch.is_ascii_digit())
                    .filter(|d| !d.is_empty())
                    .map(|d| d.parse().expect("a code"))
                    .collect();
                let (from, to) = (digits[0], digits[1]);
                for code in from..=to {
                    if let Some(found) = c.group_of(&format!("{code:04}")) {
                        assert_eq!(found, group, "{code:04} in the row of {group}");
                        covered += 1;
                    }
                }
            }
        }
        assert_eq!(covered, c.codes.len(), "every code of the catalogue is in the table");
    }
}

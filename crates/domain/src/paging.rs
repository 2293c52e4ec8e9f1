//! Page numbers on the wire: `page` from 1, and the paging object
//! `{total, pages, previous, next}` of list responses.

use crate::InvalidInput;

/// A requested page: 1-based number and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub number: u32,
    pub size: u32,
}

/// Where a page stands among all pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub total: u64,
    pub pages: u64,
    pub previous: Option<u64>,
    pub next: Option<u64>,
}

impl Page {
    /// The contract's page size.
    pub const DEFAULT_SIZE: u32 = 20;
    /// The most a `limit` asks for.
    pub const MAX_SIZE: u32 = 100;

    /// Parses the `page` query parameter (absent: 1) and `limit`, the
    /// page's size (absent: [`Self::DEFAULT_SIZE`]; at most
    /// [`Self::MAX_SIZE`]).
    pub fn parse(page: Option<&str>, limit: Option<&str>) -> Result<Page, InvalidInput> {
        let number = match page {
            None => 1,
            Some(v) => whole(v, u32::MAX).ok_or_else(|| InvalidInput::new("page", "must be a whole number from 1"))?,
        };
        let size = match limit {
            None => Self::DEFAULT_SIZE,
            Some(v) => whole(v, Self::MAX_SIZE).ok_or_else(|| {
                InvalidInput::new("limit", format!("must be a whole number from 1 to {}", Self::MAX_SIZE))
            })?,
        };
        Ok(Page { number, size })
    }

    pub fn offset(self) -> i64 {
        i64::from(self.number - 1) * i64::from(self.size)
    }

    pub fn paging(self, total: u64) -> Paging {
        let size = u64::from(self.size);
        let pages = total.div_ceil(size);
        let number = u64::from(self.number);
        Paging {
            total,
            pages,
            previous: (number > 1).then(|| (number - 1).min(pages.max(1))),
            next: (number < pages).then_some(number + 1),
        }
    }
}

/// Digits only (`u32`'s parse would also take a sign), from 1 to `max`.
fn whole(value: &str, max: u32) -> Option<u32> {
    Some(value)
        .filter(|v| v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|n| (1..=max).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn page(n: u32) -> Page {
        Page { number: n, size: 20 }
    }

    #[test]
    fn paging_at_the_edges() {
        assert_eq!(
            page(1).paging(0),
            Paging {
                total: 0,
                pages: 0,
                previous: None,
                next: None
            }
        );
        assert_eq!(
            page(1).paging(20),
            Paging {
                total: 20,
                pages: 1,
                previous: None,
                next: None
            }
        );
        assert_eq!(
            page(1).paging(21),
            Paging {
                total: 21,
                pages: 2,
                previous: None,
                next: Some(2)
            }
        );
        assert_eq!(
            page(2).paging(21),
            Paging {
                total: 21,
                pages: 2,
                previous: Some(1),
                next: None
            }
        );
        assert_eq!(page(9).paging(21).previous, Some(2));
    }

    #[test]
    fn parses_page_numbers_and_sizes() {
        assert_eq!(Page::parse(None, None).unwrap(), page(1));
        assert_eq!(Page::parse(Some("3"), None).unwrap().offset(), 40);
        assert_eq!(Page::parse(Some("3"), Some("7")).unwrap().offset(), 14);
        assert_eq!(Page::parse(None, Some("100")).unwrap().size, 100);
        assert_eq!(Page::parse(None, Some("1")).unwrap().size, 1);
        for bad in ["0", "-1", "+1", "x", "1.5", "", "4294967296"] {
            assert_eq!(Page::parse(Some(bad), None).unwrap_err().field, "page");
        }
        for bad in ["0", "101", "-1", " 5", "1e2", "", "18446744073709551617"] {
            let refused = Page::parse(None, Some(bad)).unwrap_err();
            assert_eq!(
                (refused.field.as_str(), refused.rule.as_str()),
                ("limit", "must be a whole number from 1 to 100")
            );
        }
    }

    proptest! {
        #[test]
        fn pages_cover_the_total(total in 0u64..100_000, n in 1u32..6_000) {
            let p = page(n).paging(total);
            prop_assert!(p.pages * 20 >= total && p.pages * 20 < total + 20);
            prop_assert_eq!(p.next.is_some(), u64::from(n) < p.pages);
            prop_assert_eq!(p.previous.is_some(), n > 1);
        }
    }
}

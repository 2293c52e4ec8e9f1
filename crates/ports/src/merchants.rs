//! The merchant catalogue that card transactions are enriched from.

/// What the catalogue knows of a merchant descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merchant {
    pub name: String,
    pub city: Option<String>,
    pub code: Option<String>,
    pub logo: Option<String>,
    pub website: Option<String>,
    pub category: String,
    pub group: String,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
pub trait MerchantCatalogue: Send + Sync {
    /// The merchant behind a raw descriptor; an unknown one gets a cleaned
    /// name and the category of its merchant category code.
    fn merchant(&self, descriptor: &str, merchant_category_code: Option<String>) -> Merchant;
    /// Whether a merchant of this exact name is in the catalogue.
    fn knows(&self, name: &str) -> bool;
    /// The named groups merchant category codes fall in, sorted.
    fn groups(&self) -> Vec<String>;
    /// The group of a merchant category code; `None`: a code the
    /// catalogue does not know.
    fn group_of(&self, code: &str) -> Option<String>;
}

//! The query of every paged list: `page` and `limit`.

use domain::InvalidInput;
use domain::paging::Page;
use serde::Deserialize;
use utoipa::IntoParams;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// From 1 (the default); newest first.
    page: Option<String>,
    /// Items a page, from 1 to 100; 20 (the contract's page) when absent.
    limit: Option<String>,
}

impl PageQuery {
    pub fn page(&self) -> Result<Page, InvalidInput> {
        Page::parse(self.page.as_deref(), self.limit.as_deref())
    }
}

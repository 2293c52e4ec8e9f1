//! Cards: the card store (a card's life, its fundings' and unloadings'
//! records, details tokens, fees) and its transactions' store (debits'
//! history, holds and 3-D Secure challenges, handing each money step to
//! `crate::db::money`). It implements `ports::cards::CardStore` and
//! `ports::card_transactions::CardTransactionStore`.

mod store;
mod transactions;

#[cfg(test)]
mod tests;

//! The error answers many routes share, written once for their OpenAPI
//! `responses(...)`: each a status, what it means, and the error body.
//! (Those every route can give, a bad key's 401, an oversized body's 413,
//! the document adds itself: `openapi::document_common_answers`.)

use crate::error::ErrorBody;
use utoipa::IntoResponses;

/// Defines each answer: a response of `status` with an [`ErrorBody`].
macro_rules! answers {
    ($($name:ident: $status:tt, $description:tt;)*) => {$(
        // Never built: only its `IntoResponses` is read, by the document.
        #[allow(dead_code)]
        #[derive(IntoResponses)]
        #[response(status = $status, description = $description)]
        pub struct $name(ErrorBody);
    )*};
}

answers! {
    BadTestKey: 401, "Missing, unknown or live key";
    BadSignature: 401, "A missing, stale or wrong signature";
    NoProcessorSecret: 403, "No processor secret is configured";
    NoSuchCard: 400, "No such card";
    NoSuchCardholder: 400, "No such cardholder";
    BadPage: 400, "A bad page number";
    ReadTooSoon: 420, "Read less than 3 seconds ago";
    ListedTooSoon: 420, "On the relay (card data in clear): a list was read less than 3 seconds ago";
    FundedTooSoon: 420, "The card was funded less than 5 minutes ago";
    UnloadedTooSoon: 420, "The card was unloaded less than 5 minutes ago";
    NotSettledInTime: 504, "Not settled in time (`settlement_pending`): send the same request again";
}

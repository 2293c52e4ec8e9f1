//! Every `code` an error answer can carry, with its status and meaning:
//! the catalogue docs/api.md prints and the OpenAPI document's enum of
//! `code`. Tests hold it to the codes the source returns and to the docs.

/// One code of the catalogue.
pub struct ErrorCode {
    pub code: &'static str,
    /// The HTTP status it comes with.
    pub status: u16,
    pub meaning: &'static str,
}

const fn code(code: &'static str, status: u16, meaning: &'static str) -> ErrorCode {
    ErrorCode { code, status, meaning }
}

/// In the order docs/api.md lists them: the request, the key, the
/// account's state, cardholders, cards, money, the service.
pub const CATALOGUE: &[ErrorCode] = &[
    code(
        "invalid_request",
        400,
        "a field is missing, of the wrong type, or breaks its rule; the message names the field and the rule",
    ),
    code("payload_too_large", 413, "the body is over 64 KiB"),
    code("uri_too_long", 414, "the path and query are over 8 KiB"),
    code("headers_too_large", 431, "more than 64 headers, or over 32 KiB of them"),
    code("not_found", 404, "no endpoint has this path"),
    code(
        "method_not_allowed",
        405,
        "the endpoint takes another method, named in `Allow`",
    ),
    code("missing_api_key", 401, "no `token` (or `Authorization`) header"),
    code(
        "malformed_api_key",
        401,
        "the `token` header is not `Bearer <secret key>`, or a key came twice (two headers, or `token` and `Authorization` both)",
    ),
    code(
        "unknown_api_key",
        401,
        "no account has this key, or it was revoked or expired",
    ),
    code(
        "wrong_mode_api_key",
        401,
        "a live key on a sandbox path, or a test key on a production path",
    ),
    code(
        "rate_limited",
        420,
        "called again too soon; `Retry-After` says how many seconds to wait",
    ),
    code(
        "idempotency_key_in_use",
        409,
        "a request with this `Idempotency-Key` is still running; retry once it is answered",
    ),
    code(
        "idempotency_key_reused",
        422,
        "this `Idempotency-Key` was used for another request (another path, listener, query or body)",
    ),
    code(
        "account_profile_incomplete",
        403,
        "registering cardholders needs the account's company address and utility bill on file",
    ),
    code(
        "wallet_balance_limit",
        400,
        "the issuing wallet would pass the most it may hold, or the sandbox faucet would have given the account more than that",
    ),
    code(
        "sandbox_clock_limit",
        409,
        "the sandbox clock would run more than a century ahead",
    ),
    code(
        "cardholder_not_found",
        400,
        "no cardholder of this account and mode has this id (or it was deleted)",
    ),
    code(
        "bvn_already_used",
        400,
        "another cardholder of the account and mode has this BVN",
    ),
    code(
        "phone_already_used",
        400,
        "another cardholder of the account and mode has this phone number",
    ),
    code("identity_not_verifiable", 400, "the BVN or ID could not be verified"),
    code("bvn_profile_blacklisted", 400, "the BVN's profile is blacklisted"),
    code(
        "id_number_mismatch",
        400,
        "the ID number does not match the uploaded ID",
    ),
    code(
        "name_mismatch",
        400,
        "the cardholder's name does not match the name on the BVN",
    ),
    code(
        "id_name_mismatch",
        400,
        "the name on the ID does not match the name on the BVN",
    ),
    code("otp_not_sent", 400, "the OTP could not be sent to the phone on the BVN"),
    code(
        "phone_on_several_bvns",
        400,
        "the phone number is tied to several BVNs (fraud suspected)",
    ),
    code("blacklisted", 451, "the individual is blacklisted for fraud"),
    code(
        "kyc_unavailable",
        504,
        "the identity check could not be reached; retry later",
    ),
    code(
        "cardholder_not_verified",
        401,
        "the cardholder's identity is pending, in manual review, or failed; the message says which",
    ),
    code(
        "cardholder_deactivated",
        401,
        "the cardholder was deactivated (blacklisted)",
    ),
    code(
        "card_type_unavailable",
        400,
        "this combination of type, brand and currency is not issued",
    ),
    code(
        "card_already_activated",
        400,
        "this physical card's token number was activated before",
    ),
    code(
        "card_not_found",
        400,
        "no card of this account and mode, and of this currency's paths, has this id (or it was deleted)",
    ),
    code(
        "invalid_token",
        400,
        "the card-details token is unknown, used, expired or of the other mode",
    ),
    code(
        "transaction_not_found",
        400,
        "no transaction of the card has this reference (a refund: no capture or debit of the account has this transaction_id)",
    ),
    code(
        "authorization_not_found",
        400,
        "no authorization of this account and mode has this id, or it was declined (for an increment: none pending)",
    ),
    code(
        "authorization_not_pending",
        400,
        "the authorization was captured, reversed or expired: only a pending one takes a step",
    ),
    code(
        "capture_above_tolerance",
        400,
        "a capture may exceed the hold by at most 15%; the message gives the most",
    ),
    code(
        "nothing_left_to_refund",
        400,
        "the capture or debit was given back in full already",
    ),
    code("event_not_found", 400, "no event of this account and mode has this id"),
    code("no_reward_available", 400, "the rewards catalogue has nothing to give"),
    code(
        "insufficient_wallet_balance",
        401,
        "the issuing wallet cannot cover the card's funding",
    ),
    code(
        "insufficient_card_balance",
        401,
        "the card's available balance (its held fee excluded) cannot cover the unloading",
    ),
    code(
        "card_balance_limit",
        400,
        "the funding would take the card past the most it may hold",
    ),
    code(
        "card_funded_recently",
        420,
        "the card was funded less than 5 minutes ago",
    ),
    code(
        "card_unloaded_recently",
        420,
        "the card was unloaded less than 5 minutes ago",
    ),
    code(
        "transaction_reference_used",
        400,
        "a funding, unloading or debit of the account and mode has this reference; or a reversal's or refund's reference was applied already",
    ),
    code("card_frozen", 400, "a debit declined: the card is frozen"),
    code("card_deleted", 400, "a debit declined: the card is deleted"),
    code(
        "negative_balance",
        400,
        "a debit declined: the card was below zero, and is now deleted",
    ),
    code(
        "monthly_limit_exceeded",
        400,
        "a debit declined: it would pass the card's monthly spending limit",
    ),
    code(
        "insufficient_balance",
        401,
        "a debit declined: the card's spendable balance cannot cover it",
    ),
    code(
        "three_ds_failed",
        400,
        "a debit declined: 3-D Secure failed (three wrong OTPs, or the challenge expired)",
    ),
    code(
        "spending_control_category",
        400,
        "a debit declined: a spending control of the card or the account does not allow its merchant category",
    ),
    code(
        "spending_control_channel",
        400,
        "a debit declined: a spending control does not allow its channel (or the network did not say it)",
    ),
    code(
        "spending_control_country",
        400,
        "a debit declined: a spending control does not allow its merchant's country (or the network did not say it)",
    ),
    code(
        "spending_control_limit_per_authorization",
        400,
        "a debit declined: it is over a spending control's per-authorization limit",
    ),
    code(
        "spending_control_limit_daily",
        400,
        "a debit declined: it would pass a spending control's daily limit",
    ),
    code(
        "spending_control_limit_weekly",
        400,
        "a debit declined: it would pass a spending control's weekly limit",
    ),
    code(
        "spending_control_limit_monthly",
        400,
        "a debit declined: it would pass a spending control's monthly limit",
    ),
    code(
        "spending_control_limit_lifetime",
        400,
        "a debit declined: it would pass a spending control's lifetime limit",
    ),
    code(
        "no_pending_otp",
        400,
        "no 3-D Secure challenge awaits an OTP for this card and amount; the answer carries `status: false`",
    ),
    code(
        "challenge_not_found",
        400,
        "no 3-D Secure challenge awaits an OTP under this card and reference",
    ),
    code(
        "wrong_otp",
        400,
        "the OTP does not answer the 3-D Secure challenge; the message says how many attempts are left",
    ),
    code(
        "bad_processor_signature",
        401,
        "the processor's signature is missing, wrong, or more than 300 seconds old",
    ),
    code(
        "processor_disabled",
        403,
        "no processor secret is configured for this mode",
    ),
    code(
        "transfer_failed",
        400,
        "fund_card or unload_card: the movement failed at settlement; its money is back where it came from",
    ),
    code(
        "settlement_pending",
        504,
        "fund_card or unload_card: the movement did not settle in time to answer; it completes once, and the same request sent again waits for it",
    ),
    code(
        "processor_unavailable",
        504,
        "the card processor did not complete the call (unreachable, slow, failing or refusing); nothing changed, retry",
    ),
    code(
        "bad_provider_signature",
        401,
        "a provider's callback does not carry that provider's signature for either mode",
    ),
    code(
        "storage_unavailable",
        503,
        "the database could not be reached; retry after `Retry-After`",
    ),
    code(
        "overloaded",
        503,
        "the service is over capacity and refused the request before doing anything; retry after `Retry-After`",
    ),
    code(
        "deadline_missed",
        503,
        "the request waited past its time budget (the card processor's gateway call) and was withdrawn before anything was written; retry after `Retry-After`",
    ),
    code(
        "internal",
        500,
        "the service failed; retry, and quote `x-request-id` when reporting it",
    ),
];

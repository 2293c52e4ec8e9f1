"""The check schemathesis cannot make alone. The contract answers 400 both
for a request's shape and for the account's state (a card that is gone, a
reference already used), so `positive_data_acceptance` accepts 400, and
this check tells the two apart by the error's code: a schema-valid
request is never refused as `invalid_request`, except for a field whose
rule depends on another field (listed below, and in docs/api.md)."""

import re
import uuid

import schemathesis

# Operation (path suffix) -> fields whose validity depends on other fields.
DEPENDENT_FIELDS = {
    # The country decides the phone, postal code, states and LGAs and the
    # identity documents; a name needs 3 letters, an address line too.
    "/cardholder/register_cardholder": ("phone", "address.", "identity.", "first_name", "last_name", "email_address"),
    "/cardholder/register_cardholder_synchronously": ("phone", "address.", "identity.", "first_name", "last_name", "email_address"),
    # The cardholder is named in the body or in the query.
    "/cardholder/update_cardholder": ("phone", "address.", "identity.", "first_name", "last_name", "email_address", "cardholder_id"),
    # A card's type, brand and currency go together (Naira cards are
    # virtual); a USD card needs a limit and a funding of at least its fee.
    # A PIN is a ciphertext under the caller's secret key.
    "/cards/create_card": ("card_type", "card_brand", "card_currency", "card_limit", "funding_amount", "pin"),
    "/cards/activate_physical_card": ("card_type", "card_brand", "card_currency", "pin"),
    "/cards/migrate_card": ("card_type", "target_card_brand", "target_card_currency", "pin"),
    "/cards/update_card_pin": ("card_pin",),
    "/cards/set_3d_secure_pin": ("card_pin",),
    # A state must be one of the country's (get_all_states lists them).
    "/cardholder/get_all_lga": ("state",),
    # A cardholder with several Naira cards is asked for the card's id.
    "/naira_cards/get_card_balance": ("cardholder_id",),
    # Exactly one of the two references.
    "/cards/get_card_transaction_by_id": ("client_transaction_reference",),
    # Both dates or neither, the end not before the start, real dates.
    "/cards/get_card_transactions": ("start_date", "end_date"),
    "/cards/get_naira_card_transactions": ("start_date", "end_date"),
    # A cursor names a transaction the account has; the dates go together.
    "/transactions": ("starting_after", "start_date", "end_date"),
    # Categories are allowed or blocked, not both (either path's controls).
    "/spending_controls": ("blocked_categories",),
    # 3-D Secure is for Naira debits that are not forced, and online.
    "/cards/mock_debit_transaction": ("three_ds", "channel"),
    "/naira_cards/mock_debit_naira_card": ("three_ds", "channel"),
}


def dependent(path, message):
    fields = next((f for suffix, f in DEPENDENT_FIELDS.items() if path.endswith(suffix)), ())
    return any(message.startswith(field) for field in fields)


@schemathesis.check
def schema_valid_requests_are_never_refused_for_their_shape(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    body = response.json()
    message = body.get("message", "")
    if body.get("code") == "invalid_request" and not dependent(case.operation.path, message):
        raise AssertionError(f"A schema-valid request was refused as malformed: {message}")
    return None


# A valid Idempotency-Key, as the document's pattern has it.
VALID_KEY = re.compile(r"^[ -~]*[!-~][ -~]*$")


@schemathesis.hook
def before_call(ctx, case, kwargs):
    """A valid Idempotency-Key is made unique to its request: the
    generator reuses values across requests, and a key reused for another
    request is a 422 that depends on history, not on the request's shape
    (tests/e2e/idempotency.rs covers reuse). An invalid key is sent as
    generated, to be refused."""
    key = (case.headers or {}).get("Idempotency-Key")
    if isinstance(key, str) and len(key) <= 255 and VALID_KEY.match(key):
        case.headers["Idempotency-Key"] = str(uuid.uuid4())

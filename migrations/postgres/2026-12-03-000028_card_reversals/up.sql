-- Money a card processor gave back of an approved debit (a refund, a
-- reversal), once by the processor's reference, to the card or (the card
-- deleted or full) to the issuing wallet; never more, over all of a
-- debit's, than the debit took.
CREATE TABLE card_reversals (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    card_id TEXT NOT NULL REFERENCES cards (id),
    transaction_id TEXT NOT NULL REFERENCES card_transactions (id),
    reference TEXT NOT NULL,
    kind TEXT NOT NULL,
    amount BIGINT NOT NULL,
    credited_to TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX card_reversals_by_reference ON card_reversals (livemode, reference);
CREATE INDEX card_reversals_by_transaction ON card_reversals (transaction_id);
CREATE INDEX card_reversals_by_card ON card_reversals (card_id);

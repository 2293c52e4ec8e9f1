-- Cards a processor keeps: its vault holds the number and CVV (the card's
-- pan_sealed and cvv_sealed then seal an empty value), the service its id.
CREATE TABLE processor_cards (
    card_id TEXT PRIMARY KEY REFERENCES cards (id),
    livemode BOOLEAN NOT NULL,
    processor_card_id TEXT NOT NULL
);
CREATE UNIQUE INDEX processor_cards_by_id ON processor_cards (livemode, processor_card_id);

-- Each cardholder's customer at the mode's processor, made with its first
-- card there. The row is claimed (customer_id NULL) by the one request
-- that creates the customer; a claim older than a minute is taken over
-- (its request died).
CREATE TABLE processor_customers (
    cardholder_id TEXT PRIMARY KEY REFERENCES cardholders (id),
    customer_id TEXT,
    claimed_at BIGINT NOT NULL
);

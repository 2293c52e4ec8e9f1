-- Each approved transaction of a card is numbered 1, 2, ... in the order
-- its debit was approved (under the card's lock), and the card keeps the
-- count: page p of a history is then a range of numbers read from an
-- index, as quick for page 5,000 as for page 1 (an OFFSET walks every
-- entry before the page).
ALTER TABLE cards ADD COLUMN approved_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE card_transactions ADD COLUMN approved_seq BIGINT;

UPDATE card_transactions SET approved_seq = numbered.seq
FROM (SELECT id, row_number() OVER (PARTITION BY card_id ORDER BY created_at, id) AS seq
      FROM card_transactions WHERE status = 'approved') AS numbered
WHERE card_transactions.id = numbered.id;

UPDATE cards SET approved_count = COALESCE(
    (SELECT MAX(approved_seq) FROM card_transactions t WHERE t.card_id = cards.id), 0);

CREATE UNIQUE INDEX card_transactions_approved_seq ON card_transactions (card_id, approved_seq);

-- The records of what a card's creation and deletion moved, so that
-- `issuing ledger check` ties each card's balance to its records:
-- opened_with, what its creation put on it (the wallet's funding, or a
-- migrated card's balance); closed_with, its balance when it was deleted
-- (given to the wallet or to its successor; below zero, written off).
-- Cards made before this migration take what their entries posted.
CREATE TABLE card_openings (
    account_id TEXT NOT NULL,
    card_id TEXT NOT NULL,
    opened_with BIGINT NOT NULL,
    closed_with BIGINT,
    PRIMARY KEY (account_id, card_id),
    FOREIGN KEY (card_id) REFERENCES cards (id)
);
INSERT INTO card_openings (account_id, card_id, opened_with, closed_with)
SELECT c.account_id, c.id,
    COALESCE((SELECT SUM(p.amount) FROM ledger_postings p
        JOIN ledger_entries e ON e.account_id = p.account_id AND e.id = p.entry_id
        WHERE p.account_id = c.account_id AND p.ledger_account_id = 'la_' || c.id
          AND e.kind = 'card_funding' AND p.amount > 0), 0),
    CASE WHEN c.deleted_at IS NULL THEN NULL ELSE COALESCE((SELECT SUM(-p.amount) FROM ledger_postings p
        JOIN ledger_entries e ON e.account_id = p.account_id AND e.id = p.entry_id
        WHERE p.account_id = c.account_id AND p.ledger_account_id = 'la_' || c.id
          AND (e.kind IN ('card_deletion', 'card_write_off') OR (e.kind = 'card_funding' AND p.amount < 0))), 0) END
FROM cards c;

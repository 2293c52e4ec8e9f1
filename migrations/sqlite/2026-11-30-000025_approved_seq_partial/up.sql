-- Only approved transactions have an approval number, so only they are
-- in its index, and only a query naming approval numbers (a history page)
-- can take it. The recurring-merchant check names the card, the status
-- and a time range, which the history index matches; planned with
-- statistics of about one transaction a card, the two indexes cost it
-- the same, and PostgreSQL took this one, then filtered every row of a
-- card with 74,000 transactions on each debit (378 ms).
DROP INDEX card_transactions_approved_seq;
CREATE UNIQUE INDEX card_transactions_approved_seq ON card_transactions (card_id, approved_seq)
    WHERE approved_seq IS NOT NULL;

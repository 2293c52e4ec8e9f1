-- A card's monthly maintenance fee is charged once per month, guarded by
-- the card itself: `fee_month` (YYYYMM) is the last month handled, charged
-- or found too low. It used to be a reference in the clients' namespace,
-- which a client could take first to skip the fee for good.
-- `fee_anchor_at` is the time the fee anniversaries count from: the card's
-- creation, or for a migrated card that of the card it replaced.
ALTER TABLE cards ADD COLUMN fee_month INTEGER;
ALTER TABLE cards ADD COLUMN fee_anchor_at BIGINT NOT NULL DEFAULT 0;

UPDATE cards SET fee_anchor_at = created_at;

UPDATE cards SET fee_month = (
    SELECT MAX(CAST(substr(r.reference, length(r.reference) - 5) AS INTEGER))
    FROM transaction_references r
    WHERE r.account_id = cards.account_id
      AND r.livemode = cards.livemode
      AND length(r.reference) = length(cards.id) + 11
      AND substr(r.reference, 1, length(cards.id) + 5) = 'fee_' || cards.id || '_');

ALTER TABLE cards DROP COLUMN fee_anchor_at;
ALTER TABLE cards DROP COLUMN fee_month;

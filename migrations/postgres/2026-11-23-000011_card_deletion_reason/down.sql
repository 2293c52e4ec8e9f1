ALTER TABLE cards DROP COLUMN deleted_reason;

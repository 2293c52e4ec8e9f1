ALTER TABLE card_transfers DROP COLUMN currency;
ALTER TABLE cards DROP COLUMN nin_sealed;
ALTER TABLE cards DROP COLUMN currency;

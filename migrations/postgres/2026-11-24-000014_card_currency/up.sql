-- Naira cards: a card and each of its transfers carry the card's currency
-- (its ledger accounts already do); a Naira card may keep the NIN it was
-- created with, sealed like every identity number.
ALTER TABLE cards ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE cards ADD COLUMN nin_sealed BYTEA;
ALTER TABLE card_transfers ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';

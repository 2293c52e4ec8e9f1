DELETE FROM ledger_accounts WHERE code = 'in_transit';
DROP TABLE card_details_tokens;
DROP TABLE card_transfers;
DROP TABLE transaction_references;
DROP TABLE cards;

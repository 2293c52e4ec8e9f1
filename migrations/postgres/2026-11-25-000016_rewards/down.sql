DROP INDEX card_transactions_by_cardholder;
DROP TABLE rewards;
DROP TABLE reward_catalogues;
DROP TABLE reward_rules;

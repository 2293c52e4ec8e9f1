DROP TABLE card_reversals;

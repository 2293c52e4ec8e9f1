DROP TABLE card_openings;

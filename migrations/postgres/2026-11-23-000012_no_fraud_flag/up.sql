-- Never set: the card's state (domain::cards::state) is the one source of what a card is.
ALTER TABLE cards DROP COLUMN blocked_due_to_fraud;

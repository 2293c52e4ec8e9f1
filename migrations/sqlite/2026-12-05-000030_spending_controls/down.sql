ALTER TABLE three_ds_challenges DROP COLUMN merchant_country;
DROP TABLE spending_controls;
DROP TABLE card_spending;

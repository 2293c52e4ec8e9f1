DROP TABLE processor_customers;
DROP TABLE processor_cards;

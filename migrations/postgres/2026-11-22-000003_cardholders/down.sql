DROP TABLE cardholders;
ALTER TABLE accounts DROP COLUMN utility_bill_url;
ALTER TABLE accounts DROP COLUMN company_address;

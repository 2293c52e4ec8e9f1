-- The account's own KYC profile (registration needs both: 403 otherwise),
-- and cardholders.

ALTER TABLE accounts ADD COLUMN company_address TEXT;
ALTER TABLE accounts ADD COLUMN utility_bill_url TEXT;

-- status: pending (async, verification queued) | manual_review | verified | failed
CREATE TABLE cardholders (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode BOOLEAN NOT NULL,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email_address TEXT,
    phone TEXT NOT NULL,
    address TEXT NOT NULL,
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    country TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    house_no TEXT NOT NULL,
    lga TEXT,
    id_type TEXT NOT NULL,
    bvn TEXT,
    id_no TEXT,
    id_image TEXT,
    selfie_image TEXT,
    id_first_name TEXT,
    id_last_name TEXT,
    id_middle_name TEXT,
    date_of_birth TEXT,
    gender TEXT,
    status TEXT NOT NULL,
    blacklisted BOOLEAN NOT NULL DEFAULT FALSE,
    error_description TEXT,
    meta_data TEXT,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX cardholders_by_account ON cardholders (account_id, livemode, id);
CREATE INDEX cardholders_in_review ON cardholders (status);
-- A BVN and a phone belong to one live cardholder per account and mode.
CREATE UNIQUE INDEX cardholders_bvn ON cardholders (account_id, livemode, bvn) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX cardholders_phone ON cardholders (account_id, livemode, phone) WHERE deleted_at IS NULL;

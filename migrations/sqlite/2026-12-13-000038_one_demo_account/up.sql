-- One demo account: processes started together on an empty database each
-- made one. Any made so before stay, all but one as ordinary accounts.
UPDATE accounts SET is_demo = FALSE
WHERE is_demo AND id <> (SELECT MIN(id) FROM accounts WHERE is_demo);
CREATE UNIQUE INDEX accounts_one_demo ON accounts (is_demo) WHERE is_demo;

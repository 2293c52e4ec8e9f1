-- Funding a card from one wallet row with a single conditional update:
-- the wallet's row lock is held from this statement to its commit.
\set card random(1, 10000)
WITH wallet AS (UPDATE hot_accounts SET balance = balance - 1000 WHERE id = 0 AND balance >= 1000 RETURNING id)
UPDATE hot_accounts SET balance = balance + 1000 WHERE id = :card AND EXISTS (SELECT 1 FROM wallet);

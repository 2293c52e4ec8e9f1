-- One account's sandbox books of :cards cards, each funded with :per cents
-- at creation and debited :per times 1 cent: :cards x (1 + :per) entries.
\set ON_ERROR_STOP on
BEGIN;
CREATE TEMP TABLE acct AS SELECT id FROM accounts LIMIT 1;
INSERT INTO cardholders (id, account_id, livemode, first_name, last_name, phone, address, city, state, country, postal_code, house_no, id_type, status, blacklisted, created_at)
SELECT 'ch_bench', id, FALSE, 'Ada', 'Obi', '+2348030000000', '1 Road', 'Lagos', 'Lagos', 'NG', '100001', '1', 'NIGERIAN_BVN_VERIFICATION', 'verified', FALSE, 1 FROM acct;
INSERT INTO cards (id, account_id, livemode, cardholder_id, card_type, card_name, pan_sealed, cvv_sealed, expiry_month_sealed, expiry_year_sealed, last_4, pin_sealed, card_limit, fee_hold, is_active, consecutive_declines, created_at, spend_month, month_spend, approved_count, fee_anchor_at, currency)
SELECT 'card_b' || g, a.id, FALSE, 'ch_bench', 'virtual', 'Ada Obi', '\x00', '\x00', '\x00', '\x00', '0000', '\x00', 1000000, 0, TRUE, 0, 1, 0, 0, :per, 1, 'USD'
FROM acct a, generate_series(1, :cards) g;
INSERT INTO card_openings (account_id, card_id, opened_with) SELECT account_id, id, :per FROM cards WHERE id LIKE 'card_b%';
INSERT INTO ledger_accounts (id, account_id, livemode, code, currency, balance, created_at)
SELECT 'la_' || c.id || k.suffix, c.account_id, FALSE, k.kind || ':' || c.id, 'USD', k.balance, 1
FROM cards c, (VALUES ('', 'card', 0), ('_transit', 'card_transit', 0), ('_spend', 'card_spend', :per), ('_held', 'card_held', 0)) AS k(suffix, kind, balance)
WHERE c.id LIKE 'card_b%';
-- The creation's funding from the wallet, whose balance then is what it kept.
INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) SELECT 'le_f_' || id, account_id, FALSE, 'card_funding', 1 FROM cards WHERE id LIKE 'card_b%';
INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount)
SELECT c.account_id, 'le_f_' || c.id, 0, 'la_' || c.account_id || '_test_issuing_wallet_USD', 'USD', -:per FROM cards c WHERE c.id LIKE 'card_b%'
UNION ALL SELECT c.account_id, 'le_f_' || c.id, 1, 'la_' || c.id, 'USD', :per FROM cards c WHERE c.id LIKE 'card_b%';
INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at) SELECT 'le_fund', id, FALSE, 'wallet_funding', 1 FROM acct;
INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount)
SELECT id, 'le_fund', 0, 'la_' || id || '_test_faucet_USD', 'USD', -(:cards * :per) FROM acct
UNION ALL SELECT id, 'le_fund', 1, 'la_' || id || '_test_issuing_wallet_USD', 'USD', :cards * :per FROM acct;
UPDATE ledger_accounts SET balance = -(:cards * :per) WHERE id = (SELECT 'la_' || id || '_test_faucet_USD' FROM acct);
-- Each card's debits: a transaction and its entry each.
INSERT INTO card_transactions (id, account_id, livemode, card_id, cardholder_id, client_reference, status, amount, currency, description, enriched_data, merchant_name, created_at, approved_seq, kind)
SELECT 'ctx_' || c.id || '_' || n, c.account_id, FALSE, c.id, 'ch_bench', 'r_' || c.id || '_' || n, 'approved', 1, 'USD', 'SHOP', '{}', 'SHOP', 2, n, 'debit'
FROM cards c, generate_series(1, :per) n WHERE c.id LIKE 'card_b%';
INSERT INTO ledger_entries (id, account_id, livemode, kind, created_at)
SELECT 'le_' || c.id || '_' || n, c.account_id, FALSE, 'card_debit', 2 FROM cards c, generate_series(1, :per) n WHERE c.id LIKE 'card_b%';
INSERT INTO ledger_postings (account_id, entry_id, seq, ledger_account_id, currency, amount)
SELECT c.account_id, 'le_' || c.id || '_' || n, s.seq, 'la_' || c.id || s.suffix, 'USD', s.amount
FROM cards c, generate_series(1, :per) n, (VALUES (0, '', -1), (1, '_spend', 1)) AS s(seq, suffix, amount) WHERE c.id LIKE 'card_b%';
COMMIT;
ANALYZE;

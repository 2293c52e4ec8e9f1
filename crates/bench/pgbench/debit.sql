-- The statements one approved sandbox debit runs on PostgreSQL, in order,
-- as diesel sends them (captured with log_statement = 'all'); only the
-- first line is extra: it picks a seeded card by number. Values are the
-- app's; `enriched` (the merchant's JSON) is a variable, as pgbench would
-- read its colons as variables.
\set i random(1, :cards)
\set r random(1, 9000000000000000000)
SELECT card_id, cardholder_id, balance_la, spend_la FROM bench_cards WHERE n = :i \gset
SELECT "api_keys"."account_id", "api_keys"."livemode" FROM "api_keys" WHERE ("api_keys"."lookup_hash" = :key_hash) LIMIT 1;
SELECT "test_clocks"."offset_secs" FROM "test_clocks" WHERE ("test_clocks"."account_id" = :account) LIMIT 1;
SELECT "card_transactions"."id" FROM "card_transactions" WHERE ((((("card_transactions"."card_id" = :card_id) AND ("card_transactions"."status" = 'approved')) AND ("card_transactions"."created_at" >= :month_start)) AND ("card_transactions"."created_at" < :month_end)) AND ("card_transactions"."merchant_name" = 'Spotify')) LIMIT 1;
BEGIN;
INSERT INTO "transaction_references" ("account_id", "livemode", "reference", "created_at") VALUES (:account, false, :r, :now);
UPDATE "cards" SET "consecutive_declines" = "cards"."consecutive_declines" WHERE (((("cards"."account_id" = :account) AND ("cards"."livemode" = false)) AND ("cards"."deleted_at" IS NULL)) AND ("cards"."id" = :card_id)) RETURNING "cards"."cardholder_id", "cards"."is_active", "cards"."fee_hold", "cards"."card_limit", "cards"."spend_month", "cards"."month_spend", "cards"."consecutive_declines";
SELECT "ledger_accounts"."balance" FROM "ledger_accounts" WHERE ("ledger_accounts"."id" = :balance_la) LIMIT 1;
INSERT INTO "card_transactions" ("id", "account_id", "livemode", "card_id", "cardholder_id", "client_reference", "status", "decline_reason", "amount", "currency", "description", "merchant_category_code", "enriched_data", "merchant_name", "created_at") VALUES (:r, :account, false, :card_id, :cardholder_id, :r, 'approved', DEFAULT, 100, 'USD', 'SPOTIFY P1A2B3', DEFAULT, :enriched, 'Spotify', :now);
UPDATE "cards" SET "consecutive_declines" = 0, "spend_month" = :month, "month_spend" = "cards"."month_spend" + 100, "last_activity_at" = :now WHERE ("cards"."id" = :card_id);
INSERT INTO "ledger_entries" ("id", "account_id", "livemode", "kind", "created_at") VALUES (:r, :account, false, 'card_debit', :now);
INSERT INTO "ledger_postings" ("account_id", "entry_id", "seq", "ledger_account_id", "currency", "amount") VALUES (:account, :r, 0, :balance_la, 'USD', -100);
INSERT INTO "ledger_postings" ("account_id", "entry_id", "seq", "ledger_account_id", "currency", "amount") VALUES (:account, :r, 1, :spend_la, 'USD', 100);
UPDATE "ledger_accounts" SET "balance" = ("ledger_accounts"."balance" + 100) WHERE ((("ledger_accounts"."account_id" = :account) AND ("ledger_accounts"."id" = :spend_la)) AND ("ledger_accounts"."balance" <= 9223372036854775707));
UPDATE "ledger_accounts" SET "balance" = ("ledger_accounts"."balance" - 100) WHERE ((("ledger_accounts"."account_id" = :account) AND ("ledger_accounts"."id" = :balance_la)) AND ("ledger_accounts"."balance" >= 400));
COMMIT;

-- The account ledger (a Durable Object per account) now writes every usage-log entry in the same
-- step as the credit movement it records, and the entries reach this table in batches through a
-- queue (at least once, so rows are inserted with INSERT OR IGNORE by id).
-- `seq` is the entry's position in its account's ledger: it orders entries written in the same
-- millisecond, where rowid (delivery order) no longer says anything.
-- `interrupted` marks a call whose worker died before it answered: settled by the ledger's alarm
-- with status 500 and its credits refunded.
ALTER TABLE usage_log ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_log ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
DROP INDEX usage_log_by_account_time;
CREATE INDEX usage_log_by_account_time ON usage_log (account_id, created_at DESC, seq DESC);

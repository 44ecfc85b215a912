-- One row per image-operation request that passed authentication (a batch writes one per item),
-- failures included. `credits_deducted` is what was taken; `credits_refunded` what went back
-- (upstream failures), so the ledger reconciles as the sum of (deducted - refunded).
CREATE TABLE usage_log (
  id               TEXT PRIMARY KEY,
  account_id       TEXT NOT NULL,
  key_prefix       TEXT NOT NULL,
  request_id       TEXT NOT NULL,
  tool             TEXT NOT NULL,
  source           TEXT NOT NULL CHECK (source IN ('rest', 'mcp', 'cli')),
  model            TEXT NOT NULL,
  prompt           TEXT NOT NULL DEFAULT '',
  status_code      INTEGER NOT NULL,
  latency_ms       INTEGER NOT NULL,
  credits_deducted INTEGER NOT NULL DEFAULT 0,
  credits_refunded INTEGER NOT NULL DEFAULT 0,
  created_at       TEXT NOT NULL
);
-- Serves "newest first for one account"; rowid (implicit last column) breaks ties in insert order.
CREATE INDEX usage_log_by_account_time ON usage_log (account_id, created_at DESC);
CREATE INDEX usage_log_by_request ON usage_log (request_id);

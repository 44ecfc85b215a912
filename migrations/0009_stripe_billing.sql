-- Payments through Stripe (src/payments/, docs/billing.md).
-- An account's Stripe customer, made the first time it opens Checkout; webhooks find the account by it.
ALTER TABLE accounts ADD COLUMN stripe_customer_id TEXT;
CREATE UNIQUE INDEX accounts_by_stripe_customer ON accounts (stripe_customer_id) WHERE stripe_customer_id IS NOT NULL;
-- plan, plan_validity and billing_cycle are a copy of what the account's ledger decided; each
-- decision carries a version, and a copy only replaces an older one (webhooks run concurrently).
ALTER TABLE accounts ADD COLUMN plan_version INTEGER NOT NULL DEFAULT 0;
-- The usage log takes entries of source 'stripe' (a purchase's grant, a refund's removal) and says
-- what an entry added to the balance in credits_granted; deductions and refunds of calls stay in
-- credits_deducted and credits_refunded. SQLite cannot change a CHECK constraint in place, so the
-- table is rebuilt with its rows (the queue's INSERT OR IGNORE would silently drop rows it refuses).
CREATE TABLE usage_log_next (
  id               TEXT PRIMARY KEY,
  account_id       TEXT NOT NULL,
  key_prefix       TEXT NOT NULL,
  request_id       TEXT NOT NULL,
  tool             TEXT NOT NULL,
  source           TEXT NOT NULL CHECK (source IN ('rest', 'mcp', 'cli', 'stripe')),
  model            TEXT NOT NULL,
  prompt           TEXT NOT NULL DEFAULT '',
  status_code      INTEGER NOT NULL,
  latency_ms       INTEGER NOT NULL,
  credits_deducted INTEGER NOT NULL DEFAULT 0,
  credits_refunded INTEGER NOT NULL DEFAULT 0,
  created_at       TEXT NOT NULL,
  seq              INTEGER NOT NULL DEFAULT 0,
  interrupted      INTEGER NOT NULL DEFAULT 0,
  credits_granted  INTEGER NOT NULL DEFAULT 0
);
INSERT INTO usage_log_next (id, account_id, key_prefix, request_id, tool, source, model, prompt, status_code, latency_ms,
  credits_deducted, credits_refunded, created_at, seq, interrupted)
  SELECT id, account_id, key_prefix, request_id, tool, source, model, prompt, status_code, latency_ms,
    credits_deducted, credits_refunded, created_at, seq, interrupted FROM usage_log;
DROP TABLE usage_log;
ALTER TABLE usage_log_next RENAME TO usage_log;
CREATE INDEX usage_log_by_account_time ON usage_log (account_id, created_at DESC, seq DESC);
CREATE INDEX usage_log_by_request ON usage_log (request_id);

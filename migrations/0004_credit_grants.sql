-- Operator grants and debits (POST /admin/v1/accounts/{id}/credits), kept for audit. Together with
-- usage_log they explain every change of an account's balance.
CREATE TABLE credit_grants (
  id         TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  amount     INTEGER NOT NULL,
  reason     TEXT NOT NULL DEFAULT '',
  balance    INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX credit_grants_by_account ON credit_grants (account_id, created_at);

-- Accounts and their API keys.
-- The credit balance itself lives in the account's Durable Object (AccountLedger); the row keeps
-- only the opening balance the ledger starts from the first time it is touched.
CREATE TABLE accounts (
  id              TEXT PRIMARY KEY,
  name            TEXT NOT NULL,
  email           TEXT NOT NULL UNIQUE COLLATE NOCASE,
  provider        TEXT NOT NULL DEFAULT 'local' CHECK (provider IN ('google', 'github', 'local')),
  plan            TEXT NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'starter', 'pro', 'business')),
  plan_validity   TEXT,
  billing_cycle   TEXT NOT NULL DEFAULT 'monthly',
  profile_picture TEXT,
  opening_credits INTEGER NOT NULL DEFAULT 0 CHECK (opening_credits >= 0),
  created_at      TEXT NOT NULL
);

-- No foreign key to accounts on purpose: when an account is deleted its keys must still resolve,
-- so that they answer 404 account_not_found rather than 401 invalid_api_key.
CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL,
  name         TEXT NOT NULL,
  prefix       TEXT NOT NULL,
  hash         TEXT NOT NULL UNIQUE,
  created_at   TEXT NOT NULL,
  revoked_at   TEXT,
  last_used_at TEXT
);
CREATE INDEX api_keys_by_account ON api_keys (account_id);

-- The dashboard's sign-in state. Accounts themselves stay in `accounts` (0001); what is here is
-- only how a person proves they own one, and the short-lived records around that.

-- Local (email + password) sign-in. One row per account that has a password; accounts created
-- through GitHub or Google have none until they set one. `hash` is
-- "pbkdf2-sha256$<iterations>$<salt base64>$<key base64>" so the cost can be raised later
-- without a migration (old hashes keep verifying with the iteration count they carry).
CREATE TABLE account_passwords (
  account_id TEXT PRIMARY KEY,
  hash       TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- Signed-in browsers. The cookie holds a random token; only its SHA-256 is kept, so a leaked
-- table does not let anyone sign in. Deleting the row signs the browser out.
CREATE TABLE dashboard_sessions (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX dashboard_sessions_by_account ON dashboard_sessions (account_id);

-- Failed sign-ins (and sign-ups), counted per email and per client IP over a sliding window.
-- `scope` is "email:<address>", "ip:<address>" or "signup-ip:<address>"; `at` is epoch ms.
CREATE TABLE sign_in_attempts (
  scope TEXT NOT NULL,
  at    INTEGER NOT NULL
);
CREATE INDEX sign_in_attempts_by_scope ON sign_in_attempts (scope, at);

-- OAuth authorization requests in flight: the state (hashed) and, for Google, the PKCE verifier.
-- Rows are single-use and live 10 minutes.
CREATE TABLE oauth_states (
  state_hash    TEXT PRIMARY KEY,
  provider      TEXT NOT NULL CHECK (provider IN ('github', 'google')),
  code_verifier TEXT,
  created_at    INTEGER NOT NULL
);

-- Which GitHub or Google identity signs in to which account. The subject (the provider's user
-- id) is stable when the person changes their email there.
CREATE TABLE oauth_identities (
  provider   TEXT NOT NULL CHECK (provider IN ('github', 'google')),
  subject    TEXT NOT NULL,
  account_id TEXT NOT NULL,
  email      TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (provider, subject)
);
CREATE INDEX oauth_identities_by_account ON oauth_identities (account_id);

-- The key the dashboard playground bills through (its secret is never kept anywhere), so that
-- playground calls walk the same billed path as REST and show in the log under its prefix.
CREATE TABLE playground_keys (
  account_id TEXT PRIMARY KEY,
  key_id     TEXT NOT NULL
);

-- The dashboard's signing secret (CSRF tokens), created on first use when no DASHBOARD_SECRET
-- is configured, so a fresh deployment needs no extra setup.
CREATE TABLE dashboard_secrets (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

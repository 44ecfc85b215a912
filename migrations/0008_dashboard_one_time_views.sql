-- What the dashboard keeps between a form's POST and the page the browser is redirected to
-- (post/redirect/get), so that a reload or Back shows that page again instead of repeating the
-- POST: no second key, no second charge.

-- A new API key's secret, held for a few minutes until the page after the redirect shows it,
-- once. The redirect's address carries a random token; only its SHA-256 is kept here, and the
-- secret is sealed (AES-GCM) under a key derived from that token, so these rows alone reveal
-- nothing. Only the session that created the key may open it; opening deletes the row.
CREATE TABLE key_reveals (
  token_hash   TEXT PRIMARY KEY,
  session_hash TEXT NOT NULL,
  key_id       TEXT NOT NULL,
  sealed       TEXT NOT NULL,
  expires_at   INTEGER NOT NULL
);
CREATE INDEX key_reveals_by_expiry ON key_reveals (expires_at);

-- Playground runs, one per submitted form. `token` is generated when the form is rendered (an
-- idempotency key): submitting the same form twice finds the row and shows its outcome instead
-- of running and billing again. `form` holds the text fields to refill the form with; an
-- uploaded picture is kept in R2 under `upload_key` so that a re-run uses it again; the result
-- body is in R2 (it can hold a data URI far larger than a row).
CREATE TABLE playground_runs (
  account_id  TEXT NOT NULL,
  token       TEXT NOT NULL,
  tool        TEXT NOT NULL,
  state       TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed')),
  form        TEXT NOT NULL DEFAULT '{}',
  upload_key  TEXT,
  upload_name TEXT,
  error       TEXT,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (account_id, token)
);
CREATE INDEX playground_runs_by_age ON playground_runs (account_id, created_at);

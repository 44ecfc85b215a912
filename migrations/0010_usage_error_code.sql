-- The error code a failed call was answered with (insufficient_credits, upstream_error, ...), so a
-- usage entry says why a call failed, not only its status. NULL for successes and for entries
-- written before this column existed.
ALTER TABLE usage_log ADD COLUMN error_code TEXT;

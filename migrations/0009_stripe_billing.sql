-- Payments through Stripe (src/payments/, docs/billing.md).
-- An account's Stripe customer, made the first time it opens Checkout; webhooks find the account by it.
ALTER TABLE accounts ADD COLUMN stripe_customer_id TEXT;
CREATE UNIQUE INDEX accounts_by_stripe_customer ON accounts (stripe_customer_id) WHERE stripe_customer_id IS NOT NULL;
-- plan, plan_validity and billing_cycle are a copy of what the account's ledger decided; each
-- decision carries a version, and a copy only replaces an older one (webhooks run concurrently).
ALTER TABLE accounts ADD COLUMN plan_version INTEGER NOT NULL DEFAULT 0;
-- Credits a usage-log entry added to the balance (a Stripe purchase); deductions and refunds of
-- calls stay in credits_deducted and credits_refunded.
ALTER TABLE usage_log ADD COLUMN credits_granted INTEGER NOT NULL DEFAULT 0;

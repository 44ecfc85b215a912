// An account's plans, from free up. No imports: the tests' fake Stripe reads the product table,
// which names them, in Node.

export const PLANS = ["free", "starter", "pro", "business"] as const;
export type Plan = (typeof PLANS)[number];

import type { BilledResult } from "../billing/billed-call";

/** The body of a successful image operation: the credit fields at the top and in `result`. */
export function toolSuccessBody(outcome: BilledResult) {
  const credits = { deductedCredits: outcome.deductedCredits, userCredits: outcome.userCredits };
  return { success: true as const, message: outcome.message, ...credits, result: { ...outcome.result, ...credits } };
}

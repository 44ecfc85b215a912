import type { PaymentEvent, PaymentOutcome, PlanState } from "./ledger-types";
import type { Payments } from "./payments";

// How a Stripe event changes the account, decided inside one ledger step (applyPayment in
// account-ledger.ts): credits granted or taken back, the plan, and the words the usage log keeps.
// The ledger has already checked that the event id is new; these functions only decide.

/** What the ledger hands these steps: its balance, and the one way to change it with an entry. */
export interface PaymentBooks {
  payments(): Payments;
  balance(): number;
  /** Moves the balance by `granted - removed` and writes the usage entry saying so. */
  book(event: PaymentEvent, tool: string, product: string, note: string, granted: number, removed: number): void;
}

type Decision = Omit<PaymentOutcome, "applied" | "balance">;

export function decidePayment(books: PaymentBooks, event: PaymentEvent): Decision {
  if (event.kind === "purchase") return purchase(books, event);
  if (event.kind === "refund") return refund(books, event);
  return subscriptionChange(books, event);
}

/** Credits a refund of `amountRefunded` of `amount` takes back of `credits` (rounded up). */
function refundedShare(credits: number, amount: number, amountRefunded: number): number {
  if (amount <= 0) return credits;
  return Math.min(credits, Math.ceil((credits * Math.min(amountRefunded, amount)) / amount));
}

function purchase(books: PaymentBooks, event: Extract<PaymentEvent, { kind: "purchase" }>): Decision {
  const ref = event.paymentRef ?? event.eventId;
  const earlier = books.payments().payment(ref);
  const tool = event.plan ? "plan_credits" : "buy_credits";
  let granted = event.credits;
  let note = `${event.product}: ${event.credits} credits granted`;
  let removed = 0;
  if (earlier && earlier.credits > 0) {
    // Another event for the same payment (a second kind of completion event) already granted it.
    granted = 0;
    note = `${event.product}: payment ${ref} was already granted; nothing more`;
  } else if (earlier) {
    // Its refund came first: grant only what the refund leaves.
    removed = refundedShare(event.credits, event.amount, earlier.amount_refunded);
    granted = event.credits - removed;
    note = `${event.product}: ${granted} of ${event.credits} credits granted; the payment was already refunded ${earlier.amount_refunded} of ${event.amount}`;
  }
  if (!(earlier && earlier.credits > 0)) {
    books.payments().savePayment({
      ref, product: event.product, credits: event.credits, credits_removed: removed, refund_target: removed,
      amount: event.amount, amount_refunded: earlier?.amount_refunded ?? 0, currency: event.currency, created_at: event.at,
    });
  }
  const plan = event.plan ? periodPaid(books, event.plan) : null;
  if (plan) note += `; plan ${plan.plan} until ${plan.validUntil}`;
  books.book(event, tool, event.product, note, granted, 0);
  return { granted, removed: 0, note, plan };
}

/** A paid period: the plan runs to the later of its current end and this period's end. */
function periodPaid(books: PaymentBooks, period: NonNullable<Extract<PaymentEvent, { kind: "purchase" }>["plan"]>): PlanState | null {
  const subscription = books.payments().subscription(period.subscriptionId);
  if (subscription?.ended) return null; // a late invoice of a subscription already over: credits, not the plan
  const current = books.payments().plan();
  const sameSubscription = current.subscriptionId === period.subscriptionId;
  const end = Math.max(period.periodEnd, sameSubscription && current.validUntil ? Date.parse(current.validUntil) : 0);
  return books.payments().setPlan({
    plan: period.plan,
    validUntil: new Date(end).toISOString(),
    billingCycle: period.billingCycle,
    subscriptionId: period.subscriptionId,
    cancelAtPeriodEnd: sameSubscription ? current.cancelAtPeriodEnd : false,
  });
}

function refund(books: PaymentBooks, event: Extract<PaymentEvent, { kind: "refund" }>): Decision {
  const payment = books.payments().payment(event.paymentRef);
  if (!payment || payment.credits === 0) {
    // Out of order: the payment's own event has not come yet. Remember the refund; the grant reads it.
    books.payments().savePayment({
      ref: event.paymentRef, product: payment?.product ?? "", credits: 0, credits_removed: 0, refund_target: 0,
      amount: event.amount, amount_refunded: Math.max(event.amountRefunded, payment?.amount_refunded ?? 0), currency: payment?.currency ?? "", created_at: event.at,
    });
    const note = `refund of ${event.amountRefunded} of ${event.amount} for ${event.paymentRef} before its payment: its grant will be reduced`;
    books.book(event, "refund", "", note, 0, 0);
    return { granted: 0, removed: 0, note, plan: null };
  }
  const amountRefunded = Math.max(event.amountRefunded, payment.amount_refunded);
  const target = refundedShare(payment.credits, payment.amount || event.amount, amountRefunded);
  const due = Math.max(0, target - payment.refund_target);
  const removed = Math.min(due, books.balance());
  books.payments().savePayment({ ...payment, credits_removed: payment.credits_removed + removed, refund_target: Math.max(target, payment.refund_target), amount_refunded: amountRefunded });
  const spent = due - removed;
  const note = `refund of ${amountRefunded} of ${payment.amount} for ${payment.product}: ${removed} credits removed` +
    (spent > 0 ? `; ${spent} were already spent and stay spent` : "");
  books.book(event, "refund", payment.product, note, 0, removed);
  return { granted: 0, removed, note, plan: null };
}

function subscriptionChange(books: PaymentBooks, event: Extract<PaymentEvent, { kind: "subscription" }>): Decision {
  const known = books.payments().subscription(event.subscriptionId);
  const ignored = (why: string): Decision => ({ granted: 0, removed: 0, note: `subscription ${event.subscriptionId}: ${why}`, plan: null });
  if (known?.ended) return ignored("already ended; nothing changes");
  if (known && event.at < known.lastEventAt) return ignored("an older change than one already applied; nothing changes");
  const ended = event.status === "ended";
  books.payments().saveSubscription(event.subscriptionId, ended, event.at);
  const current = books.payments().plan();
  const ours = current.subscriptionId === event.subscriptionId;
  let plan: PlanState | null = null;
  let note: string;
  if (ended) {
    if (ours) plan = books.payments().setPlan({ ...current, plan: "free", validUntil: null, subscriptionId: null, cancelAtPeriodEnd: false });
    note = ours ? `subscription ${event.subscriptionId} ended: plan free` : `subscription ${event.subscriptionId} ended`;
  } else if (ours || (event.plan && current.subscriptionId === null)) {
    const end = Math.max(event.periodEnd ?? 0, ours && current.validUntil ? Date.parse(current.validUntil) : 0);
    plan = books.payments().setPlan({
      ...current,
      plan: event.plan ?? current.plan,
      validUntil: end > 0 ? new Date(end).toISOString() : current.validUntil,
      subscriptionId: event.subscriptionId,
      cancelAtPeriodEnd: event.cancelAtPeriodEnd,
    });
    note = `plan ${plan.plan} until ${plan.validUntil}` + (plan.cancelAtPeriodEnd ? ", cancelled at the period's end" : "");
  } else {
    return ignored("not the account's plan; nothing changes");
  }
  books.book(event, "plan", plan?.plan ?? "", note, 0, 0);
  return { granted: 0, removed: 0, note, plan };
}

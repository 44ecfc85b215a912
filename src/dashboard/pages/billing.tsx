import type { PaymentRecord, PlanState } from "../../../durable-objects/ledger-types";
import { CREDIT_PACKS, formatAmount, PLAN_OFFERS } from "../../payments/catalog";
import { CsrfField, formatDate, Page, type Viewer } from "../layout";

// Billing: the plan and when it ends, buying credits and plans through Stripe Checkout, the
// customer portal for the plan, and past purchases. Without Stripe, how credits are granted here.

export interface BillingView {
  balance: number;
  /** Null when Stripe is off. */
  stripe: { plan: PlanState; payments: PaymentRecord[] } | null;
  /** The operator's own "Get credits" address (used when Stripe is off). */
  getCreditsUrl: string | null;
  notice?: string;
  problem?: string;
}

const PLAN_LABELS: Record<string, string> = { free: "Free", starter: "Starter", pro: "Pro", business: "Business" };

function CurrentPlan(props: { viewer: Viewer; balance: number; plan: PlanState | null }) {
  const { account } = props.viewer;
  const ends = props.plan?.cancelAtPeriodEnd && props.plan.validUntil ? `Cancelled: ends ${formatDate(props.plan.validUntil)}` : null;
  return (
    <dl class="grid">
      <div class="card stat"><dt>Credits</dt><dd data-testid="billing-balance">{String(props.balance)}</dd></div>
      <div class="card stat"><dt>Plan</dt><dd data-testid="billing-plan">{PLAN_LABELS[account.plan] ?? account.plan}</dd></div>
      <div class="card stat">
        <dt>Plan runs until</dt>
        <dd data-testid="billing-plan-end">{ends ?? (account.planValidity ? formatDate(account.planValidity) : "No end date")}</dd>
      </div>
    </dl>
  );
}

function OfferForm(props: { csrf: string; offer: string; label: string }) {
  return (
    <form method="post" action="/dashboard/billing/checkout">
      <CsrfField token={props.csrf} />
      <input type="hidden" name="offer" value={props.offer} />
      <button type="submit">{props.label}</button>
    </form>
  );
}

function Purchases(props: { payments: PaymentRecord[] }) {
  if (props.payments.length === 0) return <p class="muted">No purchases yet.</p>;
  return (
    <div class="table-scroll">
      <table data-testid="purchases">
        <thead><tr><th scope="col">Date</th><th scope="col">What</th><th scope="col">Paid</th><th scope="col">Credits</th></tr></thead>
        <tbody>
          {props.payments.map((payment) => (
            <tr>
              <td>{formatDate(payment.createdAt)}</td>
              <td>{payment.product}</td>
              <td>{formatAmount(payment.amount, payment.currency) + (payment.amountRefunded > 0 ? ` (refunded ${formatAmount(payment.amountRefunded, payment.currency)})` : "")}</td>
              <td>{payment.creditsRemoved > 0 ? `${payment.credits} (${payment.creditsRemoved} taken back)` : String(payment.credits)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BillingPage(props: { viewer: Viewer; view: BillingView }) {
  const { viewer, view } = props;
  const stripe = view.stripe;
  const subscribed = stripe?.plan.subscriptionId != null;
  return (
    <Page title="Billing" viewer={viewer} section="billing">
      <h1>Billing</h1>
      {view.notice ? <p class="notice" role="status">{view.notice}</p> : null}
      {view.problem ? <p class="alert" role="alert">{view.problem}</p> : null}
      <CurrentPlan viewer={viewer} balance={view.balance} plan={stripe?.plan ?? null} />
      {stripe ? (
        <>
          <section class="card" aria-labelledby="packs-title">
            <h2 id="packs-title">Buy credits</h2>
            <p>One payment through Stripe; the credits are added as soon as Stripe confirms it.</p>
            <ul class="offers">
              {CREDIT_PACKS.map((pack) => (
                <li>
                  <span>{`${pack.name}: ${formatAmount(pack.amount, pack.currency)}`}</span>
                  <OfferForm csrf={viewer.csrf} offer={pack.id} label={`Buy ${pack.name}`} />
                </li>
              ))}
            </ul>
          </section>
          <section class="card" aria-labelledby="plans-title">
            <h2 id="plans-title">Plans</h2>
            <p>Monthly through Stripe; each paid month adds the plan's credits.</p>
            {subscribed ? (
              <form method="post" action="/dashboard/billing/portal">
                <CsrfField token={viewer.csrf} />
                <button type="submit">Manage or cancel the plan</button>
              </form>
            ) : (
              <ul class="offers">
                {PLAN_OFFERS.map((offer) => (
                  <li>
                    <span>{`${offer.name}: ${offer.monthlyCredits.toLocaleString("en")} credits a month, ${formatAmount(offer.amount, offer.currency)} a month`}</span>
                    <OfferForm csrf={viewer.csrf} offer={offer.plan} label={`Choose ${offer.name}`} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section class="card" aria-labelledby="purchases-title">
            <h2 id="purchases-title">Past purchases</h2>
            <Purchases payments={stripe.payments} />
          </section>
        </>
      ) : (
        <section class="card" aria-labelledby="grants-title">
          <h2 id="grants-title">How credits are granted here</h2>
          <p>{"This Pixelgate does not sell credits itself: its operator grants them (the operator API, POST /admin/v1/accounts/{id}/credits)."}</p>
          {view.getCreditsUrl ? <p><a href={view.getCreditsUrl} data-testid="get-credits-external">Get credits</a></p> : <p>Ask the operator of this service for credits.</p>}
        </section>
      )}
    </Page>
  );
}

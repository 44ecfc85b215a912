import { GetCreditsLink, Page, type Viewer } from "../layout";
import { SpendChart } from "../spend-chart";
import type { DailySpend } from "../usage-query";

// The account at a glance: balance, plan and how long it runs, spend over 30 days, and how to
// make the first call.

const PLAN_LABELS: Record<string, string> = { free: "Free", starter: "Starter", pro: "Pro", business: "Business" };

function validityText(plan: string, validity: string | null): string {
  if (validity) return `until ${validity.slice(0, 10)}`;
  return plan === "free" ? "Free plan: no end date" : "No end date recorded";
}

export function OverviewPage(props: { viewer: Viewer; balance: number; spend: DailySpend[]; activeKeys: number; baseUrl: string; notice?: string }) {
  const { account } = props.viewer;
  return (
    <Page title="Overview" viewer={props.viewer} section="overview">
      <h1>{`Hello, ${account.name}`}</h1>
      {props.notice ? <p class="notice" role="status">{props.notice}</p> : null}
      <section aria-labelledby="account-title">
        <h2 id="account-title" class="visually-hidden">Account</h2>
        <dl class="grid">
          <div class="card stat">
            <dt>Credits</dt>
            <dd data-testid="balance">{String(props.balance)}</dd>
            <dd><GetCreditsLink /></dd>
          </div>
          <div class="card stat">
            <dt>Plan</dt>
            <dd data-testid="plan">{PLAN_LABELS[account.plan] ?? account.plan}</dd>
          </div>
          <div class="card stat">
            <dt>Plan validity</dt>
            <dd data-testid="plan-validity">{validityText(account.plan, account.planValidity)}</dd>
          </div>
        </dl>
      </section>
      {props.activeKeys === 0 ? (
        <section class="card" aria-labelledby="start-title">
          <h2 id="start-title">Make your first call</h2>
          <ol>
            <li><a href="/dashboard/keys">Create an API key</a>; it is shown once, so copy it then.</li>
            <li>
              Call the API with it:
              <pre><code>{`curl -s ${props.baseUrl}/v1/generate \\\n  -H "Authorization: Bearer $PIXELGATE_API_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '{"prompt":"a red kite over green hills"}'`}</code></pre>
            </li>
            <li>Or try every tool in the <a href="/dashboard/playground">playground</a> without a key.</li>
          </ol>
        </section>
      ) : null}
      <section class="card" aria-labelledby="spend-heading">
        <h2 id="spend-heading">Credits spent, last 30 days</h2>
        <SpendChart days={props.spend} />
        <p><a href="/dashboard/usage">See every call in the usage log</a></p>
      </section>
    </Page>
  );
}

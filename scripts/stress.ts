// `npm run stress`: the ledger proof. Starts the fake upstream providers in this
// process and a worker of its own (scripts/stress/worker.ts), makes many accounts and keys, and
// drives a bounded, self-stopping mix of every tool over loopback: single calls on /v1 and
// /playground, batches and multicalls, Idempotency-Key retries (concurrent copies, a retry after
// completion, the same key with another body), bursts past the 60-per-60-s limit, invalid bodies,
// accounts that run out of credits, and upstream models that fail, hang or answer garbage at a
// set rate. Meanwhile buyers pay through a fake Stripe and its signed webhook events are delivered
// two or three times each, shuffled (scripts/stress/payments.ts). Then it reconciles every
// account (scripts/stress/reconcile.ts, reconcilePayments), prints the totals, and exits non-zero
// on any mismatch.
//
//   npm run stress                  about 6 minutes of traffic
//   npm run stress -- --small       about 30 s of traffic, well under 2 minutes in all
//   options: --seconds N  --lanes N  --chaos PERCENT  --seed N  --crashes N
//
// After the traffic, crash faults (scripts/stress/crash.ts): slow calls in flight, the worker's
// whole process group killed and restarted on the same state; then the run waits until every
// ledger has settled its holds (the alarm) and delivered its log entries to D1 (the queue).
import os from "node:os";
import { parseArgs } from "node:util";
import { startFakeUpstream } from "../test/upstream/server.ts";
import { chaosTally } from "../test/upstream/chaos.ts";
import { REPO_ROOT, runScript } from "./bench/processes.ts";
import { prng } from "../test/support/prng.ts";
import { createAccount, ledgerBalance, type Account, type AccountKind } from "./stress/accounts.ts";
import { chaosRows } from "./stress/calls.ts";
import { crashDuringCalls, SLOW_MODEL, waitForSettlement, type Backlog } from "./stress/crash.ts";
import type { Exchange } from "./stress/client.ts";
import { makePictures } from "./stress/inputs.ts";
import { probeFeatures } from "./stress/probe.ts";
import { reconcile, type UsageRow } from "./stress/reconcile.ts";
import { selfCheck } from "./stress/self-check.ts";
import { accountTable, creditTotals, problemLines, tallyLines, trafficTable } from "./stress/report.ts";
import { startWorker, type StressWorker } from "./stress/worker.ts";
import { reconcilePayments, runPayments, selfCheckPayments, type StripeRow } from "./stress/payments.ts";
import { startFakeStripe } from "../test/stripe/fake-stripe.ts";
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET } from "../test/stripe/vocabulary.ts";
import { runWorkload } from "./stress/workload.ts";

const { values: options } = parseArgs({
  options: {
    small: { type: "boolean", default: false },
    seconds: { type: "string" },
    lanes: { type: "string" },
    chaos: { type: "string", default: "25" },
    seed: { type: "string", default: "20260801" },
    crashes: { type: "string" },
  },
});

const SMALL = options.small;
const PLAN = {
  seconds: Number(options.seconds ?? (SMALL ? 30 : 360)),
  lanes: Number(options.lanes ?? (SMALL ? 4 : 8)),
  chaosPercent: Number(options.chaos),
  /** kind, how many, credits each (or a range), keys each */
  accounts: [
    ["normal", SMALL ? 6 : 24, 3000, 2],
    ["poor", SMALL ? 3 : 8, [3, 30], 1],
    ["burst", SMALL ? 1 : 4, 500, 2],
  ] as Array<[AccountKind, number, number | [number, number], number]>,
  bursts: SMALL ? 1 : 4,
  /** Accounts that sign up on the dashboard and pay through the fake Stripe. */
  buyers: SMALL ? 2 : 6,
  crashes: Number(options.crashes ?? (SMALL ? 1 : 3)),
};
const UPSTREAM_TIMEOUT_MS = 1500;
const ADMIN_TOKEN = `stress-admin-${process.pid}`;
/** Everything, including start-up and the reconciliation, must end by then. */
const WATCHDOG_MS = (PLAN.seconds + (SMALL ? 100 : 300) + PLAN.crashes * 60) * 1000;
/** How long the ledgers may take to settle and deliver everything once the traffic is over. */
const SETTLE_TIMEOUT_MS = 90_000;

process.chdir(REPO_ROOT);
const log = (line: string) => console.log(`  . ${line}`);

async function makeAccounts(baseUrl: string, rng: () => number): Promise<Account[]> {
  const accounts: Account[] = [];
  let n = 0;
  for (const [kind, count, credits, keys] of PLAN.accounts) {
    for (let i = 0; i < count; i++) {
      const amount = Array.isArray(credits) ? credits[0] + Math.floor(rng() * (credits[1] - credits[0] + 1)) : credits;
      accounts.push(await createAccount(baseUrl, ADMIN_TOKEN, kind, amount, keys, ++n));
    }
  }
  return accounts;
}

async function meBalance(baseUrl: string, account: Account): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${account.auditKey.secret}` }, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET /v1/me for ${account.id} answered ${response.status}: ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { user: { credits: number } }).user.credits;
}

async function main(): Promise<number> {
  const rng = prng(Number(options.seed));
  const pictures = await makePictures();
  const upstreamOrigin = await startFakeUpstream();
  log(`fake upstream on ${upstreamOrigin} (OpenAI at /openai/v1, Replicate at /replicate); chaos ${PLAN.chaosPercent}%`);
  const stripe = await startFakeStripe();
  const worker: StressWorker = await startWorker({
    label: "stress", upstreamOrigin, upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS, adminToken: ADMIN_TOKEN, models: [...chaosRows(PLAN.chaosPercent), SLOW_MODEL], log,
    extraVars: { STRIPE_SECRET_KEY: FAKE_STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: FAKE_STRIPE_WEBHOOK_SECRET, STRIPE_API_URL: stripe.origin },
  });
  const exchanges: Exchange[] = [];
  let rows: UsageRow[];
  const balances = new Map<string, { start: number; final: number; me: number }>();
  let accounts: Account[];
  let features;
  let backlog: Backlog = { openHolds: 0, undeliveredEntries: 0 };
  let payments: Awaited<ReturnType<typeof runPayments>>;
  const buyerBalances = new Map<string, { start: number; final: number }>();
  const started = performance.now();
  try {
    accounts = await makeAccounts(worker.baseUrl, rng);
    log(`${accounts.length} accounts, ${accounts.reduce((sum, a) => sum + a.keys.length, 0)} keys`);
    features = await probeFeatures(worker.baseUrl, accounts, pictures, exchanges);
    log(`batch routes: ${features.batch ? "yes" : "NOT YET (skipped)"}; Idempotency-Key: ${features.idempotency ? "yes" : "NOT YET (skipped)"}`);
    log(`driving ${PLAN.lanes} lanes for ${PLAN.seconds} s`);
    [, payments] = await Promise.all([
      runWorkload({
        baseUrl: worker.baseUrl, accounts, pictures, rng, features, exchanges, lanes: PLAN.lanes, bursts: PLAN.bursts, log,
        stopAt: performance.now() + PLAN.seconds * 1000,
      }),
      runPayments({ baseUrl: worker.baseUrl, stripe, buyers: PLAN.buyers, rng: prng(Number(options.seed) + 1), log }),
    ]);
    for (let crash = 1; crash <= PLAN.crashes; crash++) {
      await crashDuringCalls({ worker, accounts, adminToken: ADMIN_TOKEN, rng, exchanges, log });
    }
    log("waiting for every ledger to settle its holds and deliver its log entries");
    backlog = await waitForSettlement(worker.baseUrl, ADMIN_TOKEN, [...accounts, ...payments.buyers.map((buyer) => ({ id: buyer.accountId }))], SETTLE_TIMEOUT_MS);
    log(`${exchanges.length} answers in ${((performance.now() - started) / 1000).toFixed(1)} s; reading balances`);
    for (const account of accounts) {
      const final = await ledgerBalance(worker.baseUrl, ADMIN_TOKEN, account.id);
      balances.set(account.id, { start: account.startCredits, final, me: await meBalance(worker.baseUrl, account) });
    }
    for (const buyer of payments.buyers) buyerBalances.set(buyer.accountId, { start: 0, final: await ledgerBalance(worker.baseUrl, ADMIN_TOKEN, buyer.accountId) });
  } finally {
    await worker.stop();
    await stripe.close();
  }
  if (worker.group.reloads > 0) log(`WARNING: the worker reloaded ${worker.group.reloads} time(s) during the run`);
  log("reading the usage log from the worker's local D1");
  rows = await worker.query<UsageRow>("SELECT account_id, tool, status_code, credits_deducted, credits_refunded, request_id, key_prefix, prompt, interrupted FROM usage_log WHERE source <> 'stripe'");
  const stripeRows = await worker.query<StripeRow>("SELECT account_id, request_id, tool, credits_deducted, credits_granted FROM usage_log WHERE source = 'stripe'");
  const opening = await worker.query<{ id: string; opening_credits: number }>(
    `SELECT id, opening_credits FROM accounts WHERE id IN (${payments.buyers.map((buyer) => `'${buyer.accountId.replace(/'/g, "")}'`).join(", ") || "''"})`,
  );
  for (const row of opening) buyerBalances.get(row.id)!.start = row.opening_credits;

  const result = reconcile(accounts, balances, exchanges, rows, features.idempotency);
  result.problems.push(...reconcilePayments(payments, buyerBalances, stripeRows));
  if (backlog.openHolds > 0 || backlog.undeliveredEntries > 0) {
    result.problems.push(`after ${SETTLE_TIMEOUT_MS / 1000} s the ledgers still had ${backlog.openHolds} open holds and ${backlog.undeliveredEntries} undelivered entries`);
  }
  const totals = creditTotals(rows, exchanges);
  console.log(`\n=== Pixelgate ledger stress (${SMALL ? "small" : "full"}: ${PLAN.seconds} s, ${PLAN.lanes} lanes, chaos ${PLAN.chaosPercent}%, upstream limit ${UPSTREAM_TIMEOUT_MS} ms, ${os.availableParallelism()} CPUs) ===`);
  console.log(`features: batch ${features.batch ? "on" : "off (routes not there)"}, idempotency ${features.idempotency ? "on" : "off (not honoured)"}\n`);
  console.log("Requests by kind and status:");
  for (const line of trafficTable(exchanges)) console.log(`  ${line}`);
  console.log("\nFake upstream answers per model:");
  for (const line of tallyLines(chaosTally())) console.log(`  ${line}`);
  console.log(`\nAnswers ${totals.answers}; usage-log entries ${totals.entries} (the answers call for ${totals.expectedEntries}); answers matched to entries by request id: ${result.matched}`);
  console.log(`Crashes ${PLAN.crashes}: calls cut off ${exchanges.filter((x) => x.kind === "crash" && x.status === 0).length}, settled as interrupted and refunded ${result.interrupted}; retries under a released Idempotency-Key ${exchanges.filter((x) => x.kind === "crash-retry").length}`);
  const granted = stripeRows.reduce((sum, row) => sum + row.credits_granted, 0);
  console.log(`Payments: ${payments.buyers.length} buyers, ${payments.events.length} Stripe events delivered ${payments.answers.length} times (${payments.answers.filter((answer) => answer.applied).length} applied); ${stripeRows.length} stripe entries, ${granted} credits granted, ${stripeRows.reduce((sum, row) => sum + row.credits_deducted, 0)} taken back by refunds`);
  console.log(`Credits: deducted ${totals.deducted}, refunded ${totals.refunded} (${totals.refundedEntries} entries), net ${totals.net}; lowest balance any answer reported: ${totals.lowestReportedBalance}`);
  console.log("\nPer account (start - final = deducted - refunded; entries = what the answers call for):");
  for (const line of accountTable(result)) console.log(`  ${line}`);
  const check = selfCheck(accounts, balances, exchanges, rows, features.idempotency);
  console.log(`\nSelf-check of the reconciliation: ${check.caught.length} corruptions caught, ${check.missed.length} missed${check.skipped.length ? `, ${check.skipped.length} not applicable (${check.skipped.join("; ")})` : ""}`);
  for (const name of check.missed) console.log(`  - MISSED: ${name}`);
  const paymentCheck = selfCheckPayments(payments, buyerBalances, stripeRows);
  console.log(`Self-check of the payment reconciliation: ${paymentCheck.caught} corruptions caught, ${paymentCheck.missed.length} missed`);
  for (const name of paymentCheck.missed) console.log(`  - MISSED: ${name}`);
  const ok = result.problems.length === 0 && check.missed.length === 0 && paymentCheck.missed.length === 0;
  console.log(result.problems.length === 0 ? "\nRECONCILED: every account balances, no balance went negative, one entry per authenticated request." : `\nMISMATCH: ${result.problems.length} problem(s):`);
  for (const line of problemLines(result.problems)) console.log(line);
  console.log(`\nRESULT ${JSON.stringify({ ok, problems: result.problems.length, selfCheckMissed: check.missed.length, features, ...totals, stripeEvents: payments.events.length, stripeDeliveries: payments.answers.length, stripeGranted: granted, interrupted: result.interrupted, crashes: PLAN.crashes, accounts: accounts.length, seconds: PLAN.seconds })}`);
  return ok ? 0 : 1;
}

runScript(main, { watchdogMs: WATCHDOG_MS, watchdogMessage: `WATCHDOG: the stress run passed ${WATCHDOG_MS / 1000} s; stopped.` });

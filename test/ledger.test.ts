import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WINDOW_LIMIT, WINDOW_MS, type AccountLedger } from "../durable-objects/account-ledger";

// The ledger is tested through its RPC stub, as the worker uses it. Time is moved by replacing
// the ledger's clock inside the object (runInDurableObject), never by sleeping.

let ledgers = 0;
function freshLedger(): DurableObjectStub<AccountLedger> {
  return env.LEDGER.getByName(`acct_ledger_test_${++ledgers}_${Date.now()}`);
}

async function setClock(stub: DurableObjectStub<AccountLedger>, time: number): Promise<void> {
  await runInDurableObject(stub, (ledger: AccountLedger) => {
    ledger.now = () => time;
  });
}

describe("AccountLedger credits", () => {
  it("gives exactly 50 of 100 concurrent 1-credit reservations against a balance of 50", async () => {
    const ledger = freshLedger();
    expect(await ledger.grant(50)).toEqual({ ok: true, balance: 50 });
    // Four keys, so the 60-request window never refuses: only the balance decides.
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) => ledger.reserve({ keyId: `key_${i % 4}`, slots: 1, credits: 1 })),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(50);
    const refused = outcomes.filter((outcome) => !outcome.ok);
    expect(refused).toHaveLength(50);
    expect(refused.every((outcome) => !outcome.ok && outcome.reason === "insufficient_credits")).toBe(true);
    expect((await ledger.snapshot()).balance).toBe(0);
  });

  it("starts from the opening balance recorded in D1", async () => {
    const id = `acct_opening_${Date.now()}`;
    await env.DB.prepare(
      "INSERT INTO accounts (id, name, email, opening_credits, created_at) VALUES (?, 'Opening', ?, 37, ?)",
    ).bind(id, `${id}@example.com`, new Date().toISOString()).run();
    expect((await env.LEDGER.getByName(id).snapshot()).balance).toBe(37);
  });

  it("refuses a reservation larger than the balance without taking anything", async () => {
    const ledger = freshLedger();
    await ledger.grant(5);
    const outcome = await ledger.reserve({ keyId: "k", slots: 1, credits: 6 });
    expect(outcome).toMatchObject({ ok: false, reason: "insufficient_credits", required: 6, balance: 5 });
    expect((await ledger.snapshot()).balance).toBe(5);
  });

  it("refunds and grants atomically and never goes below zero", async () => {
    const ledger = freshLedger();
    await ledger.grant(10);
    const draft = { id: "log_refund", requestId: "req_refund", keyPrefix: "pg_test", tool: "generate_image", source: "rest" as const, model: "m", prompt: "", startedAt: Date.now() };
    await ledger.reserve({ keyId: "k", slots: 1, credits: 7, usage: { holds: [{ ...draft, credits: 7 }], refused: [], onRefusal: draft } });
    expect(await ledger.settle("log_refund", { statusCode: 502, refundCredits: 7, latencyMs: 5 })).toEqual({ settled: true, balance: 10, refunded: 7 });
    expect(await ledger.grant(-11)).toEqual({ ok: false, balance: 10 });
    expect(await ledger.grant(-10)).toEqual({ ok: true, balance: 0 });
    // Called in the object itself: a thrown RPC error would also be reported by the runtime.
    await runInDurableObject(ledger, (instance: AccountLedger) => {
      expect(() => instance.reserve({ keyId: "k", slots: 1, credits: -3 })).toThrow(/non-negative/);
      expect(() => instance.grant(1.5)).toThrow(/integer/);
    });
    expect((await ledger.snapshot()).balance).toBe(0);
  });

  it("keeps the balance, revocations and closure across an eviction (windows live in memory)", async () => {
    const ledger = freshLedger();
    await ledger.grant(9);
    await ledger.reserve({ keyId: "k", slots: 3, credits: 4 });
    await ledger.revokeKey("stolen");
    await evictDurableObject(ledger);
    expect((await ledger.snapshot("k")).balance).toBe(5);
    expect(await ledger.reserve({ keyId: "stolen", slots: 1, credits: 0 })).toMatchObject({ ok: false, reason: "key_revoked" });

    await ledger.close();
    await evictDurableObject(ledger);
    expect(await ledger.reserve({ keyId: "k", slots: 1, credits: 0 })).toMatchObject({ ok: false, reason: "account_closed", balance: 0 });
  });
});

describe("AccountLedger rate-limit window", () => {
  const t0 = 1_800_000_000_000;

  it("refuses the 61st request within 60 s and frees a slot exactly 60 s after its request", async () => {
    const ledger = freshLedger();
    await setClock(ledger, t0);
    for (let i = 0; i < WINDOW_LIMIT; i++) {
      expect((await ledger.reserve({ keyId: "k", slots: 1, credits: 0 })).ok).toBe(true);
    }
    const refused = await ledger.reserve({ keyId: "k", slots: 1, credits: 0 });
    expect(refused).toMatchObject({ ok: false, reason: "rate_limited", retryAfterSeconds: 60 });
    expect(refused.window.remaining).toBe(0);

    await setClock(ledger, t0 + WINDOW_MS - 1);
    expect(await ledger.reserve({ keyId: "k", slots: 1, credits: 0 })).toMatchObject({ ok: false, retryAfterSeconds: 1 });

    await setClock(ledger, t0 + WINDOW_MS);
    const admitted = await ledger.reserve({ keyId: "k", slots: 1, credits: 0 });
    expect(admitted.ok).toBe(true);
    // All 60 old requests left together, so only the new one is in the window.
    expect(admitted.window.remaining).toBe(WINDOW_LIMIT - 1);
  });

  it("slides: requests spread over a minute free one slot at a time", async () => {
    const ledger = freshLedger();
    for (let second = 0; second < WINDOW_LIMIT; second++) {
      await setClock(ledger, t0 + second * 1000);
      expect((await ledger.reserve({ keyId: "k", slots: 1, credits: 0 })).ok).toBe(true);
    }
    await setClock(ledger, t0 + 59_500);
    const full = await ledger.reserve({ keyId: "k", slots: 1, credits: 0 });
    expect(full).toMatchObject({ ok: false, reason: "rate_limited", retryAfterSeconds: 1 });

    await setClock(ledger, t0 + 60_000); // the request made at t0 leaves the window
    expect((await ledger.reserve({ keyId: "k", slots: 1, credits: 0 })).ok).toBe(true);
    expect((await ledger.reserve({ keyId: "k", slots: 1, credits: 0 })).ok).toBe(false);

    await setClock(ledger, t0 + 61_000); // and the one made at t0 + 1 s
    expect((await ledger.reserve({ keyId: "k", slots: 1, credits: 0 })).ok).toBe(true);
  });

  it("keeps one window per key", async () => {
    const ledger = freshLedger();
    await setClock(ledger, t0);
    await ledger.reserve({ keyId: "a", slots: WINDOW_LIMIT, credits: 0 });
    expect((await ledger.reserve({ keyId: "a", slots: 1, credits: 0 })).ok).toBe(false);
    expect((await ledger.reserve({ keyId: "b", slots: 1, credits: 0 })).ok).toBe(true);
  });

  it("refuses a multi-slot reservation whole when the window lacks room, taking nothing", async () => {
    const ledger = freshLedger();
    await ledger.grant(100);
    await setClock(ledger, t0);
    await ledger.reserve({ keyId: "k", slots: 55, credits: 0 });
    const batch = await ledger.reserve({ keyId: "k", slots: 10, credits: 10 });
    expect(batch).toMatchObject({ ok: false, reason: "rate_limited", balance: 100 });
    expect((await ledger.snapshot("k")).window.remaining).toBe(5);
    expect((await ledger.reserve({ keyId: "k", slots: 5, credits: 10 })).ok).toBe(true);
    expect((await ledger.snapshot("k")).balance).toBe(90);
  });

  it("counts a request refused for credits in the window but not a rate-limited one", async () => {
    const ledger = freshLedger();
    await setClock(ledger, t0);
    const poor = await ledger.reserve({ keyId: "k", slots: 1, credits: 1 });
    expect(poor).toMatchObject({ ok: false, reason: "insufficient_credits" });
    expect(poor.window.remaining).toBe(WINDOW_LIMIT - 1);
    await ledger.reserve({ keyId: "k", slots: WINDOW_LIMIT - 1, credits: 0 });
    await ledger.reserve({ keyId: "k", slots: 1, credits: 0 }); // refused, takes no slot
    await setClock(ledger, t0 + WINDOW_MS);
    expect((await ledger.snapshot("k")).window.remaining).toBe(WINDOW_LIMIT);
  });
});

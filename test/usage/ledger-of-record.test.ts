import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountLedger, HoldRequest } from "../../durable-objects/account-ledger";
import { RESEND_AFTER_MS, SEND_DELAY_MS } from "../../durable-objects/usage-sender";
import type { Env } from "../../src/env";
import type { EntryDraft } from "../../src/usage/log";
import { usageDelivered, usageRows } from "../support/usage-log";

// The ledger as the ledger of record: every credit movement and its usage-log entry in one
// step. Holds are opened with the deduction and settled with the refund and the entry; a hold
// left open past its deadline is settled by the alarm as interrupted and refunded. Time is moved
// with the ledger's own clock, never by sleeping.

let n = 0;
async function freshLedger(credits: number): Promise<{ id: string; ledger: DurableObjectStub<AccountLedger> }> {
  const id = `acct_record_${++n}_${Date.now()}`;
  const ledger = env.LEDGER.getByName(id);
  await ledger.grant(credits);
  return { id, ledger };
}

function draft(id: string, startedAt = Date.now()): EntryDraft {
  return { id, requestId: `req_${id}`, keyPrefix: "pg_testprefix", tool: "generate_image", source: "rest", model: "m", prompt: "a fox", startedAt };
}

function hold(id: string, credits: number, extra: Partial<HoldRequest> = {}): HoldRequest {
  return { ...draft(id), credits, ...extra };
}

async function setClock(ledger: DurableObjectStub<AccountLedger>, time: number): Promise<void> {
  await runInDurableObject(ledger, (instance: AccountLedger) => {
    instance.now = () => time;
  });
}

describe("holds and settlement", () => {
  it("opens a hold with the deduction and settles it with the refund and its entry, exactly once", async () => {
    const { id, ledger } = await freshLedger(50);
    const reserved = await ledger.reserve({ keyId: "k", slots: 1, credits: 20, usage: { holds: [hold("a", 20)], refused: [], onRefusal: draft("a") } });
    expect(reserved).toMatchObject({ ok: true, balance: 30 });
    expect(await ledger.backlog()).toMatchObject({ openHolds: 1 });
    expect(await usageRows(id, { whileHeld: true })).toEqual([]); // no entry while the call runs

    expect(await ledger.settle("a", { statusCode: 502, refundCredits: 20, latencyMs: 1234 })).toEqual({ settled: true, balance: 50, refunded: 20 });
    expect(await ledger.settle("a", { statusCode: 200, refundCredits: 0, latencyMs: 1 })).toEqual({ settled: false, balance: 50, refunded: 0 });
    expect(await ledger.backlog()).toMatchObject({ openHolds: 0 });
    expect(await usageRows(id)).toEqual([
      expect.objectContaining({ id: "a", status_code: 502, credits_deducted: 20, credits_refunded: 20, interrupted: false }),
    ]);
  });

  it("never refunds more than the hold took, and a partial refund is part of the same entry", async () => {
    const { id, ledger } = await freshLedger(30);
    await ledger.reserve({ keyId: "k", slots: 1, credits: 23, usage: { holds: [hold("t", 23)], refused: [], onRefusal: draft("t") } });
    expect(await ledger.settle("t", { statusCode: 200, refundCredits: 8, latencyMs: 10 })).toMatchObject({ balance: 15, refunded: 8 });
    const { ledger: other } = await freshLedger(5);
    await other.reserve({ keyId: "k", slots: 1, credits: 5, usage: { holds: [hold("u", 5)], refused: [], onRefusal: draft("u") } });
    expect(await other.settle("u", { statusCode: 502, refundCredits: 99, latencyMs: 10 })).toMatchObject({ balance: 5, refunded: 5 });
    expect(await usageRows(id)).toEqual([expect.objectContaining({ credits_deducted: 23, credits_refunded: 8, status_code: 200 })]);
  });

  it("refuses holds whose credits do not add up to the reservation", async () => {
    const { ledger } = await freshLedger(10);
    await runInDurableObject(ledger, (instance: AccountLedger) => {
      expect(() => instance.reserve({ keyId: "k", slots: 1, credits: 3, usage: { holds: [hold("x", 2)], refused: [], onRefusal: draft("x") } })).toThrow(/add up/);
    });
    expect((await ledger.snapshot()).balance).toBe(10);
  });

  it("logs its own refusals (balance, window) in the refusing step, free", async () => {
    const { id, ledger } = await freshLedger(3);
    const poor = await ledger.reserve({ keyId: "k", slots: 1, credits: 5, usage: { holds: [hold("p", 5)], refused: [], onRefusal: draft("p") } });
    expect(poor).toMatchObject({ ok: false, reason: "insufficient_credits" });
    await ledger.reserve({ keyId: "k", slots: 59, credits: 0 });
    const limited = await ledger.reserve({ keyId: "k", slots: 1, credits: 1, usage: { holds: [hold("l", 1)], refused: [], onRefusal: draft("l") } });
    expect(limited).toMatchObject({ ok: false, reason: "rate_limited" });
    await ledger.revokeKey("gone");
    await ledger.reserve({ keyId: "gone", slots: 1, credits: 1, usage: { holds: [hold("g", 1)], refused: [], onRefusal: draft("g") } });
    expect(await ledger.backlog()).toMatchObject({ openHolds: 0 });
    expect(await usageRows(id)).toEqual([
      expect.objectContaining({ id: "p", status_code: 400, credits_deducted: 0, credits_refunded: 0 }),
      expect.objectContaining({ id: "l", status_code: 429, credits_deducted: 0, credits_refunded: 0 }),
    ]); // and nothing for the revoked key: that request never passed authentication
    expect((await ledger.snapshot()).balance).toBe(3);
  });
});

describe("interrupted calls", () => {
  it("settles a hold past its deadline from the alarm: refunded, logged as interrupted 500, Idempotency-Key released", async () => {
    const { id, ledger } = await freshLedger(100);
    const t0 = Date.now();
    await setClock(ledger, t0);
    const fingerprint = "f".repeat(64);
    expect(await ledger.beginIdempotent({ keyId: "k", idempotencyKey: "retry-me", fingerprint })).toMatchObject({ outcome: "proceed" });
    const holds = [hold("i1", 20, { idempotency: { key: "retry-me", fingerprint } }), hold("i2", 20), hold("i3", 20)];
    await ledger.reserve({ keyId: "k", slots: 3, credits: 60, usage: { holds, refused: [], onRefusal: draft("i") } });
    await ledger.settle("i3", { statusCode: 200, refundCredits: 0, latencyMs: 50 }); // this one answered
    expect((await ledger.snapshot()).balance).toBe(40);
    expect(await ledger.beginIdempotent({ keyId: "k", idempotencyKey: "retry-me", fingerprint })).toMatchObject({ outcome: "in_progress" });

    // Before the deadline the alarm leaves the holds alone.
    await setClock(ledger, t0 + 1_000);
    await runDurableObjectAlarm(ledger);
    expect(await ledger.backlog()).toMatchObject({ openHolds: 2 });

    // The test worker's limit is UPSTREAM_TIMEOUT_MS = 2 s plus the default 30 s margin.
    await setClock(ledger, t0 + 32_001);
    expect(await runInDurableObject(ledger, (_: AccountLedger, state: DurableObjectState) => state.storage.getAlarm())).not.toBeNull();
    await runDurableObjectAlarm(ledger);
    expect(await ledger.backlog()).toMatchObject({ openHolds: 0 });
    expect((await ledger.snapshot()).balance).toBe(80);
    const rows = await usageRows(id);
    expect(rows.filter((row) => row.interrupted)).toEqual([
      expect.objectContaining({ id: "i1", status_code: 500, credits_deducted: 20, credits_refunded: 20 }),
      expect.objectContaining({ id: "i2", status_code: 500, credits_deducted: 20, credits_refunded: 20 }),
    ]);
    expect(rows.find((row) => row.id === "i3")).toMatchObject({ status_code: 200, credits_refunded: 0, interrupted: false });
    // The client never got an answer: a retry with the same key runs.
    expect(await ledger.beginIdempotent({ keyId: "k", idempotencyKey: "retry-me", fingerprint })).toMatchObject({ outcome: "proceed" });
    // A late settle from a worker that was only slow changes nothing.
    expect(await ledger.settle("i1", { statusCode: 200, refundCredits: 0, latencyMs: 40_000 })).toMatchObject({ settled: false, balance: 80 });
    expect(await usageRows(id)).toHaveLength(3);
  });
});

describe("the outbox", () => {
  it("keeps entries while the queue is down, shows them, and re-sends them from the alarm", async () => {
    const { id, ledger } = await freshLedger(10);
    let refused = 0;
    await runInDurableObject(ledger, (instance: AccountLedger) => {
      const own = instance as unknown as { env: Env };
      own.env = { ...own.env, USAGE_QUEUE: { send: async () => { refused++; throw new Error("queue unavailable"); } } as unknown as Env["USAGE_QUEUE"] };
    });
    await ledger.reserve({ keyId: "k", slots: 1, credits: 4, usage: { holds: [hold("q", 4)], refused: [], onRefusal: draft("q") } });
    await ledger.settle("q", { statusCode: 200, refundCredits: 0, latencyMs: 10 });
    await expect.poll(() => refused).toBeGreaterThan(0);
    expect(await ledger.backlog()).toMatchObject({ undeliveredEntries: 1 });
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM usage_log WHERE account_id = ?").bind(id).first<{ n: number }>())!.n).toBe(0);
    // Read-your-writes: the entry is visible although D1 does not have it.
    expect(await usageRows(id)).toEqual([expect.objectContaining({ id: "q", credits_deducted: 4 })]);

    await runInDurableObject(ledger, (instance: AccountLedger) => {
      const own = instance as unknown as { env: Env };
      own.env = env as unknown as Env; // the queue is back
      instance.now = () => Date.now() + RESEND_AFTER_MS;
    });
    await runDurableObjectAlarm(ledger);
    await usageDelivered(id);
    const stored = await env.DB.prepare("SELECT id, seq, credits_deducted FROM usage_log WHERE account_id = ?").bind(id).all();
    expect(stored.results).toEqual([{ id: "q", seq: expect.any(Number), credits_deducted: 4 }]);
  });

  it("sends the entries of calls settled close together in one queue message, after SEND_DELAY_MS", async () => {
    const { id, ledger } = await freshLedger(10);
    const messages: { at: number; entries: string[] }[] = [];
    await runInDurableObject(ledger, (instance: AccountLedger) => {
      const own = instance as unknown as { env: Env };
      const queue = own.env.USAGE_QUEUE;
      own.env = {
        ...own.env,
        USAGE_QUEUE: {
          send: async (message: { entries: { id: string }[] }) => {
            messages.push({ at: Date.now(), entries: message.entries.map((entry) => entry.id) });
            await queue.send(message as Parameters<typeof queue.send>[0]);
          },
        } as unknown as Env["USAGE_QUEUE"],
      };
    });
    await ledger.reserve({ keyId: "k", slots: 3, credits: 3, usage: { holds: ["a", "b", "c"].map((entry) => hold(entry, 1)), refused: [], onRefusal: draft("a") } });
    const settledAt = Date.now();
    for (const entry of ["a", "b", "c"]) await ledger.settle(entry, { statusCode: 200, refundCredits: 0, latencyMs: 5 });
    await expect.poll(() => messages.length).toBe(1);
    expect(messages[0]!.entries).toEqual(["a", "b", "c"]);
    expect(messages[0]!.at - settledAt).toBeGreaterThanOrEqual(SEND_DELAY_MS - 5);
    await usageDelivered(id);
    expect(messages).toHaveLength(1);
  });
});

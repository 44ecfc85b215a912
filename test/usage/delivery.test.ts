import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { deliverUsage, type UsageMessage } from "../../src/usage/delivery";
import type { UsageRecord } from "../../src/usage/log";
import { call, newAccount, withKey } from "../support/fixtures";
import { postTool } from "../support/tool-calls";
import { usageDelivered } from "../support/usage-log";

// From the ledger's outbox to D1: the queue consumer writes batches idempotently (at least once
// delivery) and acknowledges to the ledger only what D1 has; /v1/usage reads D1 and the
// undelivered rest together.

function record(accountId: string, id: string, seq: number): UsageRecord {
  return {
    id, accountId, seq, requestId: `req_${id}`, keyPrefix: "pg_delivery", tool: "compress_image", source: "rest", model: "", prompt: "",
    statusCode: 200, errorCode: null, latencyMs: 12, creditsDeducted: 1, creditsRefunded: 0, creditsGranted: 0, interrupted: false, createdAt: new Date(Date.now() + seq).toISOString(),
  };
}

async function consume(messages: UsageMessage[]) {
  const batch = createMessageBatch<UsageMessage>("pixelgate-usage", messages.map((body, i) => ({ id: `m${i}`, timestamp: Date.now(), attempts: 1, body })));
  const ctx = createExecutionContext();
  await deliverUsage(batch, env as unknown as Env);
  return getQueueResult(batch, ctx);
}

const countOf = async (accountId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM usage_log WHERE account_id = ?").bind(accountId).first<{ n: number }>())!.n;

describe("usage queue consumer", () => {
  it("writes a batch once however often it is delivered, and acknowledges every message", async () => {
    const accountId = `acct_delivery_${Date.now()}`;
    const entries = Array.from({ length: 23 }, (_, i) => record(accountId, `log_d${i}_${accountId}`, i + 1));
    const messages = [{ accountId, entries: entries.slice(0, 15) }, { accountId, entries: entries.slice(10) }];
    const first = await consume(messages);
    expect(first.explicitAcks.sort()).toEqual(["m0", "m1"]);
    expect(first.retryMessages).toEqual([]);
    await consume(messages); // redelivered: at least once
    expect(await countOf(accountId)).toBe(23);
  });

  it("retries every message of a batch D1 refuses, acknowledging none", async () => {
    const accountId = `acct_delivery_bad_${Date.now()}`;
    // D1 cannot bind an object: the whole batch's write fails.
    const unwritable = { ...record(accountId, `log_bad_${accountId}`, 2), prompt: {} as unknown as string };
    const result = await consume([{ accountId, entries: [record(accountId, `log_ok_${accountId}`, 1)] }, { accountId, entries: [unwritable] }]);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((message) => message.msgId).sort()).toEqual(["m0", "m1"]);
    expect(await countOf(accountId)).toBe(0);
  });
});

describe("read-your-writes", () => {
  it("shows a call's entry on the next /v1/usage, then finds the same entry in D1 once delivered", async () => {
    const account = await newAccount({ credits: 10 });
    const answer = await postTool("/v1/text-to-svg", account.key, { prompt: "a small sun", model: "local-svg-v1" });
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get("X-Request-Id");
    const page = (await (await call("/v1/usage", withKey(account.key))).json()) as { logs: Array<{ id: string; requestId: string; creditsDeducted: number }> };
    expect(page.logs).toEqual([expect.objectContaining({ requestId, creditsDeducted: 5 })]);

    await usageDelivered(account.id);
    const stored = await env.DB.prepare("SELECT id, request_id FROM usage_log WHERE account_id = ?").bind(account.id).all();
    expect(stored.results).toEqual([{ id: page.logs[0]!.id, request_id: requestId }]);
    const again = (await (await call("/v1/usage", withKey(account.key))).json()) as { logs: unknown[] };
    expect(again.logs).toEqual(page.logs);
  });
});

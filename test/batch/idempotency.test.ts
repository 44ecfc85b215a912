import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AccountLedger } from "../../durable-objects/account-ledger";
import { IDEMPOTENCY_TTL_MS } from "../../durable-objects/idempotency-records";
import { expectError, expectParamError } from "../support/envelope";
import { adminCall, newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { balanceOf, expectReplayOf, postTool, usageRows } from "../support/tool-calls";
import { OPENAI_MODELS } from "../upstream/scenarios";

// Idempotency-Key on billed POSTs.

const generate = (key: string, idempotencyKey: string, body: Record<string, unknown> = { prompt: "a teal star", seed: 3 }) =>
  postTool("/v1/generate", key, body, { "Idempotency-Key": idempotencyKey });

async function resultCount(): Promise<number> {
  return (await env.FILES.list({ prefix: "results/" })).objects.length;
}

describe("Idempotency-Key", () => {
  it("replays the first answer for the same key and body, with no new charge or log entry", async () => {
    const account = await newAccount({ credits: 20 });
    const first = await generate(account.key, "order-1");
    const again = await generate(account.key, "order-1", { seed: 3, prompt: "a teal star" }); // same body, other key order
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    await expectReplayOf(again, await first.text());
    expect(await balanceOf(account.id)).toBe(18);
    expect(await usageRows(account.id)).toHaveLength(1);
  });

  it("answers 422 for the same key with another body", async () => {
    const account = await newAccount({ credits: 20 });
    await generate(account.key, "order-2");
    const other = await generate(account.key, "order-2", { prompt: "a different star" });
    await expectError(other, 422, "invalid_request_error", "idempotency_conflict");
    expect(await balanceOf(account.id)).toBe(18);
  });

  it("20 concurrent identical requests: one deduction, one log entry, one stored result", async () => {
    const account = await newAccount({ credits: 50 });
    const before = await resultCount();
    const responses = await Promise.all(Array.from({ length: 20 }, () => generate(account.key, "burst")));
    const answers = await Promise.all(responses.map(async (response) => ({ status: response.status, body: await response.text() })));
    const successes = answers.filter((answer) => answer.status === 200);
    const inProgress = answers.filter((answer) => answer.status === 409);
    expect(successes.length + inProgress.length).toBe(20);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    expect(new Set(successes.map((answer) => (JSON.parse(answer.body) as { result: { imageUrl: string } }).result.imageUrl)).size).toBe(1);
    for (const answer of inProgress) expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "idempotency_in_progress" } });
    expect(await balanceOf(account.id)).toBe(48);
    expect(await usageRows(account.id)).toHaveLength(1);
    expect(await resultCount()).toBe(before + 1);
  });

  it("does not keep answers given before any charge, so the client may fix and retry with the same key", async () => {
    const account = await newAccount({ credits: 1 });
    await expectParamError(await generate(account.key, "fix-me", { prompt: "" }), "missing_parameter", "prompt");
    await expectError(await generate(account.key, "fix-me"), 400, "invalid_request_error", "insufficient_credits");
    expect((await adminCall(`/admin/v1/accounts/${account.id}/credits`, "POST", { amount: 10, reason: "top-up" })).status).toBe(200);
    expect((await generate(account.key, "fix-me")).status).toBe(200);
    expect(await balanceOf(account.id)).toBe(9);
  });

  it("keeps an answer given after the charge, a refunded provider failure too", async () => {
    const account = await newAccount({ credits: 20 });
    const model = await insertModel({ provider: "openai", upstreamModel: OPENAI_MODELS.http500 });
    const first = await generate(account.key, "flaky", { prompt: "a cat", model });
    expect(first.status).toBe(502);
    const again = await generate(account.key, "flaky", { prompt: "a cat", model });
    expect(again.status).toBe(502);
    await expectReplayOf(again, await first.text());
    expect(await balanceOf(account.id)).toBe(20);
    expect(await usageRows(account.id)).toHaveLength(1);
  });

  it("is scoped to the account", async () => {
    const [a, b] = [await newAccount({ credits: 10 }), await newAccount({ credits: 10 })];
    expect((await generate(a.key, "shared-name")).status).toBe(200);
    const other = await generate(b.key, "shared-name", { prompt: "something else entirely" });
    expect(other.status).toBe(200);
    expect(other.headers.get("Idempotency-Replayed")).toBeNull();
  });

  it("refuses a malformed key", async () => {
    const account = await newAccount({ credits: 10 });
    for (const bad of ["", "x".repeat(256), "tab\there"]) {
      await expectParamError(await generate(account.key, bad), "invalid_parameter", "Idempotency-Key");
    }
    expect(await balanceOf(account.id)).toBe(10);
    // Refused requests that passed authentication: logged like a malformed body, free.
    expect(await usageRows(account.id)).toMatchObject([
      { tool: "generate_image", status_code: 400, credits_deducted: 0 },
      { tool: "generate_image", status_code: 400, credits_deducted: 0 },
      { tool: "generate_image", status_code: 400, credits_deducted: 0 },
    ]);
    const batch = await postTool("/v1/batch", account.key, { requests: [{ tool: "text_to_svg", args: { prompt: "x" } }] }, { "Idempotency-Key": "" });
    await expectParamError(batch, "invalid_parameter", "Idempotency-Key");
    expect((await usageRows(account.id)).at(-1)).toMatchObject({ tool: "batch", status_code: 400 });
  });

  it("covers batches", async () => {
    const account = await newAccount({ credits: 20 });
    const body = { requests: [{ tool: "text_to_svg", args: { prompt: "a leaf", model: "local-svg-v1", seed: 1 } }] };
    const first = await postTool("/v1/batch", account.key, body, { "Idempotency-Key": "batch-1" });
    const text = await first.text();
    expect(JSON.parse(text)).toMatchObject({ deductedCredits: 5, results: [{ data: { deductedCredits: 5 } }] });
    await expectReplayOf(await postTool("/v1/batch", account.key, body, { "Idempotency-Key": "batch-1" }), text);
    expect(await balanceOf(account.id)).toBe(15);
  });

  it("expires after 24 hours: the record and its stored answer are swept by the alarm", async () => {
    const account = await newAccount({ credits: 20 });
    expect((await generate(account.key, "daily")).status).toBe(200);
    const stored = await env.FILES.list({ prefix: `idempotency/${account.id}/` });
    expect(stored.objects).toHaveLength(1);
    const ledger = env.LEDGER.getByName(account.id);
    await runInDurableObject(ledger, async (instance: AccountLedger) => {
      instance.now = () => Date.now() + IDEMPOTENCY_TTL_MS + 1_000;
      await instance.alarm();
    });
    expect((await env.FILES.list({ prefix: `idempotency/${account.id}/` })).objects).toHaveLength(0);
    const fresh = await generate(account.key, "daily");
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("Idempotency-Replayed")).toBeNull();
    expect(await balanceOf(account.id)).toBe(16);
  });
});

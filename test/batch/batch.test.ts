import { describe, expect, it } from "vitest";
import { expectError, expectParamError } from "../support/envelope";
import { call, newAccount, withKey } from "../support/fixtures";
import { insertModel } from "../support/models";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, dataUriOf, postTool, usageRows } from "../support/tool-calls";
import { OPENAI_MODELS } from "../upstream/scenarios";

// POST /v1/batch and /playground/multicall.

interface Item {
  tool: string;
  status: number;
  success: boolean;
  data: Record<string, unknown> & { result?: Record<string, unknown>; error?: { code: string } };
}
interface BatchBody {
  success: boolean;
  message: string;
  count: number;
  totalLatency: string;
  deductedCredits: number;
  userCredits: number;
  results: Item[];
}

async function batch(path: string, requests: unknown, credits = 100, headers: Record<string, string> = {}) {
  const account = await newAccount({ credits });
  const response = await postTool(path, account.key, { requests }, headers);
  return { account, response, body: (await response.clone().json()) as BatchBody };
}

describe.each(["/v1/batch", "/playground/multicall"])("POST %s", (path) => {
  it("runs the items, answers in order with each tool's own body, and charges the sum once", async () => {
    const image = await dataUriOf(discOnPlainBackground(32, 32));
    const { account, response, body } = await batch(path, [
      { tool: "generate_image", args: { prompt: "a red circle", seed: 1 } },
      { tool: "compress_image", args: { image, quality: 50 } },
      { tool: "text_to_svg", args: { prompt: "a blue star", model: "local-svg-v1" } },
    ]);
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ success: true, count: 3, deductedCredits: 8, userCredits: 92 });
    expect(body.totalLatency).toMatch(/^\d+\.\d{2}s$/);
    expect(body.results.map((item) => [item.tool, item.status, item.success])).toEqual([
      ["generate_image", 200, true],
      ["compress_image", 200, true],
      ["text_to_svg", 200, true],
    ]);
    expect(body.results[0]!.data).toMatchObject({ success: true, deductedCredits: 2, userCredits: 92, result: { action: "generate", seed: 1 } });
    expect(body.results[1]!.data).toMatchObject({ deductedCredits: 1, result: { format: "WEBP", quality: "50%" } });
    expect(body.results[2]!.data.result?.svgCode).toEqual(expect.stringMatching(/^<svg/));
    expect(await balanceOf(account.id)).toBe(92);
    const rows = await usageRows(account.id);
    expect(rows.map((row) => row.tool).sort()).toEqual(["compress_image", "generate_image", "text_to_svg"]);
    expect(rows.every((row) => row.status_code === 200)).toBe(true);
  });

  it("an invalid item fails alone and costs nothing; a provider failure is refunded", async () => {
    const failing = await insertModel({ provider: "openai", upstreamModel: OPENAI_MODELS.http500 });
    const { account, body } = await batch(path, [
      { tool: "generate_image", args: { prompt: "" } },
      { tool: "generate_image", args: { prompt: "a green tree" } },
      { tool: "generate_image", args: { prompt: "a green tree", model: failing } },
      { tool: "generate_image", args: { prompt: "explicit nude porn photo" } },
    ]);
    expect(body.results.map((item) => [item.status, item.success])).toEqual([[400, false], [200, true], [502, false], [400, false]]);
    expect(body.results[0]!.data).toMatchObject({ success: false, error: { code: "missing_parameter", param: "prompt" } });
    expect(body.results[2]!.data).toMatchObject({ success: false, error: { code: "upstream_error" } });
    expect(body.results[3]!.data).toMatchObject({ error: { code: "content_policy_violation" }, isNsfw: true });
    expect(body).toMatchObject({ deductedCredits: 2, userCredits: 98 });
    expect(await balanceOf(account.id)).toBe(98);
    const rows = await usageRows(account.id);
    expect(rows).toHaveLength(4);
    expect(rows.reduce((sum, row) => sum + row.credits_deducted - row.credits_refunded, 0)).toBe(2);
    expect(rows.find((row) => row.status_code === 502)).toMatchObject({ credits_deducted: 10, credits_refunded: 10 });
  });

  it("refuses a missing, empty or oversized list and an unknown tool as a whole, free, one log entry", async () => {
    const cases: [unknown, "missing_parameter" | "invalid_parameter", string][] = [
      [undefined, "missing_parameter", "requests"],
      [[], "invalid_parameter", "requests"],
      [Array.from({ length: 21 }, () => ({ tool: "text_to_svg", args: { prompt: "x" } })), "invalid_parameter", "requests"],
      [[{ tool: "text_to_svg", args: { prompt: "x" } }, { tool: "make_coffee", args: {} }], "invalid_parameter", "requests.1.tool"],
      [[{ args: {} }], "missing_parameter", "requests.0.tool"],
    ];
    for (const [requests, code, param] of cases) {
      const { account, response } = await batch(path, requests);
      await expectParamError(response, code, param);
      expect(await balanceOf(account.id)).toBe(100);
      expect(await usageRows(account.id)).toMatchObject([{ tool: "batch", status_code: 400, credits_deducted: 0 }]);
    }
  });

  it("refuses the whole batch when the balance cannot pay for all of it", async () => {
    const { account, response } = await batch(
      path,
      [{ tool: "generate_image", args: { prompt: "a" } }, { tool: "text_to_svg", args: { prompt: "b" } }],
      6,
    );
    const body = await expectError(response, 400, "invalid_request_error", "insufficient_credits");
    expect(body).toMatchObject({ currentCredits: 6, requiredCredits: 7 });
    expect(await balanceOf(account.id)).toBe(6);
    expect(await usageRows(account.id)).toMatchObject([{ tool: "batch", status_code: 400 }]);
  });

  it("takes one rate-limit slot per item and refuses a batch the window has no room for", async () => {
    const account = await newAccount({ credits: 100 });
    for (let i = 0; i < 45; i++) expect((await call("/v1/me", withKey(account.key))).status).toBe(200);
    const items = Array.from({ length: 16 }, () => ({ tool: "text_to_svg", args: { prompt: "a dot", model: "local-svg-v1" } }));
    const refused = await postTool(path, account.key, { requests: items });
    await expectError(refused, 429, "rate_limit_error", "rate_limit_exceeded");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(account.id)).toBe(100);
    const accepted = await postTool(path, account.key, { requests: items.slice(0, 15) });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(await balanceOf(account.id)).toBe(100 - 15 * 5);
  });
});

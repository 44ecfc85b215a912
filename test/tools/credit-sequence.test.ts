import { describe, expect, it } from "vitest";
import { newAccount } from "../support/fixtures";
import { balanceOf, postTool, usageRows } from "../support/tool-calls";

// The credit sequence of a billed call under concurrency: validation and the safety screen cost
// nothing, the balance check and the deduction are one atomic step, so concurrent calls can
// never spend more than the balance.

describe("credit sequence", () => {
  it("concurrent generations spend exactly the balance and no more", async () => {
    const account = await newAccount({ credits: 10 });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => postTool("/v1/generate", account.key, { prompt: `a small red circle number ${i}`, seed: i })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 400)).toHaveLength(7);
    for (const response of responses.filter((r) => r.status === 400)) {
      expect(await response.json()).toMatchObject({ error: { code: "insufficient_credits" }, requiredCredits: 2 });
    }
    expect(await balanceOf(account.id)).toBe(0);
    const rows = await usageRows(account.id);
    expect(rows).toHaveLength(12);
    expect(rows.reduce((sum, row) => sum + row.credits_deducted, 0)).toBe(10);
  });

  it("invalid, unsafe and unaffordable calls in the same burst take nothing", async () => {
    const account = await newAccount({ credits: 4 });
    const bodies = [
      { prompt: "" },
      { prompt: "a sunset", aspectRatio: "nope" },
      { prompt: "explicit nude porn photo" },
      { prompt: "a sunset", model: "local-draw-v1", referenceImages: ["not an image"] },
      { prompt: "a sunset" },
      { prompt: "a sunrise" },
      { prompt: "a moonrise" },
    ];
    const responses = await Promise.all(bodies.map((body) => postTool("/v1/generate", account.key, body)));
    const codes = await Promise.all(responses.map(async (r) => (r.status === 200 ? "ok" : ((await r.json()) as { error: { code: string } }).error.code)));
    expect(codes.slice(0, 4)).toEqual(["missing_parameter", "invalid_parameter", "content_policy_violation", codes[3]]);
    expect(codes[3]).not.toBe("ok");
    expect(codes.slice(4).filter((code) => code === "ok")).toHaveLength(2);
    expect(codes.slice(4).filter((code) => code === "insufficient_credits")).toHaveLength(1);
    expect(await balanceOf(account.id)).toBe(0);
    const rows = await usageRows(account.id);
    expect(rows).toHaveLength(7);
    expect(rows.filter((row) => row.credits_deducted > 0)).toHaveLength(2);
  });
});

import { describe, expect, it } from "vitest";
import { expectError } from "../support/envelope";
import { newAccount } from "../support/fixtures";
import { balanceOf, postTool, usageRows } from "../support/tool-calls";

// The safety screen on every tool that takes a prompt: 400 before
// any charge, with isNsfw, reason and category at the top level.

const UNSAFE = "explicit nude porn photo";
const CASES: [path: string, body: Record<string, unknown>][] = [
  ["/v1/generate", { prompt: UNSAFE }],
  ["/playground/generate", { prompt: "a portrait", style: UNSAFE }],
  ["/v1/generate-transparent", { prompt: UNSAFE }],
  ["/v1/edit", { prompt: UNSAFE, image: "data:image/png;base64,AAAA" }],
  ["/v1/text-to-svg", { prompt: UNSAFE }],
  ["/playground/text-to-svg", { prompt: UNSAFE }],
];

describe("safety screen", () => {
  it.each(CASES)("%s refuses an unsafe prompt with the content-policy shape, free and logged", async (path, body) => {
    const account = await newAccount({ credits: 50 });
    const response = await postTool(path, account.key, body);
    const error = await expectError(response, 400, "invalid_request_error", "content_policy_violation");
    expect(error.message.startsWith("Content detected")).toBe(true);
    expect(error).toMatchObject({ isNsfw: true, category: "sexual" });
    expect(error.reason).toEqual(expect.any(String));
    expect(await balanceOf(account.id)).toBe(50);
    expect((await usageRows(account.id))[0]).toMatchObject({ status_code: 400, credits_deducted: 0 });
  });

  it("lets innocent near-misses through", async () => {
    const account = await newAccount({ credits: 50 });
    for (const prompt of ["a breast cancer awareness ribbon", "a shooting star over the lake", "a kid's birthday party"]) {
      const response = await postTool("/v1/generate", account.key, { prompt });
      expect(response.status, prompt).toBe(200);
    }
  });
});

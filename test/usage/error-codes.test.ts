import { describe, expect, it } from "vitest";
import { insertModel } from "../support/models";
import { postTool, usageRows } from "../support/tool-calls";
import { call, newAccount, withKey } from "../support/fixtures";
import { OPENAI_MODELS } from "../upstream/scenarios";

// A usage entry of a failed call says why it failed: the error code it was answered with, for a
// refusal before the charge, a refusal by the ledger, a batch item and a refunded provider failure.

describe("usage entries carry the error code of a failure", () => {
  it("in the log and in GET /v1/usage; null for a success", async () => {
    const account = await newAccount({ credits: 3 });
    await postTool("/v1/generate", account.key, { prompt: "" }); // missing_parameter, before the charge
    await postTool("/v1/generate", account.key, { prompt: "a cat" }); // 2 of 3 credits
    await postTool("/v1/generate", account.key, { prompt: "a dog" }); // insufficient_credits, by the ledger
    const upstream = await insertModel({ provider: "openai", upstreamModel: OPENAI_MODELS.http500, costPerReq: 1 });
    await postTool("/v1/generate", account.key, { prompt: "a bird", model: upstream }); // upstream_error, refunded
    await postTool("/v1/batch", account.key, { requests: [{ tool: "compress_image", args: {} }] }); // an item refused
    const rows = await usageRows(account.id);
    expect(rows.map((row) => [row.status_code, row.error_code])).toEqual([
      [400, "missing_parameter"],
      [200, null],
      [400, "insufficient_credits"],
      [502, "upstream_error"],
      [400, "missing_parameter"],
    ]);
    const page = (await (await call("/v1/usage?limit=5", withKey(account.key))).json()) as { logs: { errorCode: string | null; status: string }[] };
    expect(page.logs.map((entry) => entry.errorCode)).toEqual(["missing_parameter", "upstream_error", "insufficient_credits", null, "missing_parameter"]);
  });
});

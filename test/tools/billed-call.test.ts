import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeImage } from "../../src/codecs/index.ts";
import { gradient } from "../codecs/support";
import { FAKE_IMAGE_ORIGIN } from "../input/fake-image-host";
import { call, newAccount, newKey, withKey } from "../support/fixtures";
import { expectError, expectParamError } from "../support/envelope";
import { balanceOf, base64, dataUriOf, postTool, usageRows } from "../support/tool-calls";

// The one billed-call path: nothing is taken before the
// reservation, a failure the client could not have known about before the charge is refunded,
// and every call that passed authentication writes exactly one log entry.

describe("billed-call path", () => {
  it("logs a successful call with its tool, source, status and credits", async () => {
    const account = await newAccount({ credits: 5 });
    const response = await postTool("/v1/compress", account.key, { image: await dataUriOf(gradient(8, 8)) });
    expect(response.status).toBe(200);
    const rows = await usageRows(account.id);
    expect(rows).toMatchObject([{ tool: "compress_image", source: "rest", status_code: 200, credits_deducted: 1, credits_refunded: 0 }]);
    expect(rows[0]!.request_id).toBe(response.headers.get("X-Request-Id"));
  });

  it("records source cli when the CLI tags its request", async () => {
    const account = await newAccount();
    await postTool("/v1/compress", account.key, { image: await dataUriOf(gradient(8, 8)) }, { "X-Pixelgate-Source": "cli" });
    expect((await usageRows(account.id)).map((row) => row.source)).toEqual(["cli"]);
  });

  it("charges nothing for a missing image, and logs it", async () => {
    const account = await newAccount({ credits: 5 });
    await expectParamError(await postTool("/v1/compress", account.key, { quality: 50 }), "missing_parameter", "image");
    expect(await balanceOf(account.id)).toBe(5);
    expect(await usageRows(account.id)).toMatchObject([{ tool: "compress_image", status_code: 400, credits_deducted: 0 }]);
  });

  it("charges nothing for a body that is not JSON, and logs it", async () => {
    const account = await newAccount({ credits: 5 });
    const response = await call("/v1/convert-format", withKey(account.key, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "image=x" }));
    await expectError(response, 400, "invalid_request_error", "invalid_parameter");
    expect(response.headers.get("X-RateLimit-Remaining")).toBe("59");
    expect(await usageRows(account.id)).toMatchObject([{ tool: "convert_format", status_code: 400, credits_deducted: 0 }]);
    expect(await balanceOf(account.id)).toBe(5);
  });

  it("refunds a decode failure found after the charge and records the refund", async () => {
    const account = await newAccount({ credits: 5 });
    const png = await encodeImage(gradient(64, 64), "png");
    // The header and the chunks are intact, so the call passes the pre-charge checks; the
    // compressed pixel data is garbage, which only inflating it finds.
    const corrupt = png.slice();
    corrupt.fill(0xff, 60, 120);
    const response = await postTool("/v1/convert-format", account.key, { image: `data:image/png;base64,${base64(corrupt)}`, targetFormat: "webp" });
    await expectError(response, 400, "invalid_request_error", "invalid_image");
    expect(await balanceOf(account.id)).toBe(5);
    expect(await usageRows(account.id)).toMatchObject([{ status_code: 400, credits_deducted: 1, credits_refunded: 1 }]);
  });

  it("refuses a header over the pixel limit before any charge", async () => {
    const account = await newAccount({ credits: 5 });
    const png = await encodeImage(gradient(4, 4), "png");
    const huge = png.slice();
    new DataView(huge.buffer).setUint32(16, 50_000); // IHDR width
    new DataView(huge.buffer).setUint32(20, 50_000); // IHDR height (the CRC is not checked before the limit)
    const response = await postTool("/v1/compress", account.key, { image: base64(huge) });
    await expectError(response, 400, "invalid_request_error", "image_too_large");
    expect(await usageRows(account.id)).toMatchObject([{ status_code: 400, credits_deducted: 0, credits_refunded: 0 }]);
  });

  it("refuses SVG input", async () => {
    const account = await newAccount();
    const svg = btoa('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await expectError(await postTool("/v1/compress", account.key, { image: `data:image/svg+xml;base64,${svg}` }), 400, "invalid_request_error", "unsupported_image_format");
  });

  it("answers image_fetch_failed for a URL that does not serve an image, free", async () => {
    const account = await newAccount({ credits: 2 });
    const response = await postTool("/v1/compress", account.key, { image: `${FAKE_IMAGE_ORIGIN}/not-found.png` });
    await expectError(response, 400, "invalid_request_error", "image_fetch_failed");
    expect(await balanceOf(account.id)).toBe(2);
  });

  it("answers insufficient_credits with both amounts and takes nothing", async () => {
    const account = await newAccount({ credits: 0 });
    const response = await postTool("/v1/compress", account.key, { image: await dataUriOf(gradient(8, 8)) });
    const body = await expectError(response, 400, "invalid_request_error", "insufficient_credits");
    expect(body).toMatchObject({ currentCredits: 0, requiredCredits: 1 });
    expect(await usageRows(account.id)).toMatchObject([{ status_code: 400, credits_deducted: 0 }]);
  });

  it("gives exactly 20 of 40 concurrent 1-credit calls against a balance of 20", async () => {
    const account = await newAccount({ credits: 20 });
    const second = await newKey(account.id);
    const image = await dataUriOf(gradient(8, 8));
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => postTool("/v1/compress", i % 2 ? account.key : second.secret, { image })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 400)).toHaveLength(20);
    expect(await balanceOf(account.id)).toBe(0);
    const rows = await usageRows(account.id);
    expect(rows).toHaveLength(40);
    expect(rows.reduce((sum, row) => sum + row.credits_deducted - row.credits_refunded, 0)).toBe(20);
  });

  it("answers 429 with Retry-After when the key's window is full, without charging", async () => {
    const account = await newAccount({ credits: 100 });
    await env.LEDGER.getByName(account.id).reserve({ keyId: account.keyId, slots: 60, credits: 0 });
    const response = await postTool("/v1/compress", account.key, { image: await dataUriOf(gradient(8, 8)) });
    await expectError(response, 429, "rate_limit_error", "rate_limit_exceeded");
    expect(Number(response.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(response.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(await balanceOf(account.id)).toBe(100);
  });

  it("refuses a revoked key at the ledger even when the worker cached it, without logging", async () => {
    const account = await newAccount();
    const image = await dataUriOf(gradient(8, 8));
    expect((await postTool("/v1/compress", account.key, { image })).status).toBe(200);
    await call(`/admin/v1/keys/${account.keyId}`, { method: "DELETE", headers: { Authorization: "Bearer test-admin-token" } });
    await expectError(await postTool("/v1/compress", account.key, { image }), 401, "authentication_error", "invalid_api_key");
    expect(await usageRows(account.id)).toHaveLength(1);
  });
});

describe("GET /files/{name}", () => {
  it("answers 404 for unknown and malformed names", async () => {
    await expectError(await call("/files/AAAAAAAAAAAAAAAAAAAAAAAA.png"), 404, "not_found_error", "not_found");
    await expectError(await call("/files/..%2Fsecret.png"), 404, "not_found_error", "not_found");
    await expectError(await call("/files/short.png"), 404, "not_found_error", "not_found");
  });
});

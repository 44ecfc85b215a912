// The isolate's memory gate seen from a client: compress waits while the isolate's codec budget
// is taken and runs once it is free; when the gate cannot take it, the answer is 503
// service_busy with Retry-After, before any charge. The test holds the budget itself, so every
// wait ends by a release, not by the clock.

import { afterEach, describe, expect, it } from "vitest";
import { estimateCodecBytes, isolateCodecGate, nativeRoute, type Permit } from "../../src/codecs/index.ts";
import { ISOLATE_CODEC_BUDGET } from "../../src/codecs/limits.ts";
import { gradient, image as rgbaImage } from "../codecs/support";
import { newAccount, newKey } from "../support/fixtures";
import { insertModel } from "../support/models";
import { REPLICATE_MODELS } from "../upstream/scenarios";
import { balanceOf, bytesOfDataUri, dataUriOf, postTool, usageRows } from "../support/tool-calls";

const held: Permit[] = [];
afterEach(() => {
  for (const permit of held.splice(0)) permit.release();
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

describe("memory gate on /v1/compress", () => {
  it("a call waits while the isolate's codec budget is taken, then runs and is charged once", async () => {
    expect(isolateCodecGate.state.admitted).toBe(0);
    held.push(await isolateCodecGate.acquire(ISOLATE_CODEC_BUDGET));
    const account = await newAccount({ credits: 3 });
    let answered = false;
    const call = postTool("/v1/compress", account.key, { image: await dataUriOf(gradient(64, 48)) }).finally(() => (answered = true));
    await until(() => isolateCodecGate.state.waiting === 1);
    expect(answered).toBe(false);
    expect(await balanceOf(account.id)).toBe(3); // waiting in prepare: nothing reserved yet
    held.splice(0).forEach((permit) => permit.release());
    const response = await call;
    expect(response.status).toBe(200);
    await response.json(); // the answer read: its file no longer held
    expect(await balanceOf(account.id)).toBe(2);
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("a full queue answers 503 service_busy with Retry-After, free and logged", async () => {
    held.push(await isolateCodecGate.acquire(ISOLATE_CODEC_BUDGET));
    // One waiter holding all the line may hold (a large upload): no other request gets in line.
    const queued = [isolateCodecGate.acquire(1, undefined, isolateCodecGate.options.maxWaitingBytes)];
    const account = await newAccount({ credits: 3 });
    const response = await postTool("/v1/compress", account.key, { image: await dataUriOf(gradient(64, 48)), targetFormat: "jpeg" });
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("5");
    const body = (await response.json()) as { error: { code: string; type: string } };
    expect(body.error).toMatchObject({ code: "service_busy", type: "api_error" });
    expect(await balanceOf(account.id)).toBe(3);
    const rows = await usageRows(account.id);
    expect(rows.map((r) => [r.tool, r.status_code, r.credits_deducted])).toEqual([["compress_image", 503, 0]]);
    held.splice(0).forEach((permit) => permit.release());
    for (const permit of await Promise.all(queued)) permit.release();
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("counts an inline answer's file until the client has read it (or dropped it), the rest of the estimate no longer", async () => {
    const account = await newAccount({ credits: 6 });
    // A small answer (up to 64 KB) is made whole before it leaves: nothing stays counted.
    const small = await postTool("/v1/compress", account.key, { image: await dataUriOf(gradient(64, 48)), targetFormat: "png", quality: 100 });
    expect(small.status).toBe(200);
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
    await small.arrayBuffer();

    // Grain deflate cannot shrink: the PNG answered is far over 64 KB, so it is written as read.
    const grain = (x: number, y: number, k: number) => ((x * 7919 + y * 104_729 + k * 15_485_863) ^ (x * y)) & 255;
    const image = await dataUriOf(rgbaImage(640, 480, (x, y) => [grain(x, y, 1), grain(x, y, 2), grain(x, y, 3), 255]));
    const response = await postTool("/v1/compress", account.key, { image, targetFormat: "png", quality: 100 });
    expect(response.status).toBe(200);
    // The work is over and the answer not yet read: only the file it carries is counted.
    const unread = isolateCodecGate.state;
    expect(unread.admitted).toBe(1);
    const body = (await response.json()) as { result: { image: string } };
    expect(unread.inUse).toBe(bytesOfDataUri(body.result.image).bytes.length);
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });

    // A BMP is made as its answer is read: the whole estimate stays counted until then.
    const dropped = await postTool("/playground/convert-format", account.key, { image, targetFormat: "bmp" });
    expect(dropped.status).toBe(200);
    const { bytes } = bytesOfDataUri(image);
    expect(isolateCodecGate.state.inUse).toBe(estimateCodecBytes(640 * 480, nativeRoute(bytes, "png", "bmp", 640 * 480, 100)!.price, bytes.length));
    await dropped.body!.cancel();
    await until(() => isolateCodecGate.state.admitted === 0);
    expect(isolateCodecGate.state.inUse).toBe(0);
  });

  it("an upstream upscale whose input is converted for the provider is admitted too; one sent as it is needs no admission", async () => {
    const model = await insertModel({ provider: "replicate", upstreamModel: REPLICATE_MODELS.ok, task: "upscale" });
    const account = await newAccount({ credits: 40 });
    held.push(await isolateCodecGate.acquire(ISOLATE_CODEC_BUDGET));
    const queued = [isolateCodecGate.acquire(1, undefined, isolateCodecGate.options.maxWaitingBytes)];
    // Replicate takes JPEG or PNG: a WebP is converted here, so it needs the gate, which is full.
    const webp = await postTool("/v1/upscale", account.key, { image: await dataUriOf(gradient(96, 64), "webp"), model, scaleFactor: "2x" });
    expect(webp.status).toBe(503);
    expect(((await webp.json()) as { error: { code: string } }).error.code).toBe("service_busy");
    expect(await balanceOf(account.id)).toBe(40);
    const png = await postTool("/v1/upscale", account.key, { image: await dataUriOf(gradient(96, 64), "png"), model, scaleFactor: "2x" });
    expect(png.status).toBe(200);
    await png.arrayBuffer();
    expect(await balanceOf(account.id)).toBe(25);
    held.splice(0).forEach((permit) => permit.release());
    for (const permit of await Promise.all(queued)) permit.release();
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("gives the permit back when the ledger refuses the call or the whole batch (too few credits)", async () => {
    const account = await newAccount({ credits: 0 });
    const image = await dataUriOf(gradient(64, 48));
    const single = await postTool("/v1/compress", account.key, { image });
    expect(single.status).toBe(400);
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
    const batch = await postTool("/v1/batch", account.key, { requests: [{ tool: "compress_image", args: { image } }, { tool: "convert_format", args: { image, targetFormat: "webp" } }] });
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { code: string } }).error.code).toBe("insufficient_credits");
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });
  // A tiny call is priced as measured (its route's floor in route-costs.json), not as a large one, and the
  // line is bounded by what its waiters hold: a burst of small work is served, not refused.
  it("serves 200 tiny compress calls sent at once (five keys, inside each key's rate limit)", async () => {
    const image = await dataUriOf(gradient(16, 16));
    const accounts = await Promise.all(Array.from({ length: 5 }, () => newAccount({ credits: 40 })));
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const response = await postTool("/v1/compress", accounts[i % 5]!.key, { image, targetFormat: "webp", quality: 70 });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(answers.filter((status) => status === 200)).toHaveLength(200);
    for (const account of accounts) expect(await balanceOf(account.id)).toBe(0);
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("80 tiny calls at once on an account with 40 credits: exactly 40 served and 40 insufficient_credits, none busy", async () => {
    const account = await newAccount({ credits: 40 });
    const second = (await newKey(account.id, "second")).secret; // two keys: 40 calls each, inside the rate limit
    const image = await dataUriOf(gradient(16, 16));
    const answers = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const response = await postTool("/v1/compress", i % 2 === 0 ? account.key : second, { image, targetFormat: "webp", quality: 70 });
        const body = (await response.json()) as { error?: { code: string } };
        return response.status === 200 ? "ok" : `${response.status} ${body.error?.code}`;
      }),
    );
    const counts: Record<string, number> = {};
    for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1;
    expect(counts).toEqual({ ok: 40, "400 insufficient_credits": 40 });
    expect(await balanceOf(account.id)).toBe(0);
    expect(isolateCodecGate.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("a large photo waits while the budget is taken, and is refused free when the line cannot hold its upload", async () => {
    const account = await newAccount({ credits: 3 });
    const photo = await dataUriOf(rgbaImage(1200, 1000, (x, y) => [(x * 13) ^ y, (y * 7) ^ x, (x + y) & 255, 255]));
    held.push(await isolateCodecGate.acquire(ISOLATE_CODEC_BUDGET));
    const waits = postTool("/v1/compress", account.key, { image: photo, targetFormat: "webp", quality: 70 });
    await until(() => isolateCodecGate.state.waiting === 1);
    expect(isolateCodecGate.state.waitingBytes).toBeGreaterThan(bytesOfDataUri(photo).bytes.length * 2);
    // The line is full of what that one holds plus a stand-in for many more: the next is refused.
    const filler = isolateCodecGate.acquire(1, undefined, isolateCodecGate.options.maxWaitingBytes - isolateCodecGate.state.waitingBytes);
    const refused = await postTool("/v1/compress", account.key, { image: photo, targetFormat: "webp", quality: 70 });
    expect(refused.status).toBe(503);
    expect(await balanceOf(account.id)).toBe(3);
    held.splice(0).forEach((permit) => permit.release());
    const served = await waits;
    expect(served.status).toBe(200);
    await served.arrayBuffer();
    (await filler).release();
    expect(await balanceOf(account.id)).toBe(2);
  });
});

import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { findModel } from "../src/models/catalog";
import { resolveImageModel, resolveTaskModel } from "../src/models/resolve";
import { expectParamError } from "./support/envelope";
import { adminCall, call, newAccount, withKey } from "./support/fixtures";
import { deleteModel, insertModel } from "./support/models";
import { balanceOf, dataUriOf, fetchHosted, postTool } from "./support/tool-calls";
import { recordOf } from "./upstream/adapter-kit";
import { discOnPlainBackground } from "./support/pictures";

// Model lifecycle: a row with `retiresAt` stops being live on that UTC day and a call naming it
// is served by `replacedBy`. The seeded OpenAI rows are the real case: gpt-image-1 was shut down
// on 2026-10-23, gpt-image-1.5 goes on 2026-12-01, both replaced by gpt-image-2. Every check runs
// at a fixed clock: the resolver takes `now`, the HTTP tests fake Date alone (timers run as usual).

const BEFORE = new Date("2026-11-30T23:59:59Z");
const ON_THE_DAY = new Date("2026-12-01T00:00:00Z");

function atClock(when: Date): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(when);
}

const made: string[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(made.splice(0).map(deleteModel));
});

async function liveImageIds(): Promise<string[]> {
  const account = await newAccount();
  const body = (await (await call("/v1/models", withKey(account.key))).json()) as { models: { modelId: string }[] };
  return body.models.map((model) => model.modelId);
}

describe("the seeded OpenAI rows", () => {
  it("gpt-image-1.5 serves itself until 2026-12-01 and gpt-image-2 serves it from that day", async () => {
    expect(await resolveImageModel(env, "gpt-image-1.5", BEFORE)).toMatchObject({ modelId: "gpt-image-1.5", upstreamModel: "gpt-image-1.5" });
    expect((await resolveImageModel(env, "gpt-image-1.5", BEFORE)).replaces).toBeUndefined();
    const after = await resolveImageModel(env, "gpt-image-1.5", ON_THE_DAY);
    expect(after).toMatchObject({ modelId: "gpt-image-2", upstreamModel: "gpt-image-2" });
    expect(after.replaces).toMatchObject({ modelId: "gpt-image-1.5", retiresAt: "2026-12-01" });
    expect((await findModel(env, "gpt-image-1.5", ON_THE_DAY))?.isLive).toBe(false);
  });

  it("gpt-image-1 is retired (since 2026-10-23) and not listed; gpt-image-2 is", async () => {
    expect(await resolveImageModel(env, "gpt-image-1", BEFORE)).toMatchObject({ modelId: "gpt-image-2", replaces: { modelId: "gpt-image-1" } });
    atClock(BEFORE);
    const before = await liveImageIds();
    expect(before).toContain("gpt-image-1.5");
    expect(before).toContain("gpt-image-2");
    expect(before).not.toContain("gpt-image-1");
    atClock(ON_THE_DAY);
    const after = await liveImageIds();
    expect(after).toContain("gpt-image-2");
    expect(after).not.toContain("gpt-image-1.5");
  });

  it("a call naming gpt-image-1 is served by gpt-image-2, at its price, and the answer says which and why", async () => {
    atClock(BEFORE);
    const account = await newAccount({ credits: 50 });
    const response = await postTool("/v1/generate", account.key, { prompt: "a lighthouse at dusk", model: "gpt-image-1" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { message: string; deductedCredits: number; result: { model: string; imageUrl: string } };
    expect(body.result.model).toBe("gpt-image-2");
    expect(body.message).toContain("gpt-image-1 was retired on 2026-10-23, so gpt-image-2 (its replacement) served this call.");
    expect(body.deductedCredits).toBe(20);
    expect(await balanceOf(account.id)).toBe(30);
    // The fake OpenAI (which answers 404 for gpt-image-1, as OpenAI does) saw gpt-image-2.
    expect(recordOf(await fetchHosted(body.result.imageUrl, "image/png"))).toMatchObject({ model: "gpt-image-2", endpoint: "images/generations" });
  });
});

describe("transparent output through OpenAI", () => {
  it("generate_transparent_image with gpt-image-2 renders opaque and cuts the subject out", async () => {
    const account = await newAccount({ credits: 50 });
    const response = await postTool("/v1/generate-transparent", account.key, { prompt: "a red apple", model: "gpt-image-2" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { isTransparent: boolean; originalImageUrl: string; model: string } };
    expect(body.result).toMatchObject({ isTransparent: true, model: "gpt-image-2" });
    const render = recordOf(await fetchHosted(body.result.originalImageUrl, "image/png"));
    expect(render).toMatchObject({ model: "gpt-image-2", endpoint: "images/generations" });
    expect(render.background).toBeUndefined();
  });

  it("edit_image action remove_bg with gpt-image-2 is refused before any charge", async () => {
    const account = await newAccount({ credits: 50 });
    const image = await dataUriOf(discOnPlainBackground(32, 32));
    await expectParamError(await postTool("/v1/edit", account.key, { image, action: "remove_bg", model: "gpt-image-2" }), "invalid_parameter", "action");
    expect(await balanceOf(account.id)).toBe(50);
  });
});

describe("retirement set by the operator", () => {
  async function pair(): Promise<[string, string]> {
    const old = await insertModel({ provider: "local", upstreamModel: "procedural-v1", costPerReq: 3 });
    const current = await insertModel({ provider: "local", upstreamModel: "procedural-v1", costPerReq: 4 });
    made.push(old, current);
    return [old, current];
  }

  it("PATCH sets retiresAt and replacedBy; from that day the replacement serves and the old row is not live", async () => {
    const [old, current] = await pair();
    const response = await adminCall(`/admin/v1/models/${old}`, "PATCH", { retiresAt: "2026-12-01", replacedBy: current });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: unknown }).model).toMatchObject({ modelId: old, retiresAt: "2026-12-01", replacedBy: current, isLive: true });
    expect((await resolveImageModel(env, old, BEFORE)).modelId).toBe(old);
    expect(await resolveImageModel(env, old, ON_THE_DAY)).toMatchObject({ modelId: current, replaces: { modelId: old } });

    atClock(ON_THE_DAY);
    const account = await newAccount({ credits: 50 });
    const served = await postTool("/v1/generate", account.key, { prompt: "a red circle", model: old });
    expect(served.status).toBe(200);
    const body = (await served.json()) as { message: string; deductedCredits: number; result: { model: string } };
    expect(body.result.model).toBe(current);
    expect(body.deductedCredits).toBe(4);
    expect(body.message).toContain(`${old} was retired on 2026-12-01`);

    const cleared = await adminCall(`/admin/v1/models/${old}`, "PATCH", { retiresAt: null, replacedBy: null });
    expect(((await cleared.json()) as { model: unknown }).model).toMatchObject({ retiresAt: null, replacedBy: null, isLive: true });
  });

  it("a retired row whose replacement is not live is refused with 400, free", async () => {
    const [old, current] = await pair();
    await adminCall(`/admin/v1/models/${old}`, "PATCH", { retiresAt: "2026-01-01", replacedBy: current });
    await adminCall(`/admin/v1/models/${current}`, "PATCH", { isLive: false });
    const account = await newAccount({ credits: 50 });
    const refused = await expectParamError(await postTool("/v1/generate", account.key, { prompt: "a red circle", model: old }), "invalid_parameter", "model");
    expect(refused.error.message).toContain(`was retired on 2026-01-01 and its replacement "${current}" is not live`);
    expect(await balanceOf(account.id)).toBe(50);
  });

  it("refuses a replacement of another task, itself, or no model, and a date that is not YYYY-MM-DD", async () => {
    const [old] = await pair();
    await expectParamError(await adminCall(`/admin/v1/models/${old}`, "PATCH", { replacedBy: "local-cutout-v1" }), "invalid_parameter", "replacedBy");
    await expectParamError(await adminCall(`/admin/v1/models/${old}`, "PATCH", { replacedBy: old }), "invalid_parameter", "replacedBy");
    await expectParamError(await adminCall(`/admin/v1/models/${old}`, "PATCH", { replacedBy: "no-such-model" }), "invalid_parameter", "replacedBy");
    await expectParamError(await adminCall(`/admin/v1/models/${old}`, "PATCH", { retiresAt: "1 December 2026" }), "invalid_parameter", "retiresAt");
    expect(await findModel(env, old)).toMatchObject({ retiresAt: null, replacedBy: null });
  });

  it("a retired cut-out model named on remove_background is served by its replacement", async () => {
    const old = await insertModel({ provider: "local", upstreamModel: "cutout-v1", task: "remove_bg" });
    made.push(old);
    await adminCall(`/admin/v1/models/${old}`, "PATCH", { retiresAt: "2026-01-01", replacedBy: "local-cutout-v1" });
    expect(await resolveTaskModel(env, "remove_bg", old, BEFORE)).toMatchObject({ modelId: "local-cutout-v1", replaces: { modelId: old } });
  });
});

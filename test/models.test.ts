import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { expectError, expectParamError } from "./support/envelope";
import { adminCall, call, newAccount, withKey } from "./support/fixtures";
import { findModel } from "../src/models/catalog";

// GET /v1/models and PATCH /admin/v1/models/{id}.
// The models table is shared by every test in this file, so each test's changes are undone
// afterwards from a snapshot taken before the first test.

const LIVE_MODEL = "local-draw-v1";

interface ModelEntry {
  modelId: string;
  name: string;
  costPerReq: number;
  priority: number;
  outputsSupported: string[];
  isLive: boolean;
  task: string;
  tools: string[];
}
interface ModelRow {
  model_id: string;
  cost_per_req: number | null;
  priority: number;
  enabled: number;
}

let seeded: ModelRow[] = [];

beforeAll(async () => {
  seeded = (await env.DB.prepare("SELECT model_id, cost_per_req, priority, enabled FROM models").all<ModelRow>()).results;
});

// At a fixed clock, so the lists do not change on 2026-12-01 when gpt-image-1.5 retires
// (retirement itself: test/model-lifecycle.test.ts). Only Date is faked; timers run as usual.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-11-27T12:00:00Z"));
});

afterEach(async () => {
  vi.useRealTimers();
  const ids = seeded.map((row) => row.model_id);
  await env.DB.batch([
    env.DB.prepare(`DELETE FROM models WHERE model_id NOT IN (${ids.map(() => "?").join(", ")})`).bind(...ids),
    ...seeded.map((row) =>
      env.DB.prepare("UPDATE models SET cost_per_req = ?, priority = ?, enabled = ? WHERE model_id = ?")
        .bind(row.cost_per_req, row.priority, row.enabled, row.model_id),
    ),
  ]);
});

async function listModels(query = ""): Promise<ModelEntry[]> {
  const account = await newAccount();
  const response = await call(`/v1/models${query}`, withKey(account.key));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { success: boolean; count: number; models: ModelEntry[] };
  expect(body.success).toBe(true);
  expect(body.count).toBe(body.models.length);
  return body.models;
}

const patchModel = (modelId: string, changes: unknown) => adminCall(`/admin/v1/models/${modelId}`, "PATCH", changes);

/** A second live image model (the local provider is always configured), so order can be observed. */
async function addLocalImageModel(modelId: string, priority: number): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO models (model_id, name, description, provider, upstream_model, task, cost_per_req, priority)
     VALUES (?, 'Test sketcher', 'Second local image model for ordering tests.', 'local', 'procedural-v1', 'image', 3, ?)`,
  ).bind(modelId, priority).run();
}

describe("GET /v1/models", () => {
  it("lists only live image models, highest priority first; other tasks are not listed", async () => {
    // The tests configure every provider (fake upstreams, vitest.config.ts), so the seeded
    // workers-ai, openai and replicate image rows are live; cut-out/upscale/svg rows are other tasks.
    const models = await listModels();
    expect(models.map((model) => model.modelId)).toEqual([
      "flux-2-klein-4b", "flux-2-klein-9b", "flux-2-dev", "flux-1-schnell", "gpt-image-2", "gpt-image-1.5", "sd-v1-5-img2img",
      "flux-2-pro", "flux-kontext-pro", "flux-1.1-pro", LIVE_MODEL,
    ]);
    expect(models.every((model) => model.task === "image" && model.tools.includes("generate_image"))).toBe(true);
    const local = models.find((model) => model.modelId === LIVE_MODEL)!;
    expect(local).toMatchObject({ costPerReq: 2, priority: 10, isLive: true });
    expect(local.outputsSupported).toContain("image");
    expect(local.name).toEqual(expect.any(String));
  });

  it("?task= lists the cut-out, upscale and SVG models, each naming the tool it serves", async () => {
    const cutouts = await listModels("?task=remove_bg");
    expect(cutouts.map((model) => model.modelId)).toEqual(["bria-remove-background", "rembg", "local-cutout-v1"]);
    expect(cutouts.every((model) => model.task === "remove_bg" && model.tools.join() === "remove_background")).toBe(true);
    expect((await listModels("?task=upscale")).map((model) => model.modelId)).toEqual(["real-esrgan", "topaz-upscale", "local-lanczos-v1"]);
    expect((await listModels("?task=svg")).map((model) => [model.modelId, model.tools.join()])).toEqual([["recraft-v3-svg", "text_to_svg"], ["local-svg-v1", "text_to_svg"]]);
    const every = await listModels("?task=all");
    expect(every.map((model) => model.task)).toEqual([...every.map((model) => model.task)].sort((a, b) => ["image", "remove_bg", "upscale", "svg"].indexOf(a) - ["image", "remove_bg", "upscale", "svg"].indexOf(b)));
    expect(every).toHaveLength(11 + 3 + 3 + 2);
    expect(await listModels("?task=image")).toEqual(await listModels());
  });

  it("answers 400 naming task for an unknown task", async () => {
    const account = await newAccount();
    await expectParamError(await call("/v1/models?task=video", withKey(account.key)), "invalid_parameter", "task");
  });

  it("orders by priority, highest first, and a priority change reorders the list", async () => {
    await addLocalImageModel("test-sketch-v1", 5);
    const localIds = (models: ModelEntry[]) => models.map((model) => model.modelId).filter((id) => id === LIVE_MODEL || id === "test-sketch-v1");
    expect(localIds(await listModels())).toEqual([LIVE_MODEL, "test-sketch-v1"]);
    const response = await patchModel("test-sketch-v1", { priority: 99 });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: ModelEntry }).model.priority).toBe(99);
    const reordered = (await listModels()).filter((model) => model.modelId === LIVE_MODEL || model.modelId === "test-sketch-v1");
    expect(reordered.map((model) => model.modelId)).toEqual(["test-sketch-v1", LIVE_MODEL]);
    expect(reordered.map((model) => model.priority)).toEqual([99, 10]);
  });

  it("shows costPerReq 15 for a live model whose cost is null", async () => {
    const response = await patchModel(LIVE_MODEL, { costPerReq: null });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: ModelEntry }).model.costPerReq).toBe(15);
    const stored = await env.DB.prepare("SELECT cost_per_req FROM models WHERE model_id = ?").bind(LIVE_MODEL).first<ModelRow>();
    expect(stored?.cost_per_req).toBeNull();
    expect((await listModels()).find((model) => model.modelId === LIVE_MODEL)?.costPerReq).toBe(15);
  });
});

describe("PATCH /admin/v1/models/{modelId}", () => {
  it("hides a model set to isLive false", async () => {
    const response = await patchModel(LIVE_MODEL, { isLive: false });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: ModelEntry }).model).toMatchObject({ modelId: LIVE_MODEL, isLive: false });
    expect((await listModels()).map((model) => model.modelId)).not.toContain(LIVE_MODEL);
  });

  it("cannot make a model live whose provider is not configured", async () => {
    await patchModel("flux-1.1-pro", { isLive: false });
    const response = await patchModel("flux-1.1-pro", { isLive: true });
    expect(response.status).toBe(200);
    // Replicate is configured in tests (a fake upstream), so the row is live here...
    expect(((await response.json()) as { model: ModelEntry }).model.isLive).toBe(true);
    // ...and without its token the same enabled row is not.
    expect((await findModel({ ...env, REPLICATE_API_TOKEN: undefined }, "flux-1.1-pro"))?.isLive).toBe(false);
    expect((await findModel({ ...env, REPLICATE_API_TOKEN: undefined }, "flux-1.1-pro"))?.enabled).toBe(true);
  });

  it("answers 404 not_found_error for an unknown model", async () => {
    await expectError(await patchModel("no-such-model", { priority: 1 }), 404, "not_found_error", "not_found");
  });

  it("answers 400 for an empty change set, and changes nothing", async () => {
    await expectError(await patchModel(LIVE_MODEL, {}), 400, "invalid_request_error", "invalid_parameter");
    const emptyBody = await adminCall(`/admin/v1/models/${LIVE_MODEL}`, "PATCH");
    expect(emptyBody.status).toBe(400);
    expect((await listModels()).find((model) => model.modelId === LIVE_MODEL)).toMatchObject({ priority: 10, costPerReq: 2 });
  });

  it("answers 400 naming the field for an out-of-range cost", async () => {
    await expectParamError(await patchModel(LIVE_MODEL, { costPerReq: -1 }), "invalid_parameter", "costPerReq");
  });
});

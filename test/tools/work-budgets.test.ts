import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { encodeImage } from "../../src/codecs/index.ts";
import { servingRequest, watchUnbudgetedWork, WorkBudget } from "../../src/codecs/fuel.ts";
import { sampleImageDataUri } from "../../src/dashboard/playground-call.ts";
import { mcpClient } from "../mcp/support";
import { expectError } from "../support/envelope";
import { call, newAccount } from "../support/fixtures";
import { insertModel } from "../support/models";
import { discOnPlainBackground } from "../support/pictures";
import { balanceOf, dataUriOf, postTool, usageRows } from "../support/tool-calls";
import { REPLICATE_MODELS } from "../upstream/scenarios";

// Every codec instance a request makes draws on a work budget (src/codecs/fuel.ts), also on the
// paths that do no memory-gated work of their own: a local render from a prompt, the cut-out
// stage of generate-transparent, an upstream upscale whose input is converted for the provider,
// each batch item, an MCP result's preview, the playground's sample picture. Seen two ways: the
// budgets the path makes are spent (WorkBudget.forWork watched as it is called), and a budget
// too small for the work stops it with 400 image_too_large, refunded, while the worker goes on
// answering. (test/setup/unbudgeted-work.ts fails any test whose requests ran codec work on no
// budget at all.)

/** Too few loop turns for any codec to start. */
const TINY = 1_000n;

const forWork = WorkBudget.forWork.bind(WorkBudget);

/** Watches the budgets made from here on; `tiny(n)`: the n-th made (0-based) is too small for its work. */
function budgets(tiny: (index: number) => boolean = () => false): WorkBudget[] {
  const made: WorkBudget[] = [];
  vi.spyOn(WorkBudget, "forWork").mockImplementation((kind, pixels, route) => {
    const budget = tiny(made.length) ? new WorkBudget(TINY) : forWork(kind, pixels, route);
    made.push(budget);
    return budget;
  });
  return made;
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Stopped by its budget: 400 image_too_large, nothing kept, logged as refunded; the worker still answers. */
async function expectStopped(response: Response, account: { id: string }, credits: number, price: number): Promise<void> {
  const body = await expectError(response, 400, "invalid_request_error", "image_too_large");
  expect(body.error.message).toMatch(/more work/);
  expect(await balanceOf(account.id)).toBe(credits);
  expect((await usageRows(account.id)).at(-1)).toMatchObject({ status_code: 400, credits_deducted: price, credits_refunded: price });
  expect((await call("/v1")).status).toBe(200);
}

describe("codec work a request does outside any budget", () => {
  it("is noted, and work on a budget of its own is not", async () => {
    const take = watchUnbudgetedWork();
    const picture = discOnPlainBackground(32, 32);
    await servingRequest(() => encodeImage(picture, "png"));
    expect(take()).toHaveLength(1);
    await servingRequest(() => forWork("codec", 32 * 32).run(() => encodeImage(picture, "png")));
    await encodeImage(picture, "png"); // outside any request: a test's own, not watched
    expect(take()).toEqual([]);
  });
});

describe("a model call with no input image draws on a budget", () => {
  it("the local render's PNG is made on the call's budget", async () => {
    const made = budgets();
    const account = await newAccount({ credits: 20 });
    const response = await postTool("/v1/generate", account.key, { prompt: "a red circle", seed: 3 });
    expect(response.status).toBe(200);
    expect(made).toHaveLength(1);
    expect(made[0]!.spent).toBeGreaterThan(0n);
    expect(made[0]!.spent * 2n).toBeLessThanOrEqual(made[0]!.steps);
  });

  it("stops with 400 image_too_large, refunded, when the budget is spent", async () => {
    budgets(() => true);
    const account = await newAccount({ credits: 20 });
    const response = await postTool("/v1/generate", account.key, { prompt: "a red circle", seed: 3 });
    await expectStopped(response, account, 20, 2);
  });
});

describe("generate-transparent's cut-out stage has a budget of its own, from the render it reads", () => {
  // The local cut-out reads the render here (an upstream's is sent the PNG as it is); this
  // file's storage is its own.
  beforeAll(async () => {
    await env.DB.prepare("UPDATE models SET priority = CASE WHEN model_id = 'local-cutout-v1' THEN 1000 ELSE 0 END WHERE task = 'remove_bg'").run();
  });

  it("draws on it", async () => {
    const made = budgets();
    const account = await newAccount({ credits: 20 });
    const response = await postTool("/v1/generate-transparent", account.key, { prompt: "a red circle", seed: 3 });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { isTransparent: boolean } }).result.isTransparent).toBe(true);
    expect(made).toHaveLength(2); // the call's, then the cut-out's
    const [render, cutout] = made as [WorkBudget, WorkBudget];
    expect(cutout.steps).toBeGreaterThan(render.steps); // the render's pixels, where the call had none
    expect(cutout.spent).toBeGreaterThan(0n);
    expect(cutout.spent * 2n).toBeLessThanOrEqual(cutout.steps);
  });

  it("spent, the stage fails like any other: the render is the result and the stage's 8 credits come back", async () => {
    budgets((index) => index === 1);
    const account = await newAccount({ credits: 20 });
    const response = await postTool("/v1/generate-transparent", account.key, { prompt: "a red circle", seed: 3 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { deductedCredits: number; result: { isTransparent: boolean } };
    expect(body.result.isTransparent).toBe(false);
    expect(body.deductedCredits).toBe(2);
    expect(await balanceOf(account.id)).toBe(18);
  });
});

describe("an upstream upscale whose input is converted for the provider draws on a budget", () => {
  it("the WebP made JPEG or PNG for Replicate, on the call's budget; spent, 400 refunded", async () => {
    const model = await insertModel({ provider: "replicate", upstreamModel: REPLICATE_MODELS.ok, task: "upscale" });
    const image = await dataUriOf(discOnPlainBackground(96, 64), "webp");
    const made = budgets();
    const account = await newAccount({ credits: 40 });
    const response = await postTool("/v1/upscale", account.key, { image, model, scaleFactor: "2x" });
    expect(response.status).toBe(200);
    expect(made).toHaveLength(1);
    expect(made[0]!.spent).toBeGreaterThan(0n);

    vi.restoreAllMocks();
    budgets(() => true);
    await expectStopped(await postTool("/v1/upscale", account.key, { image, model, scaleFactor: "2x" }), account, 25, 15);
  });
});

describe("each batch item runs on its own budget", () => {
  it("an item whose budget is spent fails alone, refunded; the other is served", async () => {
    const image = await dataUriOf(discOnPlainBackground(48, 48));
    const requests = [
      { tool: "compress_image", args: { image, quality: 50 } },
      { tool: "generate_image", args: { prompt: "a red circle", seed: 1 } },
    ];
    const made = budgets();
    const account = await newAccount({ credits: 20 });
    expect((await postTool("/v1/batch", account.key, { requests })).status).toBe(200);
    expect(made).toHaveLength(2);
    expect(made.every((budget) => budget.spent > 0n)).toBe(true);

    vi.restoreAllMocks();
    const starved = budgets((index) => index === 0);
    const response = await postTool("/v1/batch", account.key, { requests });
    const body = (await response.json()) as { deductedCredits: number; results: { status: number; data: { error?: { code: string } } }[] };
    expect(starved).toHaveLength(2);
    expect(body.results.map((item) => item.status).sort()).toEqual([200, 400]);
    expect(body.results.find((item) => item.status === 400)!.data.error?.code).toBe("image_too_large");
    // 3 credits each time (1 + 2); the second batch's failed item given back.
    const failedPrice = body.results[0]!.status === 400 ? 1 : 2;
    expect(await balanceOf(account.id)).toBe(20 - 3 - (3 - failedPrice));
  });
});

describe("an MCP result's preview has a budget of its own", () => {
  type Result = { isError?: boolean; content: { type: string; mimeType?: string }[] };
  const imageBlocks = (result: Result) => result.content.filter((block) => block.type === "image");

  it("made from the result after the call, on its own budget; spent, the preview is left out and the result stays", async () => {
    const account = await newAccount({ credits: 20 });
    const client = await mcpClient(account.key);
    const made = budgets();
    const shown = (await client.callTool({ name: "generate_image", arguments: { prompt: "a red circle", seed: 2 } })) as Result;
    expect(shown.isError).toBeFalsy();
    expect(imageBlocks(shown)).toHaveLength(1);
    expect(made).toHaveLength(2); // the call's, then the preview's
    expect(made[1]!.spent).toBeGreaterThan(0n);
    expect(made[1]!.spent * 2n).toBeLessThanOrEqual(made[1]!.steps);

    vi.restoreAllMocks();
    budgets((index) => index === 1);
    const unshown = (await client.callTool({ name: "generate_image", arguments: { prompt: "a red circle", seed: 2 } })) as Result;
    expect(unshown.isError).toBeFalsy();
    expect(imageBlocks(unshown)).toEqual([]);
    expect(unshown.content.some((block) => block.type === "resource_link")).toBe(true);
    expect(await balanceOf(account.id)).toBe(16); // both calls served and paid
  });
});

describe("the playground's sample picture", () => {
  it("is drawn on a budget of its own", async () => {
    const made = budgets();
    const take = watchUnbudgetedWork();
    const uri = await servingRequest(() => sampleImageDataUri());
    expect(uri).toMatch(/^data:image\/png;base64,/);
    expect(made).toHaveLength(1);
    expect(made[0]!.spent).toBeGreaterThan(0n);
    expect(take()).toEqual([]);
  });
});

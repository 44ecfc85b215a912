import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeImage } from "../../src/codecs/index.ts";
import { INLINE_LIMIT_BYTES } from "../../src/providers/input-links.ts";
import { openaiProvider } from "../../src/providers/openai.ts";
import { replicateProvider } from "../../src/providers/replicate.ts";
import type { ProviderTask, TaskImage } from "../../src/providers/types.ts";
import { shareInputCopy, signedInputUrl } from "../../src/storage/input-copies.ts";
import { callFor, decodedOutput, expectFailure, fakeReplicatePrediction, modelFor, pngInput, ratio, recordOf } from "../upstream/adapter-kit.ts";
import { OPENAI_MODELS, REPLICATE_MODELS as M } from "../upstream/scenarios.ts";

// Input images over 1 MB reach the provider as signed, expiring links to the service's own copy in
// R2 (src/providers/input-links.ts, src/storage/input-copies.ts); smaller ones as data URIs. The
// fake Replicate cannot reach the worker, so the test fetches each link it was given through the
// worker, as Replicate would.

const BASE = env.PUBLIC_BASE_URL ?? "https://pixelgate.test";
const get = (url: string) => exports.default.fetch(new Request(url));
const edit = (prompt: string, image: TaskImage): ProviderTask => ({ kind: "edit", prompt, action: "edit", image, aspectRatio: ratio("1:1"), seed: 7 });
const run = (upstream: string, task: ProviderTask, options?: Parameters<typeof callFor>[1]) => replicateProvider.run(task, callFor(modelFor("replicate", upstream), options));

/** A PNG of noise (which does not compress) over 1 MB. */
async function largePng(): Promise<TaskImage> {
  const side = 640;
  const data = new Uint8ClampedArray(side * side * 4);
  const noise = new Uint8Array(data.buffer);
  for (let offset = 0; offset < noise.length; offset += 65536) crypto.getRandomValues(noise.subarray(offset, offset + 65536));
  for (let i = 3; i < data.length; i += 4) data[i] = 255; // opaque
  const bytes = await encodeImage({ width: side, height: side, data }, "png");
  return { bytes, format: "png", width: side, height: side };
}

async function expectRefused(url: string, message: RegExp): Promise<void> {
  const response = await get(url);
  expect(response.status).toBe(404);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("not_found");
  expect(body.error.message).toMatch(message);
}

describe("input images to Replicate: data URI up to 1 MB, signed link above", () => {
  it("sends a small input inline as a data URI", async () => {
    const { bytes } = await decodedOutput(await run(M.ok, edit("small one", await pngInput(20, 15))));
    const record = recordOf(bytes);
    expect(record.imageCount).toBe(1);
    expect(record.imageTypes).toEqual(["image/png"]);
    expect(record.imageUrls).toBeUndefined();
  });

  it("sends a large input as a link to our copy, which serves the same bytes until the call ends", async () => {
    const image = await largePng();
    expect(image.bytes.length).toBeGreaterThan(INLINE_LIMIT_BYTES);
    const prompt = `large input ${crypto.randomUUID()}`;
    const background: Promise<unknown>[] = [];
    // hang-poll keeps the prediction running until our deadline: the link is fetched meanwhile.
    const call = expectFailure(run(M.hangPoll, edit(prompt, image), { timeoutMs: 4000, env: { UPSTREAM_TIMEOUT_MS: "4000" }, waitUntil: (work) => void background.push(work) }), "upstream_timeout");
    let input: Record<string, unknown> | undefined;
    for (let tries = 0; tries < 100 && !input; tries++) {
      input = (await fakeReplicatePrediction(prompt))?.input;
      if (!input) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const link = String(input?.image);
    expect(input?.input_image).toBe(link);
    expect(link).toMatch(new RegExp(`^${BASE.replace(/\./g, "\\.")}/files/inputs/[0-9A-Za-z]{24}\\.png\\?expires=\\d+&signature=[0-9a-f]{64}$`));
    // Expiring within the call's deadline (4 s), not later.
    const expires = Number(new URL(link).searchParams.get("expires"));
    expect(expires * 1000).toBeLessThanOrEqual(Date.now() + 4000);
    expect(expires * 1000).toBeGreaterThan(Date.now());

    const served = await get(link);
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe("image/png");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(image.bytes);

    await call;
    await Promise.all(background); // the cancel and the deletion of the copy
    expect((await get(link)).status).toBe(404); // deleted once the prediction was given up
  });

  it("records the link, not a data URI, in a prediction that succeeds", async () => {
    const { bytes } = await decodedOutput(await run(M.ok, edit("large one", await largePng())));
    const record = recordOf(bytes);
    expect(record.imageTypes).toEqual([]);
    expect(record.imageUrls).toHaveLength(1);
    expect(record.imageUrls![0]).toContain(`${BASE}/files/inputs/`);
  });
});

describe("input images to OpenAI: multipart files up to 1 MB, JSON edits with a link above", () => {
  const runOpenAi = (upstream: string, task: ProviderTask) => openaiProvider.run(task, callFor(modelFor("openai", upstream)));

  it("sends a small input as a multipart file", async () => {
    const record = recordOf((await decodedOutput(await runOpenAi("gpt-image-2", edit("small", await pngInput(20, 15))))).bytes);
    expect(record).toMatchObject({ endpoint: "images/edits", imageCount: 1, imageField: "image" });
    expect(record.imageUrls).toBeUndefined();
  });

  it("sends a large input in the JSON form as images[].image_url, a link that serves the same bytes", async () => {
    const image = await largePng();
    const record = recordOf((await decodedOutput(await runOpenAi("gpt-image-2", edit("large", image)))).bytes);
    expect(record).toMatchObject({ endpoint: "images/edits", imageCount: 1 });
    expect(record.keys).toEqual(["images", "model", "n", "prompt", "size"]);
    expect(record.imageUrls).toHaveLength(1);
    // No waitUntil in this call, so the copy is not deleted yet: fetch it as OpenAI would.
    const served = await get(record.imageUrls![0]!);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(image.bytes);
  });

  it("keeps DALL-E edits multipart (its edits have no JSON form)", async () => {
    const record = recordOf((await decodedOutput(await runOpenAi(OPENAI_MODELS.dallE3, edit("large", await largePng())))).bytes);
    expect(record.imageField).toBe("image");
    expect(record.imageUrls).toBeUndefined();
  });
});

describe("GET /files/inputs/{name}: signed and expiring", () => {
  it("refuses an expired link and a tampered signature, in the error envelope", async () => {
    const image = await pngInput(8, 8);
    const now = Math.floor(Date.now() / 1000);
    const live = await shareInputCopy(env, BASE, image.bytes, "png", now + 60);
    expect((await get(live.url)).status).toBe(200);

    const name = live.key.slice("inputs/".length);
    await expectRefused(await signedInputUrl(env, BASE, name, now - 1), /expired/);

    const url = new URL(live.url);
    const signature = url.searchParams.get("signature")!;
    url.searchParams.set("signature", (signature[0] === "0" ? "1" : "0") + signature.slice(1));
    await expectRefused(url.href, /not valid/);

    const later = new URL(live.url);
    later.searchParams.set("expires", String(now + 3600)); // a longer life is a different signature
    await expectRefused(later.href, /not valid/);

    await expectRefused(`${BASE}/files/inputs/${name}`, /No such file/);
    const otherName = `${name[0] === "x" ? "y" : "x"}${name.slice(1)}`; // another name, whatever the first letter
    await expectRefused(live.url.replace(name, otherName), /not valid/);
  });
});

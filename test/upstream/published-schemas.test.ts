import { describe, expect, it } from "vitest";
import { FAKE_CLOUDFLARE_ACCOUNT, FAKE_CLOUDFLARE_TOKEN, FAKE_OPENAI_BASE_URL, FAKE_OPENAI_KEY, FAKE_REPLICATE_BASE_URL, FAKE_REPLICATE_TOKEN, FAKE_WORKERS_AI_HOST } from "./scenarios.ts";
import { pngInput } from "./adapter-kit.ts";

// The fake providers hold every request to the published schemas kept in
// test/fixtures/provider-schemas/ (Cloudflare's model JSON, Replicate's model input schemas,
// OpenAI's Images API parameters): a field the provider does not document is refused, as is a
// value outside what the schema allows. Requests sent straight to the fakes, as an adapter would.

const workersAi = (model: string, inputs: unknown) =>
  fetch(`https://${FAKE_WORKERS_AI_HOST}/client/v4/accounts/${FAKE_CLOUDFLARE_ACCOUNT}/ai/run/${model}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${FAKE_CLOUDFLARE_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(inputs),
  });

const replicate = (model: string, input: unknown) =>
  fetch(`${FAKE_REPLICATE_BASE_URL}/v1/models/${model}/predictions`, {
    method: "POST",
    headers: { Authorization: `Bearer ${FAKE_REPLICATE_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ input }),
  });

async function errorText(response: Response): Promise<string> {
  return JSON.stringify(await response.json());
}

describe("Workers AI (Cloudflare's model JSON)", () => {
  it("FLUX.1 [schnell] takes prompt and steps only: seed is refused, as additionalProperties: false says", async () => {
    expect((await workersAi("@cf/black-forest-labs/flux-1-schnell", { prompt: "a fox", steps: 4 })).status).toBe(200);
    const seeded = await workersAi("@cf/black-forest-labs/flux-1-schnell", { prompt: "a fox", steps: 4, seed: 7 });
    expect(seeded.status).toBe(400);
    expect(await errorText(seeded)).toContain("additional property 'seed' is not allowed");
    expect((await workersAi("@cf/black-forest-labs/flux-1-schnell", { prompt: "a fox", steps: 9 })).status).toBe(400);
  });

  it("Stable Diffusion img2img and Llama Guard 3 refuse a field their schema does not list", async () => {
    const sd = await workersAi("@cf/runwayml/stable-diffusion-v1-5-img2img", { prompt: "x", width: 512, height: 512, image: [1, 2, 3], style: "oil" });
    expect(await errorText(sd)).toContain("'style'");
    expect(sd.status).toBe(400);
    const guard = await workersAi("@cf/meta/llama-guard-3-8b", { messages: [{ role: "user", content: "hello" }], top_p: 0.5 });
    expect(guard.status).toBe(400);
    expect((await workersAi("@cf/meta/llama-guard-3-8b", { messages: [{ role: "user", content: "hello" }], temperature: 0, max_tokens: 64 })).status).toBe(200);
  });

  it("FLUX.2 takes multipart only, as its schema's required `multipart` says", async () => {
    const json = await workersAi("@cf/black-forest-labs/flux-2-klein-4b", { prompt: "x" });
    expect(json.status).toBe(400);
    expect(await errorText(json)).toContain("multipart");
  });
});

describe("Replicate (each model's input schema)", () => {
  it("refuses an undeclared input, a value outside an enum and a number past its maximum", async () => {
    const unknown = await replicate("black-forest-labs/flux-2-pro", { prompt: "x", guidance: 3 });
    expect(unknown.status).toBe(422);
    expect(await errorText(unknown)).toContain("Additional property guidance is not allowed");
    expect((await replicate("black-forest-labs/flux-2-pro", { prompt: "x", aspect_ratio: "7:3" })).status).toBe(422);
    expect((await replicate("black-forest-labs/flux-1.1-pro", { prompt: "x", aspect_ratio: "custom", width: 2048, height: 512 })).status).toBe(422);
    expect((await replicate("black-forest-labs/flux-2-pro", { prompt: "x", aspect_ratio: "16:9" })).status).toBe(201);
  });
});

describe("OpenAI (the Images API parameters)", () => {
  const post = (endpoint: string, body: BodyInit, json: boolean) =>
    fetch(`${FAKE_OPENAI_BASE_URL}/images/${endpoint}`, { method: "POST", headers: { Authorization: `Bearer ${FAKE_OPENAI_KEY}`, ...(json ? { "Content-Type": "application/json" } : {}) }, body });

  it("refuses an unknown parameter and an out-of-range value on generations", async () => {
    const unknown = await post("generations", JSON.stringify({ model: "gpt-image-2", prompt: "x", seed: 4 }), true);
    expect(unknown.status).toBe(400);
    expect(await errorText(unknown)).toContain("Unknown parameter: 'seed'");
    expect((await post("generations", JSON.stringify({ model: "gpt-image-2", prompt: "x", quality: "ultra" }), true)).status).toBe(400);
    expect((await post("generations", JSON.stringify({ model: "gpt-image-2", prompt: "x", size: "1024x1024" }), true)).status).toBe(200);
  });

  it("edits take PNG, WebP and JPEG files only, and the bytes must be what the type says", async () => {
    const form = (type: string, bytes: Uint8Array) => {
      const body = new FormData();
      body.append("model", "gpt-image-2");
      body.append("prompt", "x");
      body.append("image", new Blob([bytes], { type }), "input");
      return body;
    };
    const png = (await pngInput(8, 8)).bytes;
    expect((await post("edits", form("image/png", png), false)).status).toBe(200);
    expect((await post("edits", form("image/gif", new TextEncoder().encode("GIF89a....")), false)).status).toBe(400);
    expect((await post("edits", form("image/jpeg", png), false)).status).toBe(400);
  });

  it("JSON edits take images as { image_url } references, for GPT Image models only", async () => {
    const png = (await pngInput(8, 8)).bytes;
    const dataUrl = `data:image/png;base64,${btoa(String.fromCharCode(...png))}`;
    const edit = (body: Record<string, unknown>) => post("edits", JSON.stringify({ model: "gpt-image-2", prompt: "x", ...body }), true);
    expect((await edit({ images: [{ image_url: dataUrl }, { image_url: "https://pixelgate.test/files/inputs/a.png" }] })).status).toBe(200);
    expect((await edit({ images: [] })).status).toBe(400); // at least one
    expect((await edit({ images: [{ image_url: dataUrl, extra: 1 }] })).status).toBe(400); // a reference has image_url or file_id only
    expect(await errorText(await edit({ images: [{ image_url: dataUrl }], image: "x" }))).toContain("Unknown parameter: 'image'");
    expect((await edit({ images: [{ image_url: "data:image/png;base64,R0lGODlh" }] })).status).toBe(400); // the bytes are not a PNG
    expect((await edit({ images: [{ image_url: "ftp://example.com/a.png" }] })).status).toBe(400);
    expect(await errorText(await post("edits", JSON.stringify({ model: "dall-e-2", prompt: "x", images: [{ image_url: dataUrl }] }), true))).toContain("GPT image models only");
  });
});

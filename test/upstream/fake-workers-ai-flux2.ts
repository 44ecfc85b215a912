import { encodeFakePng, pngSize, seedOf } from "./png.ts";
import { sendJson, type FakeExchange } from "./http-kit.ts";
import { boundaryOf, parseMultipart, type FormPart } from "./multipart.ts";
import type { FakeRequestRecord } from "./scenarios.ts";

// FLUX.2 on the Workers AI REST API, as Cloudflare documents it for @cf/black-forest-labs/
// flux-2-dev, flux-2-klein-4b and flux-2-klein-9b: multipart form data only ("even if you just
// have a prompt"); `prompt` required; `width`/`height` 256..1920; `seed`; `steps` and `guidance`
// on [dev] only ([klein] has a fixed 4-step inference that cannot be adjusted); up to 4 binary
// input images `input_image_0..3`, 512x512 per input image. It answers { image: base64 } in the
// API envelope. A model id containing "http-500" fails as the platform's 500 does, after the
// request was checked.

const FIELDS = new Set(["prompt", "width", "height", "seed", "steps", "guidance"]);
const IMAGE_FIELD = /^input_image_([0-9]+)$/;
const MAX_IMAGES = 4;
const MAX_INPUT_SIDE = 512;

type Failure = (status: number, code: number, message: string) => void;

export function serveFlux2(x: FakeExchange, model: string, fail: Failure): void {
  const boundary = boundaryOf(x.req.headers["content-type"]);
  if (!boundary) return fail(400, 5006, "Error: this model takes multipart form data inputs (Content-Type: multipart/form-data)");
  let parts: FormPart[];
  try {
    parts = parseMultipart(x.body, boundary);
  } catch (error) {
    return fail(400, 5006, `Error: malformed multipart body: ${(error as Error).message}`);
  }
  const fields = new Map<string, string>();
  const images: { index: number; width: number; height: number }[] = [];
  for (const part of parts) {
    const image = IMAGE_FIELD.exec(part.name);
    if (image) {
      const index = Number(image[1]);
      if (index >= MAX_IMAGES) return fail(400, 5006, `Error: at most ${MAX_IMAGES} input images (input_image_0..input_image_3), got ${part.name}`);
      const size = pngSize(part.data) ?? jpegLike(part.data);
      if (!size) return fail(400, 5006, `Error: ${part.name} is not a PNG or JPEG image`);
      if (size.width > MAX_INPUT_SIDE || size.height > MAX_INPUT_SIDE) return fail(400, 5006, `Error: ${part.name} is ${size.width}x${size.height}; input images are limited to 512x512`);
      images.push({ index, ...size });
      continue;
    }
    if (!FIELDS.has(part.name)) return fail(400, 5006, `Error: additional property '${part.name}' is not allowed`);
    if (part.filename !== undefined) return fail(400, 5006, `Error: ${part.name} must be a text field`);
    fields.set(part.name, part.data.toString("utf8"));
  }
  const prompt = fields.get("prompt");
  if (!prompt) return fail(400, 5006, "Error: required properties at '/' are 'prompt'");
  const klein = model.includes("klein");
  if (klein && (fields.has("steps") || fields.has("guidance"))) return fail(400, 5006, "Error: FLUX.2 [klein] has a fixed 4-step inference; steps cannot be adjusted");
  const integer = (name: string, min: number, max: number, fallback: number): number | null => {
    const text = fields.get(name);
    if (text === undefined) return fallback;
    const value = Number(text);
    return /^[0-9]+$/.test(text) && value >= min && value <= max ? value : null;
  };
  const width = integer("width", 256, 1920, 1024);
  const height = integer("height", 256, 1920, 768);
  if (width === null || height === null) return fail(400, 5006, "Error: width and height must be integers from 256 to 1920");
  const indices = images.map((image) => image.index).sort();
  if (indices.some((index, position) => index !== position)) return fail(400, 5006, "Error: input images must be numbered from input_image_0 without gaps");
  if (model.includes("http-500")) return fail(500, 3043, "Internal server error");

  const record: FakeRequestRecord = {
    provider: "workers-ai",
    endpoint: "ai/run multipart",
    model: `@cf/${model}`,
    prompt,
    imageCount: images.length,
    keys: parts.map((part) => part.name).sort(),
    size: `${width}x${height}`,
    seed: fields.has("seed") ? Number(fields.get("seed")) : undefined,
    steps: fields.has("steps") ? Number(fields.get("steps")) : undefined,
    inputSizes: images.sort((a, b) => a.index - b.index).map((image) => `${image.width}x${image.height}`),
  };
  const png = encodeFakePng({ width, height, seed: seedOf(prompt), record });
  sendJson(x.res, 200, { result: { image: png.toString("base64") }, success: true, errors: [], messages: [] });
}

/** A JPEG's size from its first SOF marker, or null. */
function jpegLike(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  for (let offset = 2; offset + 9 < bytes.length; ) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1]!;
    const length = bytes.readUInt16BE(offset + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    }
    offset += 2 + length;
  }
  return null;
}

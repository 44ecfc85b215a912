// A large inline image is decoded where it lies in the request body and the JSON keeps only a
// token (src/images/inline-body.ts). Checked directly and through /v1/compress: the decoded
// bytes, the fallbacks to the ordinary path, idempotent replays that compare bodies.

import { describe, expect, it } from "vitest";
import { encodeImage } from "../../src/codecs/index.ts";
import { INLINE_SPLICE_MIN_CHARS, INLINE_TOKEN_PREFIX, spliceInlineImage } from "../../src/images/inline-body.ts";
import { image } from "../codecs/support";
import { newAccount } from "../support/fixtures";
import { prng } from "../support/prng";
import { balanceOf, base64, bytesOfDataUri, decodeAny, expectReplayOf, postTool } from "../support/tool-calls";

/** A noisy PNG well past the splice threshold once in base64. */
async function largePng(): Promise<Uint8Array> {
  const random = prng(5);
  const png = await encodeImage(image(160, 120, () => [random() * 255, random() * 255, random() * 255, 255]), "png");
  expect(png.length * (4 / 3)).toBeGreaterThan(INLINE_SPLICE_MIN_CHARS);
  return png;
}

const bodyBytes = (json: string) => new TextEncoder().encode(json);
const named = (name: string) => () => Promise.resolve(name);

describe("spliceInlineImage", () => {
  it("decodes a top-level data URI in place and leaves a token in small JSON", async () => {
    const png = await largePng();
    const spliced = await spliceInlineImage(bodyBytes(`{ "quality": 50, "image": "data:image/png;base64,${base64(png)}", "targetFormat": "jpeg" }`), named("t1"));
    expect(spliced.image?.upload).toEqual({ bytes: png, declaredType: "image/png", source: "data-uri" });
    expect(JSON.parse(spliced.text)).toEqual({ quality: 50, image: `${INLINE_TOKEN_PREFIX}t1`, targetFormat: "jpeg" });
  });

  it("takes bare base64 under imageBase64 too, after nested values it skips", async () => {
    const png = await largePng();
    const json = `{"meta":{"image":"not this one","list":[1,"]}",{"x":"\\""}]},"imageBase64":"${base64(png)}"}`;
    const spliced = await spliceInlineImage(bodyBytes(json), named("t2"));
    expect(spliced.image?.upload).toEqual({ bytes: png, declaredType: null, source: "base64" });
    expect(JSON.parse(spliced.text).meta).toEqual({ image: "not this one", list: [1, "]}", { x: '"' }] });
  });

  it("leaves the body as it is when the string is short, escaped, malformed or a URL", async () => {
    const text = base64(await largePng());
    const cases = [
      `{"image":"data:image/png;base64,AAAA"}`,
      `{"image":"data:image/png;base64,${text.replace("/", "\\/")}"}`,
      `{"image":"data:image/png;base64,${text.slice(0, 1000)}!${text.slice(1000)}"}`,
      `{"image":"https://images.example/${"a".repeat(INLINE_SPLICE_MIN_CHARS)}"}`,
      `{"image":"data:text/plain;base64,${text}"}`,
      `["image", "${text}"]`,
    ];
    for (const json of cases) {
      const spliced = await spliceInlineImage(bodyBytes(json), named("never"));
      expect(spliced.image, json.slice(0, 40)).toBeUndefined();
      expect(spliced.text).toBe(json);
    }
  });
});

describe("a large inline image through /v1/compress", () => {
  it("compresses it, and a malformed one still answers invalid_image for free", async () => {
    const account = await newAccount({ credits: 5 });
    const png = await largePng();
    const ok = await postTool("/v1/compress", account.key, { image: `data:image/png;base64,${base64(png)}`, targetFormat: "webp" });
    expect(ok.status).toBe(200);
    const result = ((await ok.json()) as { result: { image: string; originalSize: string } }).result;
    expect(result.originalSize).toBe(`${(png.length / 1024).toFixed(2)} KB`);
    const decoded = await decodeAny(bytesOfDataUri(result.image).bytes);
    expect([decoded.format, decoded.image.width, decoded.image.height]).toEqual(["webp", 160, 120]);
    const text = base64(png);
    const bad = await postTool("/v1/compress", account.key, { image: `data:image/png;base64,${text.slice(0, 500)}*${text.slice(500)}` });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_image");
    expect(await balanceOf(account.id)).toBe(4);
  });

  it("an Idempotency-Key replay matches the same image and refuses a different one", async () => {
    const account = await newAccount({ credits: 5 });
    const png = await largePng();
    const body = { image: `data:image/png;base64,${base64(png)}` };
    const first = await postTool("/v1/compress", account.key, body, { "Idempotency-Key": "inline-1" });
    const again = await postTool("/v1/compress", account.key, body, { "Idempotency-Key": "inline-1" });
    expect([first.status, again.status]).toEqual([200, 200]);
    await expectReplayOf(again, await first.text());
    const changed = png.slice();
    changed[changed.length - 20]! ^= 1;
    const other = await postTool("/v1/compress", account.key, { image: `data:image/png;base64,${base64(changed)}` }, { "Idempotency-Key": "inline-1" });
    expect(other.status).toBe(422);
    expect(await balanceOf(account.id)).toBe(4);
  });
});

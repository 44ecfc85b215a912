import { describe, expect, it } from "vitest";
import { loadImageBytes, MAX_INPUT_IMAGE_BYTES, pickImageField } from "../../src/images/input";
import { FAKE_PNG } from "./fake-image-host";
import { countingFetcher, expectRefusal, toBase64, toUrlSafe } from "./helpers";

// Inline input images: base64 data URIs and bare base64,
// in both alphabets, with the 20 MB limit judged before decoding.

/** Every byte value, so each base64 character (including + / and - _) is exercised. */
const ALL_BYTES = Uint8Array.from({ length: 256 * 3 + 2 }, (_, i) => (i * 7 + (i >> 8)) & 0xff);
const STANDARD = toBase64(ALL_BYTES);
const param = "image";

/** Base64 chars that decode to exactly `bytes` zero bytes (the last quad may be partial). */
function zeroBase64Chars(bytes: number): number {
  return Math.ceil((bytes * 4) / 3);
}

describe("data URI", () => {
  it("decodes a base64 data URI and reports its declared type", async () => {
    const loaded = await loadImageBytes(`data:image/png;base64,${toBase64(FAKE_PNG)}`, { param });
    expect(loaded).toEqual({ bytes: FAKE_PNG, source: "data-uri", declaredType: "image/png" });
  });

  it("accepts parameters before ;base64, any letter case and surrounding whitespace", async () => {
    const loaded = await loadImageBytes(`  DATA:Image/JPEG;name=photo.jpg;charset=binary;BASE64,${STANDARD}\n`, { param });
    expect(loaded.bytes).toEqual(ALL_BYTES);
    expect(loaded.declaredType).toBe("image/jpeg");
  });

  it("lets SVG through: refusing it is the sniffer's job", async () => {
    const svg = new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>");
    const loaded = await loadImageBytes(`data:image/svg+xml;base64,${toBase64(svg)}`, { param });
    expect(loaded).toMatchObject({ bytes: svg, declaredType: "image/svg+xml" });
  });

  it("treats a data URI with no media type like bare base64 (declared type null)", async () => {
    const loaded = await loadImageBytes(`data:;base64,${STANDARD}`, { param });
    expect(loaded).toEqual({ bytes: ALL_BYTES, source: "data-uri", declaredType: null });
  });

  it("decodes a URL-safe, unpadded, line-wrapped payload too", async () => {
    const wrapped = toUrlSafe(STANDARD).replace(/(.{60})/g, "$1\r\n");
    expect((await loadImageBytes(`data:image/png;base64,${wrapped}`, { param })).bytes).toEqual(ALL_BYTES);
  });

  it.each([
    ["text/plain", "data:text/plain;base64,aGVsbG8="],
    ["application/octet-stream", `data:application/octet-stream;base64,${STANDARD}`],
    ["text/html without base64", "data:text/html,<script>alert(1)</script>"],
  ])("refuses a non-image data URI (%s) as unsupported_image_format", async (_name, uri) => {
    await expectRefusal(loadImageBytes(uri, { param }), "unsupported_image_format", param);
  });

  it.each([
    ["percent-encoded instead of base64", "data:image/png,%89PNG%0D%0A"],
    ["no comma", "data:image/png;base64"],
    ["a malformed media type", `data:image;base64,${STANDARD}`],
  ])("refuses a data URI with %s as invalid_parameter", async (_name, uri) => {
    await expectRefusal(loadImageBytes(uri, { param }), "invalid_parameter", param);
  });

  it("refuses an empty payload as invalid_image", async () => {
    await expectRefusal(loadImageBytes("data:image/png;base64,", { param }), "invalid_image", param);
    await expectRefusal(loadImageBytes("data:image/png;base64,  \n ", { param }), "invalid_image", param);
  });

  it("refuses a malformed payload as invalid_image", async () => {
    const error = await expectRefusal(loadImageBytes("data:image/png;base64,iVBOR$w0K", { param }), "invalid_image", param);
    expect(error.message).toMatch(/base64/);
  });

  it("refuses a data URI over 20 MB as image_too_large", async () => {
    const uri = `data:image/png;base64,${"A".repeat(zeroBase64Chars(MAX_INPUT_IMAGE_BYTES + 1))}`;
    await expectRefusal(loadImageBytes(uri, { param }), "image_too_large", param);
  });

  it("never touches the network", async () => {
    const { fetcher, calls } = countingFetcher();
    await loadImageBytes(`data:image/png;base64,${STANDARD}`, { param, fetcher });
    expect(calls).toEqual([]);
  });
});

describe("bare base64", () => {
  it("decodes standard padded base64 (source base64, no declared type)", async () => {
    expect(STANDARD).toMatch(/\+/);
    expect(STANDARD).toMatch(/\//);
    expect(await loadImageBytes(STANDARD, { param })).toEqual({ bytes: ALL_BYTES, source: "base64", declaredType: null });
  });

  it("decodes the URL-safe alphabet without padding", async () => {
    const urlSafe = toUrlSafe(STANDARD);
    expect(urlSafe).toMatch(/[-_]/);
    expect(urlSafe).not.toMatch(/=/);
    expect((await loadImageBytes(urlSafe, { param })).bytes).toEqual(ALL_BYTES);
  });

  it("tolerates MIME line breaks, spaces and tabs anywhere", async () => {
    const messy = STANDARD.replace(/(.{76})/g, "$1\r\n").replace(/(.{13})/g, "$1 \t");
    expect((await loadImageBytes(messy, { param })).bytes).toEqual(ALL_BYTES);
  });

  it.each([1, 2, 3, 4, 5])("round-trips %i byte(s), padded and unpadded", async (length) => {
    const bytes = ALL_BYTES.subarray(250, 250 + length);
    const padded = toBase64(bytes);
    expect((await loadImageBytes(padded, { param })).bytes).toEqual(bytes);
    expect((await loadImageBytes(padded.replace(/=+$/, ""), { param })).bytes).toEqual(bytes);
  });

  it.each([
    ["a character outside the alphabet", "iVBORw0K$ggo="],
    ["a non-ASCII character", "iVBORw0Kggé="],
    ["data after padding", "iVBO=Rw0K"],
    ["a dangling character", "iVBORw0Kg"],
    ["too much padding", "iVBORw0Kgg==="],
    ["padding that does not match the length", "iVBORw0Kgg="],
    ["only padding", "===="],
    ["mixed standard and URL-safe alphabets", "ab+cd_ef"],
  ])("refuses base64 with %s as invalid_image", async (_name, text) => {
    await expectRefusal(loadImageBytes(text, { param }), "invalid_image", param);
  });
});

describe("size limit (20 MB decoded)", () => {
  it("accepts exactly 20 MB", async () => {
    const loaded = await loadImageBytes("A".repeat(zeroBase64Chars(MAX_INPUT_IMAGE_BYTES)), { param });
    expect(loaded.bytes.length).toBe(MAX_INPUT_IMAGE_BYTES);
  });

  it("refuses one byte more as image_too_large", async () => {
    await expectRefusal(loadImageBytes("A".repeat(zeroBase64Chars(MAX_INPUT_IMAGE_BYTES + 1)), { param }), "image_too_large", param);
  });

  it("judges the size before decoding: an oversized payload that is also malformed is too large, not invalid", async () => {
    // Decoding first would find the '$' and answer invalid_image.
    const text = "A".repeat(zeroBase64Chars(MAX_INPUT_IMAGE_BYTES + 3)) + "$";
    await expectRefusal(loadImageBytes(text, { param }), "image_too_large", param);
  });

  it("does not count whitespace: 20 MB wrapped in line breaks is still accepted", async () => {
    const chars = zeroBase64Chars(MAX_INPUT_IMAGE_BYTES);
    const line = "A".repeat(76);
    const wrapped = Array.from({ length: Math.floor(chars / 76) }, () => line).join("\r\n") + "\r\n" + "A".repeat(chars % 76);
    expect((wrapped.length * 3) / 4).toBeGreaterThan(MAX_INPUT_IMAGE_BYTES); // a naive length check would refuse it
    expect((await loadImageBytes(wrapped, { param })).bytes.length).toBe(MAX_INPUT_IMAGE_BYTES);
  });
});

describe("value shape", () => {
  it.each([
    ["a number", 42],
    ["an object", { url: "https://images.pixelgate.test/photo.png" }],
    ["an array", ["https://images.pixelgate.test/photo.png"]],
    ["a boolean", true],
  ])("refuses %s as invalid_parameter", async (_name, value) => {
    await expectRefusal(loadImageBytes(value, { param }), "invalid_parameter", param);
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["an empty string", ""],
    ["whitespace", "  \n\t "],
  ])("refuses %s as missing_parameter", async (_name, value) => {
    await expectRefusal(loadImageBytes(value, { param }), "missing_parameter", param);
  });

  it("names the field it was given in every error", async () => {
    await expectRefusal(loadImageBytes(7, { param: "referenceImages[2]" }), "invalid_parameter", "referenceImages[2]");
    await expectRefusal(loadImageBytes("@@@", { param: "imageBase64" }), "invalid_image", "imageBase64");
  });
});

describe("pickImageField", () => {
  it("prefers image when both are sent", () => {
    expect(pickImageField({ image: "a", imageBase64: "b" })).toEqual({ value: "a", param: "image" });
  });

  it("falls back to the imageBase64 alias, naming it as the field", () => {
    expect(pickImageField({ imageBase64: "b" })).toEqual({ value: "b", param: "imageBase64" });
    expect(pickImageField({ image: null, imageBase64: "b" })).toEqual({ value: "b", param: "imageBase64" });
  });

  it("keeps a sent but unusable image (the loader judges it), rather than silently using the alias", () => {
    expect(pickImageField({ image: "", imageBase64: "b" })).toEqual({ value: "", param: "image" });
    expect(pickImageField({ image: 5 })).toEqual({ value: 5, param: "image" });
  });

  it("refuses neither as missing_parameter on image", async () => {
    await expectRefusal(Promise.resolve().then(() => pickImageField({})), "missing_parameter", "image");
    await expectRefusal(Promise.resolve().then(() => pickImageField({ image: null, imageBase64: null })), "missing_parameter", "image");
  });
});

import { describe, expect, it } from "vitest";
import { decodeImage, readHeader } from "../../src/codecs/index.ts";
import { Base64Bytes, dataUri } from "../../src/http/base64-bytes";
import { answerBody, jsonBytes } from "../../src/http/json-answer";
import { image } from "../codecs/support.ts";
import { newAccount } from "../support/fixtures";
import { balanceOf, bytesOfDataUri, dataUriOf, expectReplayOf, postTool } from "../support/tool-calls";

// The streamed answer must be exactly the JSON c.json would have sent, whatever the long
// strings hold and wherever a slice ends.

async function textOf(stream: ReadableStream<Uint8Array>): Promise<{ text: string; chunks: number; largest: number }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let chunks = 0;
  let largest = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks += 1;
    largest = Math.max(largest, value.byteLength);
    text += decoder.decode(value, { stream: true });
  }
  return { text: text + decoder.decode(), chunks, largest };
}

/** A long string of `unit` repeated, `length` characters or a little more. */
function long(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length));
}

describe("jsonBytes", () => {
  it("writes a compress-shaped answer byte for byte as JSON.stringify does, the base64 in slices", async () => {
    const base64 = long("QUJD", 3 * 1024 * 1024 + 7);
    const answer = { success: true, message: "Compressed.", result: { image: `data:image/png;base64,${base64}`, originalSize: "12.00 KB", quality: "70%" } };
    const { text, chunks, largest } = await textOf(jsonBytes(answer));
    expect(text).toBe(JSON.stringify(answer));
    expect(chunks).toBeGreaterThan(10); // the long string really was sliced
    expect(largest).toBeLessThanOrEqual(256 * 1024 + 64);
  });

  it("encodes a file kept as bytes a slice at a time, to the text its toJSON gives every other serialiser", async () => {
    const file = Uint8Array.from({ length: 1_000_003 }, (_, i) => (i * 31 + (i >> 8)) & 255);
    const answer = { result: { image: dataUri(file, "image/png"), b64_json: new Base64Bytes(file), small: new Base64Bytes(file.subarray(0, 5)) } };
    const { text, chunks, largest } = await textOf(jsonBytes(answer));
    expect(text).toBe(JSON.stringify(answer));
    const parsed = JSON.parse(text) as { result: { image: string; b64_json: string; small: string } };
    expect(parsed.result.image).toBe(`data:image/png;base64,${Buffer.from(file).toString("base64")}`);
    expect(parsed.result.small).toBe(Buffer.from(file.subarray(0, 5)).toString("base64"));
    expect(chunks).toBeGreaterThan(10);
    expect(largest).toBeLessThanOrEqual(256 * 1024 + 64); // never the whole base64 at once
  });

  it("encodes a file in pieces of any sizes as the base64 of the whole, without joining them", async () => {
    const whole = Uint8Array.from({ length: 700_001 }, (_, i) => (i * 131 + (i >> 5)) & 255);
    const cuts = [0, 1, 3, 262_145, 262_146, 458_754, 458_755, 655_363, 700_001];
    const pieces = cuts.slice(1).map((end, k) => whole.subarray(cuts[k], end));
    const file = new Base64Bytes(pieces, "data:image/png;base64,");
    const expected = `data:image/png;base64,${Buffer.from(whole).toString("base64")}`;
    expect(file.byteLength).toBe(whole.length);
    expect(file.length).toBe(expected.length);
    expect(file.text()).toBe(expected);
    expect(file.head(40)).toBe(expected.slice(0, 40));
    expect(file.bytes).toEqual(whole);
    const { text } = await textOf(jsonBytes({ image: file }));
    expect(text).toBe(JSON.stringify({ image: expected }));
    expect(answerBody({ image: file }).byteLength).toBe(text.length);
  });

  it("escapes what JSON escapes inside long strings, and never splits a surrogate pair", async () => {
    // Quotes, backslashes, control characters and astral characters (two UTF-16 units) fall on
    // every offset against the slice size, so some pair straddles a slice boundary.
    const tricky = long('a"b\\c\n\u0001😀é', 256 * 1024 * 3 + 5);
    const odd = `x${long("😀", 300 * 1024)}`;
    const answer = { results: [{ data: { b64_json: tricky, imageBase64: tricky } }, { data: { image: odd } }], short: "😀\"" };
    const { text } = await textOf(jsonBytes(answer));
    expect(text).toBe(JSON.stringify(answer));
    expect(JSON.parse(text)).toEqual(answer);
  });

  it("takes a caller's string that looks like a placeholder for what it is", async () => {
    const answer = { prompt: "\u00000", message: '"\\u00000"', image: long("Zm9v", 100_000), after: "\u00001" };
    const { text } = await textOf(jsonBytes(answer));
    expect(text).toBe(JSON.stringify(answer));
  });

  it("knows its length in bytes before writing, and writes the same bytes each time it is asked", async () => {
    const file = Uint8Array.from({ length: 300_001 }, (_, i) => (i * 7) & 255);
    const answers = [
      { result: { image: dataUri(file, "image/bmp"), note: "é😀" } },
      { results: [{ data: { svgCode: long('<path d="M0 0"/>é😀\n', 200_000) } }] },
      { success: true, message: "small" },
    ];
    for (const answer of answers) {
      const expected = JSON.stringify(answer);
      const body = answerBody(answer);
      expect(body.byteLength).toBe(new TextEncoder().encode(expected).byteLength);
      expect((await textOf(body.stream())).text).toBe(expected);
      expect((await textOf(body.stream())).text).toBe(expected);
      expect(body.text()).toBe(expected);
    }
  });

  it("writes answers without long strings in one piece", async () => {
    const answer = { success: true, list: [1, "two", null, { three: 3 }] };
    const { text, chunks } = await textOf(jsonBytes(answer));
    expect(text).toBe(JSON.stringify(answer));
    expect(chunks).toBe(1);
  });
});

describe("answers with a file inline", () => {
  it("a small one goes out as one text, of the length it declares", async () => {
    const account = await newAccount({ credits: 5 });
    const body = { image: await dataUriOf(image(16, 16, () => [40, 120, 200, 255]), "png"), targetFormat: "webp", quality: 70 };
    const answer = await postTool("/v1/compress", account.key, body);
    expect(answer.status).toBe(200);
    const { text, chunks } = await textOf(answer.body!);
    expect(chunks).toBe(1);
    expect(new TextEncoder().encode(text).byteLength).toBe(Number(answer.headers.get("Content-Length")));
    const { mime, bytes } = bytesOfDataUri((JSON.parse(text) as { result: { image: string } }).result.image);
    expect(mime).toBe("image/webp");
    expect(readHeader(bytes, "webp")).toMatchObject({ width: 16, height: 16 });
  });

  it("come whole and right, and a replay under the same Idempotency-Key is the same answer, saying it charged nothing", async () => {
    const account = await newAccount({ credits: 5 });
    // Grain that deflate cannot shrink: the PNG, and so its base64, is far over one slice.
    const grain = (x: number, y: number, k: number) => ((x * 7919 + y * 104_729 + k * 15_485_863) ^ (x * y)) & 255;
    const body = { image: await dataUriOf(image(800, 600, (x, y) => [grain(x, y, 1), grain(x, y, 2), grain(x, y, 3), 255]), "png"), targetFormat: "png", quality: 100 };
    const headers = { "Idempotency-Key": "streamed-answer-1" };
    const first = await postTool("/v1/compress", account.key, body, headers);
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toMatch(/^application\/json/);
    const length = Number(first.headers.get("Content-Length"));
    const { text } = await textOf(first.body!);
    expect(new TextEncoder().encode(text).byteLength).toBe(length);
    const answer = JSON.parse(text) as { result: { image: string; compressedSize: string } };
    const { mime, bytes } = bytesOfDataUri(answer.result.image);
    expect(mime).toBe("image/png");
    expect(readHeader(bytes, "png")).toMatchObject({ width: 800, height: 600 });
    expect(bytes.length).toBeGreaterThan(3 * 64 * 1024); // more than one slice of base64
    expect(answer.result.compressedSize).toBe(`${(bytes.length / 1024).toFixed(2)} KB`);

    await expectReplayOf(await postTool("/v1/compress", account.key, body, headers), text);
    expect(await balanceOf(account.id)).toBe(4);
  });

  it("a BMP made as it is read (stored for a replay, then sent): the client's copy, the stored one and a multicall item are the same file", async () => {
    const account = await newAccount({ credits: 5 });
    // 1500 x 1500 x 4 bytes is over one band (8 MB): the file comes from two decodes per reading.
    const body = { image: await dataUriOf(image(1500, 1500, (x, y) => [x & 255, y & 255, (x ^ y) & 255, 255]), "png"), targetFormat: "bmp" };
    const headers = { "Idempotency-Key": "streamed-bmp-1" };
    const first = await postTool("/playground/convert-format", account.key, body, headers);
    expect(first.status).toBe(200);
    const { text } = await textOf(first.body!);
    expect(new TextEncoder().encode(text).byteLength).toBe(Number(first.headers.get("Content-Length")));
    const { mime, bytes } = bytesOfDataUri((JSON.parse(text) as { result: { imageUrl: string } }).result.imageUrl);
    expect(mime).toBe("image/bmp");
    expect(bytes.length).toBe(54 + 1500 * 1500 * 3);
    const decoded = await decodeImage(bytes, readHeader(bytes, "bmp"));
    expect([...decoded.data.subarray(4 * (1500 * 1499 + 1499), 4 * (1500 * 1499 + 1500))]).toEqual([1499 & 255, 1499 & 255, 0, 255]);

    await expectReplayOf(await postTool("/playground/convert-format", account.key, body, headers), text);

    const multicall = await postTool("/playground/multicall", account.key, { requests: [{ tool: "convert_format", args: body }, { tool: "convert_format", args: body }] });
    expect(multicall.status).toBe(200);
    const items = ((await multicall.json()) as { results: { status: number; data: { result: { imageUrl: string } } }[] }).results;
    expect(items.map((item) => item.status)).toEqual([200, 200]);
    for (const item of items) expect(Buffer.from(bytesOfDataUri(item.data.result.imageUrl).bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(await balanceOf(account.id)).toBe(2);
  }, 60_000);
});

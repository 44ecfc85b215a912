import { describe, expect, it } from "vitest";
import { replayOf, REPLAY_EXTRA_BYTES } from "../../src/billing/replay";
import { expectedReplay } from "../support/tool-calls";

// An Idempotency-Key replay, rewritten as it streams from R2: marked, charging nothing, its
// length known in advance, whatever the chunks it is read in.

async function replayedText(stored: string, chunkSizes: number[]): Promise<string> {
  const bytes = new TextEncoder().encode(stored);
  const chunks: Uint8Array[] = [];
  for (let at = 0, index = 0; at < bytes.length; index++) {
    const size = chunkSizes[index % chunkSizes.length]!;
    chunks.push(bytes.slice(at, at + size));
    at += size;
  }
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const out = new Uint8Array(await new Response(replayOf(source)).arrayBuffer());
  expect(out.byteLength).toBe(bytes.byteLength + REPLAY_EXTRA_BYTES);
  return new TextDecoder().decode(out);
}

describe("replayOf", () => {
  const stored = JSON.stringify({
    success: true,
    message: 'Said "deductedCredits":99 in a string, and ünïcödé',
    deductedCredits: 1234,
    userCredits: 7,
    result: { image: "data:image/png;base64,iVBORw0KGgo", deductedCredits: 1234, userCredits: 7 },
    results: [{ data: { deductedCredits: 5 } }, { data: { deductedCredits: 0 } }],
  });

  it("zeroes every deductedCredits, keeps strings and the length, in any chunking", async () => {
    for (const sizes of [[stored.length + 10], [1], [3, 7], [17, 2, 5], [30]]) {
      const text = await replayedText(stored, sizes);
      expect(JSON.parse(text), String(sizes)).toEqual(expectedReplay(stored));
      expect(text).toContain('Said \\"deductedCredits\\":99 in a string');
    }
  });
});

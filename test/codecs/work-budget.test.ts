// A call's work budget (src/codecs/fuel.ts): the metered codecs stop when it is spent, the call
// fails with a clear 400, and the isolate goes on serving; every kind of input, to every target,
// runs well within the budget the tools give it (its pixels at its route's rate, work-steps.ts).

import { describe, expect, it } from "vitest";
import { encodeImage, IMAGE_FORMATS, readHeader, recodeImage, sniffFormat, type ImageFormat } from "../../src/codecs/index.ts";
import { WorkBudget } from "../../src/codecs/fuel.ts";
import { GRID_HEIC } from "../fixtures/heic.ts";
import { bytesOfBase64 } from "../support/tool-calls.ts";
import { gradient, gradientWithAlpha, pixelgateError } from "./support.ts";

/** compress's call, and the budget the tool runs it on (tools/codec-work.ts codecWorkBudget). */
async function recode(bytes: Uint8Array, target: ImageFormat) {
  const format = sniffFormat(bytes);
  if (format === null || format === "svg") throw new Error("not a raster");
  const header = readHeader(bytes, format);
  return { budget: () => WorkBudget.forWork("codec", header.width * header.height, `${format}>${target}`), run: () => recodeImage(bytes, header, target) };
}

describe("a call's work budget", () => {
  it("stops a codec whose call has spent it: 400 image_too_large, and the isolate serves the next call", async () => {
    const jpeg = await encodeImage(gradient(640, 480), "jpeg", { quality: 90 });
    const { budget, run } = await recode(jpeg, "webp");
    const small = new WorkBudget(100_000n);
    const error = await pixelgateError(small.run(run));
    expect(error.code).toBe("image_too_large");
    expect(error.message).toMatch(/more work/);
    expect(small.exhausted).toBe(true);

    const enough = budget();
    const webp = await enough.run(run);
    expect(sniffFormat(webp.bytes)).toBe("webp");
    expect(enough.spent).toBeGreaterThan(100_000n);
    expect(enough.exhausted).toBe(false);
  });

  it("counts the same work the same way (deterministic), whatever else runs beside it", async () => {
    const png = await encodeImage(gradientWithAlpha(300, 200), "png");
    const { budget, run } = await recode(png, "gif");
    const alone = budget();
    await alone.run(run);
    // The same call twice at once, beside a call whose budget runs out: each draws on its own.
    const [a, b, starved] = [budget(), budget(), new WorkBudget(1_000n)];
    const outcomes = await Promise.allSettled([a.run(run), b.run(run), starved.run(run)]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect(a.spent).toBe(alone.spent);
    expect(b.spent).toBe(alone.spent);
  });

  it("a failure that is not the budget's stays what it was", async () => {
    const jpeg = await encodeImage(gradient(64, 48), "jpeg");
    const cut = jpeg.slice(0, 300);
    const budget = WorkBudget.forWork("codec", 64 * 48);
    const error = await pixelgateError(budget.run(async () => (await recode(cut, "png")).run()));
    expect(error.code).toBe("invalid_image");
    expect(budget.exhausted).toBe(false);
  });

  // Half, not 1/margin: these are not the bench's inputs (a gradient, alpha into AVIF, a tiny
  // HEIC grid), and a variant the bench did not measure may cost up to twice its route's rate.
  describe("every input to every target spends at most half its budget", async () => {
    const picture = gradient(640, 480);
    const inputs: [string, Uint8Array][] = [
      ["jpeg", await encodeImage(picture, "jpeg", { quality: 90 })],
      ["png", await encodeImage(picture, "png")],
      ["png with alpha", await encodeImage(gradientWithAlpha(640, 480), "png")],
      ["webp", await encodeImage(picture, "webp", { quality: 80 })],
      ["avif", await encodeImage(gradient(320, 240), "avif", { quality: 50 })],
      ["gif", await encodeImage(picture, "gif")],
      ["bmp", await encodeImage(picture, "bmp")],
      ["tiff", await encodeImage(picture, "tiff")],
      ["heic grid", bytesOfBase64(GRID_HEIC)],
    ];
    for (const [name, bytes] of inputs) {
      for (const target of IMAGE_FORMATS) {
        it(`${name} to ${target}`, async () => {
          const call = await recode(bytes, target);
          const budget = call.budget();
          await budget.run(call.run);
          expect(budget.spent * 2n).toBeLessThanOrEqual(budget.steps);
        });
      }
    }
  });
});

import { z } from "@hono/zod-openapi";
import { readOrientation, runRecode, stripMetadata, type Permit, type RecodedImage, type RecodePlan } from "../codecs";
import { admitCodecWork, answerHolding, CODEC_TOOL_ERRORS, codecWorkBudget, holdingPermit } from "./codec-work";
import { fileBytesOf, type FileBytes } from "../codecs/file-pieces";
import { FORMAT_INFO } from "../codecs/formats";
import { base64Field, dataUri } from "../http/base64-bytes";
import { codecSourceOf, imageFields, kilobytes, latencySince, type CodecSource } from "./source-image";
import { requestBody } from "./request-body";
import { resizeFields, resizeRequestOf } from "./resize-fields";
import { defineTool } from "./types";

// compress_image: re-encode at a chosen quality and report the saving. The result is
// returned inline as a data URI; no hosted copy is kept.

export const COMPRESS_QUALITY = { min: 1, max: 100, default: 70 } as const;
const COMPRESS_TARGETS = ["webp", "jpeg", "png"] as const;
type CompressTarget = (typeof COMPRESS_TARGETS)[number];

function clampQuality(quality: number): number {
  return Math.min(COMPRESS_QUALITY.max, Math.max(COMPRESS_QUALITY.min, Math.round(quality)));
}

const CompressInput = requestBody(
  "CompressRequest",
  z.object({
    image: z.string().optional().openapi(imageFields),
    imageBase64: z.string().optional().openapi({ description: "Alias of `image`." }),
    quality: z
      .number()
      .finite()
      .default(COMPRESS_QUALITY.default)
      .transform(clampQuality)
      .openapi({ description: "1 to 100, default 70; values outside are clamped. For PNG, 100 is lossless and lower values reduce the palette." }),
    targetFormat: z
      .preprocess((value) => (typeof value === "string" ? value.trim().toLowerCase() : value), z.enum(COMPRESS_TARGETS))
      .default("webp")
      .openapi({ description: "webp (default), jpeg or png." }),
    ...resizeFields,
  }),
);

type CompressInput = z.infer<typeof CompressInput>;
interface Prepared {
  source: CodecSource;
  quality: number;
  target: CompressTarget;
  plan: RecodePlan;
  permit: Permit;
}

const CompressResult = z
  .object({
    image: base64Field("The compressed image as a base64 data URI."),
    originalSize: z.string().openapi({ example: "512.00 KB" }),
    compressedSize: z.string().openapi({ example: "96.25 KB" }),
    savedPercentage: z.string().openapi({
      example: "81.2%",
      description:
        "`0%` when re-encoding would have grown a file of the same format and the input came back (metadata removed); negative only when a different target format, or a resized picture, came out larger.",
    }),
    quality: z.string().openapi({ example: "70%" }),
    format: z.string().openapi({ example: "WEBP" }),
    latency: z.string(),
    cost: z.string(),
  })
  .openapi("CompressResult");

/**
 * Compress never answers with a larger file in the input's own format: when re-encoding grew
 * it (a WebP already at low quality, sent at quality 90), the input itself is the answer, with
 * its metadata removed. Across formats (AVIF to WebP) the target is what was asked for, so the
 * encoded file stands and the message says it grew. Like is compared with like: a resized
 * answer is never replaced by the input, which is another picture size.
 */
function smallestOf(source: CodecSource, encoded: RecodedImage, target: CompressTarget, quality: number, resized: boolean): { file: FileBytes; message: string } {
  const label = FORMAT_INFO[target].label;
  const sizes = `${kilobytes(source.bytes.length)} to ${kilobytes(encoded.length)}`;
  if (resized) return { file: encoded, message: `Resized to ${encoded.width}x${encoded.height} and compressed to ${label} at quality ${quality}: ${sizes}.` };
  if (encoded.length <= source.bytes.length) return { file: encoded, message: `Compressed to ${label} at quality ${quality}: ${sizes}.` };
  const stripped = source.format === target ? stripMetadata(source.bytes, source.format, readOrientation(source.bytes, source.format)) : null;
  if (stripped && stripped.length <= source.bytes.length) {
    return {
      file: fileBytesOf(stripped),
      message: `Re-encoding as ${label} at quality ${quality} would have made the file larger (${sizes}), so the input is returned unchanged apart from its metadata (${kilobytes(stripped.length)}).`,
    };
  }
  return { file: encoded, message: `Compressed to ${label} at quality ${quality}: ${sizes}; the ${FORMAT_INFO[source.format].label} input was smaller than this ${label}.` };
}

export const compressImage = defineTool({
  name: "compress_image",
  paths: { v1: "/v1/compress", playground: "/playground/compress" },
  summary: "Compress an image (1 credit)",
  description:
    "Re-encodes the image as WebP, JPEG or PNG at the given quality and reports the sizes. Metadata (EXIF, ICC) is removed; the orientation is applied first. Optional `width`, `height` and `fit` resize the upright picture (never enlarging).",
  errors: CODEC_TOOL_ERRORS,
  input: () => CompressInput,
  result: () => CompressResult,
  async prepare(input: CompressInput, ctx): Promise<Prepared> {
    const source = await codecSourceOf(input, ctx);
    const resize = resizeRequestOf(input);
    return { source, quality: input.quality, target: input.targetFormat, ...(await admitCodecWork(source, input.targetFormat, ctx, input.quality, resize)) };
  },
  release: ({ permit }) => permit.release(),
  price: () => 1,
  summarize: () => ({ model: "wasm-codecs", prompt: "" }),
  workBudget: ({ source, target }) => codecWorkBudget(source, target),
  run: ({ source, quality, target, plan, permit }, ctx) =>
    holdingPermit(permit, async () => {
      const recoded = await runRecode(source.bytes, plan);
      const { file, message } = smallestOf(source, recoded, target, quality, plan.resize !== null);
      const { length } = file;
      const saved = (1 - length / source.bytes.length) * 100;
      return {
        message,
        result: {
          image: answerHolding(permit, dataUri(file, FORMAT_INFO[target].mime)),
          originalSize: kilobytes(source.bytes.length),
          compressedSize: kilobytes(length),
          savedPercentage: length === source.bytes.length ? "0%" : `${saved.toFixed(1)}%`,
          quality: `${quality}%`,
          format: FORMAT_INFO[target].label,
          latency: latencySince(ctx.startedAt),
          cost: "$0.00",
        },
      };
    }),
});

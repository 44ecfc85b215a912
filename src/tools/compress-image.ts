import { z } from "@hono/zod-openapi";
import { recodeImage } from "../codecs";
import { FORMAT_INFO } from "../codecs/formats";
import { dataUri, IMAGE_INPUT_ERRORS, imageFields, kilobytes, latencySince, sourceImageOf, type SourceImage } from "./source-image";
import { defineTool } from "./types";

// compress_image (spec 4.13): re-encode at a chosen quality and report the saving. The result is
// returned inline as a data URI; no hosted copy is kept.

export const COMPRESS_QUALITY = { min: 1, max: 100, default: 70 } as const;
const COMPRESS_TARGETS = ["webp", "jpeg", "png"] as const;

function clampQuality(quality: number): number {
  return Math.min(COMPRESS_QUALITY.max, Math.max(COMPRESS_QUALITY.min, Math.round(quality)));
}

const CompressInput = z
  .object({
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
  })
  .openapi("CompressRequest");

type CompressInput = z.infer<typeof CompressInput>;
interface Prepared {
  source: SourceImage;
  quality: number;
  target: (typeof COMPRESS_TARGETS)[number];
}

const CompressResult = z
  .object({
    image: z.string().openapi({ description: "The compressed image as a base64 data URI." }),
    originalSize: z.string().openapi({ example: "512.00 KB" }),
    compressedSize: z.string().openapi({ example: "96.25 KB" }),
    savedPercentage: z.string().openapi({ example: "81.2%", description: "Negative when the result is larger." }),
    quality: z.string().openapi({ example: "70%" }),
    format: z.string().openapi({ example: "WEBP" }),
    latency: z.string(),
    cost: z.string(),
  })
  .openapi("CompressResult");

export const compressImage = defineTool({
  name: "compress_image",
  paths: { v1: "/v1/compress", playground: "/playground/compress" },
  summary: "Compress an image (1 credit)",
  description:
    "Re-encodes the image as WebP, JPEG or PNG at the given quality and reports the sizes. Metadata (EXIF, ICC) is removed; the orientation is applied first.",
  errors: IMAGE_INPUT_ERRORS,
  input: () => CompressInput,
  result: () => CompressResult,
  async prepare(input: CompressInput): Promise<Prepared> {
    return { source: await sourceImageOf(input), quality: input.quality, target: input.targetFormat };
  },
  price: () => 1,
  summarize: () => ({ model: "wasm-codecs", prompt: "" }),
  async run({ source, quality, target }, ctx) {
    const { bytes } = await recodeImage(source.bytes, { format: source.format, width: source.width, height: source.height }, target, { quality });
    const saved = (1 - bytes.length / source.bytes.length) * 100;
    return {
      message: `Compressed to ${FORMAT_INFO[target].label} at quality ${quality}: ${kilobytes(source.bytes.length)} to ${kilobytes(bytes.length)}.`,
      result: {
        image: dataUri(bytes, FORMAT_INFO[target].mime),
        originalSize: kilobytes(source.bytes.length),
        compressedSize: kilobytes(bytes.length),
        savedPercentage: `${saved.toFixed(1)}%`,
        quality: `${quality}%`,
        format: FORMAT_INFO[target].label,
        latency: latencySince(ctx.startedAt),
        cost: "$0.00",
      },
    };
  },
});

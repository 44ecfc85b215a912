import { z } from "@hono/zod-openapi";
import { assertWithinPixelLimit, recodeImage } from "../codecs";
import { FORMAT_INFO, type ImageFormat } from "../codecs/formats";
import { hostResult } from "../storage/results";
import { base64Of, dataUri, IMAGE_INPUT_ERRORS, imageFields, kilobytes, latencySince, sourceImageOf, type SourceImage } from "./source-image";
import { defineTool, type Family } from "./types";

// convert_format (spec 4.14): decode, then re-encode with fixed settings. The two families
// accept different targets and return different shapes; everything else is shared.

const TARGETS: Record<Family, readonly string[]> = {
  v1: ["png", "jpeg", "jpg", "webp", "gif", "tiff", "avif"],
  playground: ["png", "jpeg", "jpg", "webp", "gif", "bmp"],
};

function targetOf(name: string): ImageFormat {
  return name === "jpg" ? "jpeg" : (name as ImageFormat);
}

function inputSchema(family: Family) {
  const targets = TARGETS[family];
  return z
    .object({
      image: z.string().optional().openapi(imageFields),
      imageBase64: z.string().optional().openapi({ description: "Alias of `image`." }),
      targetFormat: z
        .preprocess(
          (value) => (typeof value === "string" ? value.trim().toLowerCase() : value),
          z.enum(targets as [string, ...string[]], {
            error: () => `targetFormat must be one of ${targets.join(", ")} on this path (SVG is never a target)`,
          }),
        )
        .default("png")
        .openapi({ description: `Format to write: ${targets.join(", ")}.` }),
      ...(family === "v1"
        ? { responseFormat: z.enum(["url", "b64_json"]).default("url").openapi({ description: "`b64_json` adds the bytes as base64 beside the hosted URL." }) }
        : {}),
    })
    .openapi(family === "v1" ? "ConvertFormatRequest" : "ConvertFormatPlaygroundRequest");
}

type ConvertInput = z.infer<ReturnType<typeof inputSchema>> & { responseFormat?: "url" | "b64_json" };
interface Prepared {
  source: SourceImage;
  target: ImageFormat;
  responseFormat: "url" | "b64_json";
}

const common = {
  originalFormat: z.string(),
  targetFormat: z.string(),
  mimeType: z.string(),
  latency: z.string(),
  cost: z.string(),
};

const resultSchemas = {
  v1: z
    .object({
      imageUrl: z.string().openapi({ description: "Hosted URL of the converted image." }),
      b64_json: z.string().optional(),
      imageBase64: z.string().optional(),
      width: z.number().int(),
      height: z.number().int(),
      originalSize: z.string(),
      convertedSize: z.string(),
      ...common,
    })
    .openapi("ConvertFormatResult"),
  playground: z
    .object({ imageUrl: z.string().openapi({ description: "The converted image as a data URI." }), ...common })
    .openapi("ConvertFormatPlaygroundResult"),
};

export const convertFormat = defineTool({
  name: "convert_format",
  paths: { v1: "/v1/convert-format", playground: "/playground/convert-format" },
  summary: "Convert an image to another format (1 credit)",
  description:
    "Re-encodes with fixed settings: WebP and JPEG quality 80, AVIF quality 50, TIFF JPEG-compressed, PNG lossless. PNG, WebP and AVIF keep alpha; JPEG, TIFF and BMP flatten it onto black; GIF keeps 1-bit transparency. Only the first frame of an animation is kept. EXIF, ICC profiles and the orientation tag are removed (the orientation is applied first, so the picture stays upright).",
  errors: IMAGE_INPUT_ERRORS,
  input: inputSchema,
  result: (family: Family) => resultSchemas[family],
  async prepare(input: ConvertInput): Promise<Prepared> {
    const source = await sourceImageOf(input);
    const target = targetOf(input.targetFormat);
    // Writing AVIF needs more memory than reading anything else: its own, lower limit.
    assertWithinPixelLimit(source.width, source.height, target, "targetFormat");
    return { source, target, responseFormat: input.responseFormat ?? "url" };
  },
  price: () => 1,
  summarize: () => ({ model: "wasm-codecs", prompt: "" }),
  async run({ source, target, responseFormat }, ctx) {
    const { bytes, width, height } = await recodeImage(source.bytes, { format: source.format, width: source.width, height: source.height }, target);
    const { mime, label } = FORMAT_INFO[target];
    const common = {
      originalFormat: source.format,
      targetFormat: target,
      mimeType: mime,
      latency: latencySince(ctx.startedAt),
      cost: "$0.00",
    };
    const message = `Converted ${FORMAT_INFO[source.format].label} to ${label}.`;
    if (ctx.family === "playground") return { message, result: { imageUrl: dataUri(bytes, mime), ...common } };
    const hosted = await hostResult(ctx.env.FILES, ctx.baseUrl, bytes, target);
    const base64 = responseFormat === "b64_json" ? base64Of(bytes) : undefined;
    return {
      message,
      result: {
        imageUrl: hosted.url,
        ...(base64 ? { b64_json: base64, imageBase64: base64 } : {}),
        width,
        height,
        originalSize: kilobytes(source.bytes.length),
        convertedSize: kilobytes(bytes.length),
        ...common,
      },
    };
  },
});

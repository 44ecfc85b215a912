import { z } from "@hono/zod-openapi";
import { runRecode, type Permit, type RecodePlan } from "../codecs";
import { admitCodecWork, answerHolding, CODEC_TOOL_ERRORS, codecWorkBudget, holdingPermit } from "./codec-work";
import { FORMAT_INFO, type ImageFormat } from "../codecs/formats";
import { PixelgateError } from "../errors";
import { base64Field, dataUri } from "../http/base64-bytes";
import { inlineCopy } from "./model-output";
import { hostResult } from "../storage/results";
import { codecSourceOf, imageFields, kilobytes, latencySince, type CodecSource } from "./source-image";
import { requestBody } from "./request-body";
import { resizeFields, resizeRequestOf } from "./resize-fields";
import { defineTool, type Family } from "./types";

// convert_format: decode, then re-encode with fixed settings. The two families
// accept different targets and return different shapes; everything else is shared.

const TARGETS: Record<Family, readonly string[]> = {
  v1: ["png", "jpeg", "jpg", "webp", "gif", "tiff", "avif"],
  playground: ["png", "jpeg", "jpg", "webp", "gif", "bmp"],
};

function targetOf(name: string): ImageFormat {
  return name === "jpg" ? "jpeg" : (name as ImageFormat);
}

/**
 * Without a targetFormat the image becomes PNG (the documented default), unless it already is
 * PNG: re-encoding a PNG as PNG because nothing was asked for would charge for nothing, so that
 * call is refused (free) and asks for a target. An explicit PNG-to-PNG is honoured: it strips
 * metadata and applies the orientation, which is work someone may want; so is a resized one.
 */
function defaultTargetFor(source: CodecSource, resizing: boolean): string {
  if (source.format === "png" && !resizing) {
    throw new PixelgateError("missing_parameter", "The image already is PNG: say which format to convert it to with targetFormat.", { param: "targetFormat" });
  }
  return "png";
}

function inputSchema(family: Family) {
  const targets = TARGETS[family];
  return requestBody(
    family === "v1" ? "ConvertFormatRequest" : "ConvertFormatPlaygroundRequest",
    z.object({
      image: z.string().optional().openapi(imageFields),
      imageBase64: z.string().optional().openapi({ description: "Alias of `image`." }),
      targetFormat: z
        .preprocess(
          (value) => (typeof value === "string" ? value.trim().toLowerCase() : value),
          z.enum(targets as [string, ...string[]], {
            error: () => `targetFormat must be one of ${targets.join(", ")} on this path (SVG is never a target)`,
          }),
        )
        .optional()
        .openapi({ description: `Format to write: ${targets.join(", ")}. Default png, except for a PNG image, where it must be given.` }),
      ...resizeFields,
      ...(family === "v1"
        ? { responseFormat: z.enum(["url", "b64_json"]).default("url").openapi({ description: "`b64_json` adds the bytes as base64 beside the hosted URL." }) }
        : {}),
    }),
  );
}

type ConvertInput = z.infer<ReturnType<typeof inputSchema>> & { responseFormat?: "url" | "b64_json" };
interface Prepared {
  source: CodecSource;
  target: ImageFormat;
  responseFormat: "url" | "b64_json";
  plan: RecodePlan;
  permit: Permit;
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
      b64_json: base64Field("Base64 of the image; only with `responseFormat: b64_json`.").optional(),
      imageBase64: base64Field("Same payload as `b64_json`.").optional(),
      width: z.number().int(),
      height: z.number().int(),
      originalSize: z.string(),
      convertedSize: z.string(),
      ...common,
    })
    .openapi("ConvertFormatResult"),
  playground: z
    .object({ imageUrl: base64Field("The converted image as a data URI."), ...common })
    .openapi("ConvertFormatPlaygroundResult"),
};

/** The result of either family: a hosted URL (/v1) or the file inline (/playground). */
type ConvertResult = z.infer<(typeof resultSchemas)["v1"]> | z.infer<(typeof resultSchemas)["playground"]>;

export const convertFormat = defineTool({
  name: "convert_format",
  paths: { v1: "/v1/convert-format", playground: "/playground/convert-format" },
  summary: "Convert an image to another format (1 credit)",
  description:
    "Re-encodes with fixed settings: WebP and JPEG quality 80, AVIF quality 50, TIFF JPEG-compressed, PNG lossless. PNG, WebP and AVIF keep alpha; JPEG, TIFF and BMP flatten it onto black; GIF keeps 1-bit transparency. Only the first frame of an animation is kept. EXIF, ICC profiles and the orientation tag are removed (the orientation is applied first, so the picture stays upright). Optional `width`, `height` and `fit` resize the upright picture (never enlarging).",
  errors: CODEC_TOOL_ERRORS,
  input: inputSchema,
  result: (family: Family): z.ZodType<ConvertResult> => resultSchemas[family],
  async prepare(input: ConvertInput, ctx): Promise<Prepared> {
    const source = await codecSourceOf(input, ctx);
    const resize = resizeRequestOf(input);
    const target = targetOf(input.targetFormat ?? defaultTargetFor(source, resize.width !== undefined || resize.height !== undefined));
    // Each target has its own pixel limit (writing AVIF needs the most memory), then the gate.
    return { source, target, responseFormat: input.responseFormat ?? "url", ...(await admitCodecWork(source, target, ctx, undefined, resize)) };
  },
  release: ({ permit }) => permit.release(),
  price: () => 1,
  summarize: () => ({ model: "wasm-codecs", prompt: "" }),
  workBudget: ({ source, target }) => codecWorkBudget(source, target),
  run: ({ source, target, responseFormat, plan, permit }, ctx) =>
    holdingPermit(permit, async () => {
      const converted = await runRecode(source.bytes, plan);
      const { length, width, height } = converted;
      const { mime, label } = FORMAT_INFO[target];
      const common = {
        originalFormat: source.format,
        targetFormat: target,
        mimeType: mime,
        latency: latencySince(ctx.startedAt),
        cost: "$0.00",
      };
      const resized = plan.resize ? ` resized to ${width}x${height}` : "";
      const message = `Converted ${FORMAT_INFO[source.format].label} to ${label}${resized}.`;
      if (ctx.family === "playground") return { message, result: { imageUrl: answerHolding(permit, dataUri(converted, mime)), ...common } };
      const hosted = await hostResult(ctx.env.FILES, ctx.baseUrl, converted, target);
      const inline = inlineCopy(converted, responseFormat);
      if (inline.b64_json) answerHolding(permit, inline.b64_json);
      return {
        message,
        result: {
          imageUrl: hosted.url,
          ...inline,
          width,
          height,
          originalSize: kilobytes(source.bytes.length),
          convertedSize: kilobytes(length),
          ...common,
        },
      };
    }),
});

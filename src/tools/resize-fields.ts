import { z } from "@hono/zod-openapi";
import { RESIZE_FITS, type ResizeRequest } from "../codecs";
import { PixelgateError } from "../errors";

// The resize fields compress and convert share (`width`, `height`, `fit`), defined once: every
// surface (REST, batch items, MCP arguments, the CLI's flags, the dashboard's form, OpenAPI)
// reads them from the tools' request bodies.

/** Sides beyond this no format we read can have: a larger value asks for nothing a picture could be. */
const MAX_SIDE = 65_535;

const side = (name: "width" | "height") =>
  z
    .number()
    .int(`${name} must be a whole number of pixels`)
    .min(1, `${name} must be at least 1 pixel`)
    .max(MAX_SIDE, `${name} must be at most ${MAX_SIDE} pixels`)
    .optional()
    .openapi({
      description: `Resize: the answer's ${name} at most, in pixels (with \`fit\`). Applied after the EXIF orientation; never enlarges. Omit both width and height to keep the size.`,
      example: 800,
    });

export const resizeFields = {
  width: side("width"),
  height: side("height"),
  fit: z
    .preprocess((value) => (typeof value === "string" ? value.trim().toLowerCase() : value), z.enum(RESIZE_FITS, { error: () => `fit must be one of ${RESIZE_FITS.join(", ")}` }))
    .optional()
    .openapi({
      description:
        "How `width` and `height` apply: `inside` (default) scales the picture to fit within them, aspect ratio kept; `cover` fills the width x height box, cropping the centre. Neither enlarges: a picture smaller than the box keeps its size (cover: the largest centred crop of the box's shape).",
    }),
};

/** The resize a request asks for; `fit` without a side is refused (it would change nothing that was asked for). */
export function resizeRequestOf(input: { width?: number; height?: number; fit?: string }): ResizeRequest {
  if (input.fit !== undefined && input.width === undefined && input.height === undefined) {
    throw new PixelgateError("missing_parameter", "fit applies to a width or height: give one or both.", { param: "width" });
  }
  return { width: input.width, height: input.height, fit: input.fit as ResizeRequest["fit"] };
}

// Image bytes sent inline in the JSON body: a base64 data URI (`data:image/png;base64,...`) or
// bare base64. Errors follow one rule: a value that is not an image *input* at all is the
// client's parameter mistake (invalid_parameter); a declared type that is not an image is
// unsupported_image_format; a payload whose base64 does not decode is invalid_image, the same
// code the decoders use for bytes that are not a readable image.

import { PixelgateError } from "../errors";
import { base64ExceedsDecodedSize, decodeBase64 } from "./base64";
import { MAX_INPUT_IMAGE_BYTES, MAX_INPUT_IMAGE_MB } from "./limits";

export interface InlineImage {
  bytes: Uint8Array;
  /** The data URI's media type (lower-case, no parameters); null for bare base64 or an untyped data URI. */
  declaredType: string | null;
}

const TOKEN = "[a-z0-9!#$&^_.+-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}$`);

/** Decodes `data:[<type>][;param=value]*;base64,<payload>`. `text` starts with "data:". */
export function decodeDataUri(text: string, param: string): InlineImage {
  const comma = text.indexOf(",");
  if (comma < 0) throw new PixelgateError("invalid_parameter", "The data URI has no ',' before its payload.", { param });
  const declaredType = dataUriImageType(text.slice(0, comma), param);
  const bytes = decodePayload(text.slice(comma + 1), param, "The data URI's payload");
  return { bytes, declaredType };
}

/**
 * The image type a data URI's header (`data:image/png;base64`, before the comma) declares, or
 * null when it declares none. Throws unless the header is well-formed, base64 and not a
 * non-image type; the payload is not looked at.
 */
export function dataUriImageType(header: string, param: string): string | null {
  const [mediaType = "", ...parameters] = header
    .slice("data:".length)
    .split(";")
    .map((part) => part.trim().toLowerCase());

  // No type at all is allowed and treated like bare base64 (the bytes are sniffed either way);
  // a type that names something other than an image is refused before the payload is touched.
  if (mediaType !== "" && !MEDIA_TYPE.test(mediaType)) {
    throw new PixelgateError("invalid_parameter", `The data URI's media type "${mediaType}" is malformed.`, { param });
  }
  if (mediaType !== "" && !mediaType.startsWith("image/")) {
    throw new PixelgateError("unsupported_image_format", `The data URI declares ${mediaType}, not an image/* type.`, { param });
  }
  if (!parameters.includes("base64")) {
    throw new PixelgateError("invalid_parameter", "The data URI must be base64-encoded (data:image/...;base64,...).", { param });
  }
  return mediaType === "" ? null : mediaType;
}

/** Decodes bare base64 (either alphabet, whitespace and padding optional). */
export function decodeBareBase64(text: string, param: string): InlineImage {
  return { bytes: decodePayload(text, param, "The image"), declaredType: null };
}

function decodePayload(payload: string, param: string, subject: string): Uint8Array {
  // Size first, from the encoded length: an oversized image is refused without being decoded.
  if (base64ExceedsDecodedSize(payload, MAX_INPUT_IMAGE_BYTES)) {
    throw new PixelgateError("image_too_large", `${subject} decodes to more than ${MAX_INPUT_IMAGE_MB} MB, the limit for one input image.`, { param });
  }
  const decoded = decodeBase64(payload);
  if ("malformed" in decoded) throw new PixelgateError("invalid_image", `${subject} is not valid base64: ${decoded.malformed}.`, { param });
  if (decoded.bytes.length === 0) throw new PixelgateError("invalid_image", `${subject} is empty.`, { param });
  return decoded.bytes;
}

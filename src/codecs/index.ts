// The image codec layer: recognise, measure, decode and encode the seven raster formats.
// Callers import from here; the per-format modules are implementation detail.
//
//   const format = sniffFormat(bytes);            // "svg" and null are refused by the caller
//   const header = readHeader(bytes, format);     // size from the header only
//   assertDecodable(header);                      // pixel limit, before any decoding
//   assertSafeToDecode(bytes, header);            // scan counts, frames, TIFF structure
//   const image = await decodeImage(bytes, header);   // RGBA, orientation applied
//   const out = await encodeImage(image, "webp", { quality: 70 });
//   const same = await recodeImage(bytes, header, "webp", { quality: 70 }); // both in one step;
//                                    // JPEG or PNG to WebP/JPEG without an RGBA raster (native.ts)

export { IMAGE_FORMATS, INPUT_FORMATS, FORMAT_INFO } from "./formats.ts";
export type { ImageFormat, InputFormat, FormatInfo, RasterImage, ImageHeader } from "./formats.ts";
export { sniffFormat } from "./sniff.ts";
export { readHeader, assertDecodable, assertRecodable, assertSafeToDecode, assertWithinPixelLimit } from "./header.ts";
export { nativeBytesPerPixel, nativeRoute, planPrice, type NativeRoute } from "./recode-route.ts";
export { decodeImage } from "./decode.ts";
export { encodeImage, type EncodeOptions } from "./encode.ts";
export { pngPieces } from "./native.ts";
export { planRecode, recodeImage, recodeQuality, runRecode, type RecodedImage, type RecodePlan } from "./recode.ts";
export { resizeGeometry, planResize, RESIZE_FITS, type ResizeFit, type ResizeRequest, type ResizePlan } from "./resize.ts";
export { estimateResizedBytes, resizedPrice } from "./resize-cost.ts";
export { peakEstimate } from "./peak-estimate.ts";
export { readOrientation, applyOrientation, type Orientation } from "./orientation.ts";
export { imageHasAlpha } from "./raster.ts";
export { stripMetadata } from "./strip-metadata.ts";
export { isolateCodecGate, MemoryGate, type Permit } from "./memory-gate.ts";
export { MAX_DECODE_PIXELS, MAX_AVIF_PIXELS, HARD_MAX_PIXELS, estimateCodecBytes, generalPrice, waitingBytes, maxPixelsFor, maxRecodePixels, maxTargetPixelsFor } from "./limits.ts";
export { paletteSizeForQuality } from "./png.ts";

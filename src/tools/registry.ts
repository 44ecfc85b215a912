import { compressImage } from "./compress-image";
import { convertFormat } from "./convert-format";
import { editImage } from "./edit-image";
import { generateImage } from "./generate-image";
import { generateTransparentImage } from "./generate-transparent-image";
import { removeBackground } from "./remove-background";
import { textToSvg } from "./text-to-svg";
import type { AnyTool } from "./types";
import { upscaleImage } from "./upscale-image";

/** Every image tool, once. REST, batch and MCP are generated from this list. */
export const TOOLS: readonly AnyTool[] = [
  generateImage,
  generateTransparentImage,
  editImage,
  removeBackground,
  upscaleImage,
  textToSvg,
  compressImage,
  convertFormat,
];

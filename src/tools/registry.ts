import { compressImage } from "./compress-image";
import { convertFormat } from "./convert-format";
import type { AnyTool } from "./types";

/** Every image tool, once. REST, batch and MCP are generated from this list. */
export const TOOLS: readonly AnyTool[] = [compressImage, convertFormat];


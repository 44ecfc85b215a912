import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./exit-codes.ts";

// Turns what a user typed for an image into what the API takes: https URLs and data URIs pass
// through unchanged (the service fetches or decodes them), local files and stdin are sent as
// base64 data URIs, because the service cannot read the user's disk.

/** Magic bytes of the formats the service accepts, for the data URI's media type. */
const SIGNATURES: { type: string; matches: (b: Uint8Array) => boolean }[] = [
  { type: "image/png", matches: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 },
  { type: "image/jpeg", matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: "image/gif", matches: (b) => ascii(b, 0, 4) === "GIF8" },
  { type: "image/webp", matches: (b) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP" },
  { type: "image/avif", matches: (b) => ascii(b, 4, 8) === "ftyp" && /^avi[fs]$/.test(ascii(b, 8, 12)) },
  { type: "image/bmp", matches: (b) => ascii(b, 0, 2) === "BM" },
  { type: "image/tiff", matches: (b) => ["II*\0", "MM\0*"].includes(ascii(b, 0, 4)) },
];

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

/** The media type read from the bytes; `image/*`-less data URIs are sniffed by the service anyway. */
export function mediaTypeOf(bytes: Uint8Array): string {
  return SIGNATURES.find((signature) => signature.matches(bytes))?.type ?? "image/png";
}

export function toDataUri(bytes: Uint8Array): string {
  return `data:${mediaTypeOf(bytes)};base64,${Buffer.from(bytes).toString("base64")}`;
}

/** True when the text is something the API reads itself: a URL or inline base64. */
export function isRemoteOrInline(text: string): boolean {
  return /^https?:\/\//i.test(text) || /^data:/i.test(text);
}

export async function readStdin(stdin: NodeJS.ReadableStream = process.stdin): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * An image argument as the API wants it. `-` reads stdin: either raw image bytes, or a URL /
 * data URI as text (so `echo https://... | pixelgate compress -` works too).
 */
export async function resolveImageArgument(value: string, stdin?: () => Promise<Buffer>): Promise<string> {
  if (value === "-") {
    const bytes = await (stdin ?? (() => readStdin()))();
    if (bytes.length === 0) throw new UsageError("stdin is empty: pipe an image file, a URL or a data URI into it.");
    const text = bytes.subarray(0, 16).toString("latin1");
    return isRemoteOrInline(text) ? bytes.toString("utf8").trim() : toDataUri(bytes);
  }
  if (isRemoteOrInline(value)) return value;
  return toDataUri(await readImageFile(value));
}

export async function readImageFile(path: string): Promise<Buffer> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${path} is not a file.`);
    return await readFile(path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read image "${path}": ${(error as NodeJS.ErrnoException).code ?? String(error)} (give a file path, an https URL, a data URI, or - for stdin).`);
  }
}

/** The image fields of the tools' bodies (`referenceImages` is a list of them). */
const IMAGE_FIELDS = ["image", "imageBase64"] as const;

/** A local path as an agent or a batch file writes it: plain, `~/...` or `file://...`. */
function localPathOf(value: string): string | undefined {
  if (isRemoteOrInline(value) || value.length > 4096) return undefined;
  if (/^file:\/\//i.test(value)) return fileURLToPath(value);
  if (value.startsWith("~/")) return path.join(homedir(), value.slice(2));
  return value;
}

/** Image file names the service reads (a path ending in one of these is a path, not base64). */
const IMAGE_EXTENSION = /\.(png|jpe?g|webp|gif|avif|hei[cf]|tiff?|bmp|svg)$/i;
/** Raw base64 of an image: long, and nothing but base64's alphabet (a JPEG's starts with "/9j/"). */
const RAW_BASE64 = /^[A-Za-z0-9+/]{64,}={0,2}$/;

/** Whether the caller meant a file on this machine: a path's shape, not raw base64. */
function looksLikePath(value: string, local: string): boolean {
  if (/^file:\/\//i.test(value) || value.startsWith("~/") || IMAGE_EXTENSION.test(local)) return true;
  if (RAW_BASE64.test(value)) return false;
  return /^(\.{0,2}\/|[A-Za-z]:[\\/])/.test(value);
}

/** A path-like image argument that names no file here: said before anything is sent (and paid). */
export class MissingLocalImage extends UsageError {
  readonly param: string;

  constructor(param: string, path: string, reason: string) {
    super(`${param}: cannot read the local file ${path} (${reason}). Give the path of an existing image file, an https URL or a data URI.`);
    this.param = param;
  }
}

async function inlineIfFile(value: unknown, param: string): Promise<unknown> {
  if (typeof value !== "string") return value;
  const local = localPathOf(value);
  if (local === undefined) return value;
  const info = await stat(local).catch((error: NodeJS.ErrnoException) => error);
  if (!(info instanceof Error) && info.isFile()) return toDataUri(await readFile(local));
  // Something else (raw base64, a file name the caller did not mean as one): the service decides.
  if (!looksLikePath(value, local)) return value;
  throw new MissingLocalImage(param, local, info instanceof Error ? (info.code === "ENOENT" ? "no such file" : (info.code ?? info.message)) : "not a file");
}

/**
 * A copy of a tool's arguments where image fields naming existing local files carry the file as
 * a data URI; one that is shaped like a path but names no file throws MissingLocalImage. Used
 * by `batch` and by the stdio MCP server, whose callers work on local files.
 */
export async function inlineLocalImages(args: Record<string, unknown>, at = ""): Promise<Record<string, unknown>> {
  const copy: Record<string, unknown> = { ...args };
  for (const field of IMAGE_FIELDS) if (field in copy) copy[field] = await inlineIfFile(copy[field], `${at}${field}`);
  if (Array.isArray(copy.referenceImages)) {
    copy.referenceImages = await Promise.all(copy.referenceImages.map((value, index) => inlineIfFile(value, `${at}referenceImages.${index}`)));
  }
  return copy;
}

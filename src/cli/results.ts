import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { ApiError } from "./client.ts";
import type { SaveTarget } from "./output-target.ts";

// The file a tool result stands for, and how to get its bytes onto the user's disk: text-to-svg
// carries the markup itself, compress (and /playground convert) a data URI, every other tool a
// hosted URL under /files/. Shared by the CLI's -o and the stdio MCP server's --save-dir.

export type Artefact = { kind: "svg"; svg: string } | { kind: "data"; dataUri: string } | { kind: "url"; url: string };

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/tiff": "tiff",
  "image/avif": "avif",
  "image/bmp": "bmp",
  "image/svg+xml": "svg",
};

/** The one file a tool's `result` produced, or undefined when it produced none (me, models...). */
export function artefactOf(result: unknown): Artefact | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const fields = result as Record<string, unknown>;
  if (typeof fields.svgCode === "string") return { kind: "svg", svg: fields.svgCode };
  // hostedUrl: an MCP result's link, where REST answered inline (compress's data URI).
  for (const candidate of [fields.hostedUrl, fields.imageUrl, fields.image]) {
    if (typeof candidate !== "string") continue;
    if (/^data:/i.test(candidate)) return { kind: "data", dataUri: candidate };
    if (/^https?:\/\//i.test(candidate)) return { kind: "url", url: candidate };
  }
  return undefined;
}

export interface ArtefactBytes {
  bytes: Buffer;
  extension: string;
}

export async function artefactBytes(artefact: Artefact): Promise<ArtefactBytes> {
  if (artefact.kind === "svg") return { bytes: Buffer.from(artefact.svg, "utf8"), extension: "svg" };
  if (artefact.kind === "data") {
    const comma = artefact.dataUri.indexOf(",");
    const mediaType = artefact.dataUri.slice(5, comma).split(";")[0]!.toLowerCase();
    return { bytes: Buffer.from(artefact.dataUri.slice(comma + 1), "base64"), extension: EXTENSIONS[mediaType] ?? "bin" };
  }
  let response: Response;
  try {
    response = await fetch(artefact.url);
  } catch (error) {
    throw new ApiError(0, `Cannot download ${artefact.url}: ${String((error as { cause?: unknown }).cause ?? error)}`);
  }
  if (!response.ok) throw new ApiError(response.status >= 500 ? response.status : 502, `Downloading ${artefact.url} answered ${response.status}.`);
  const mediaType = (response.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  const fromUrl = /\.([a-z0-9]+)(?:$|[?#])/i.exec(new URL(artefact.url).pathname)?.[1]?.toLowerCase();
  return { bytes: Buffer.from(await response.arrayBuffer()), extension: EXTENSIONS[mediaType] ?? fromUrl ?? "bin" };
}

/**
 * Writes `bytes` to `file` without ever leaving a part of them there: into a new file beside it
 * first, then renamed over it (a rename within a directory replaces the old file in one step).
 * Should the write fail (a full disk), the temporary file is removed and `file` is as it was.
 */
export async function writeFileAtomically(file: string, bytes: Uint8Array): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString("hex")}.part`);
  try {
    const handle = await open(temporary, "wx");
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Writes the artefact where `target` says and returns where it went ("stdout" for -o -). */
export async function saveArtefact(artefact: Artefact, target: SaveTarget, tool: string): Promise<string> {
  if (target.kind === "dir") return saveArtefactInto(artefact, target.dir, stemFor(artefact, tool));
  const { bytes, extension } = await artefactBytes(artefact);
  if (target.kind === "stdout") {
    await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())));
    return "stdout";
  }
  // `-o logo` becomes logo.svg / logo.png: the extension says what the bytes are.
  const file = path.extname(target.path) === "" ? `${target.path}.${extension}` : target.path;
  await writeFileAtomically(file, bytes);
  return file;
}

/** Writes the artefact into `dir` under `stem` plus the extension of what it is. */
export async function saveArtefactInto(artefact: Artefact, dir: string, stem: string): Promise<string> {
  const { bytes, extension } = await artefactBytes(artefact);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${stem}.${extension}`);
  await writeFileAtomically(file, bytes);
  return file;
}

/** A file name stem for a saved result: the hosted file's id when there is one, else tool + time. */
export function stemFor(artefact: Artefact, tool: string): string {
  if (artefact.kind === "url") {
    const base = path.basename(new URL(artefact.url).pathname).replace(/\.[^.]*$/, "");
    if (/^[A-Za-z0-9_-]{4,}$/.test(base)) return `${tool}-${base}`;
  }
  return `${tool}-${new Date().toISOString().replace(/[:.]/g, "-")}-${Math.random().toString(36).slice(2, 6)}`;
}

import { FORMAT_INFO } from "../codecs/formats";
import { Base64Bytes } from "../http/base64-bytes";
import { openResult } from "../storage/results";

// The file a playground result stands for, to preview and to download: text-to-svg's markup,
// compress's data URI, or the hosted /files/ URL of every other tool.

const KINDS = [...Object.values(FORMAT_INFO), { mime: "image/svg+xml", ext: "svg", label: "SVG" }];

export interface ResultFile {
  /** What an <img> or a link can point at: a data URI or the hosted URL. */
  src: string;
  mime: string;
  extension: string;
  label: string;
  /** Browsers cannot show TIFF, so the page offers the download instead of a broken image. */
  previewable: boolean;
}

function kindOf(mime: string) {
  return KINDS.find((kind) => kind.mime === mime);
}

export function resultFile(result: Record<string, unknown>): ResultFile | null {
  for (const name of ["imageUrl", "image", "dataUrl"]) {
    const value = result[name];
    const src = value instanceof Base64Bytes ? value.text() : value;
    if (typeof src !== "string") continue;
    const mime = src.startsWith("data:")
      ? src.slice(5, src.search(/[;,]/)).toLowerCase()
      : /^https?:/.test(src) ? (KINDS.find((kind) => src.toLowerCase().endsWith(`.${kind.ext}`))?.mime ?? "") : "";
    const kind = kindOf(mime);
    if (kind) return { src, mime, extension: kind.ext, label: kind.label, previewable: mime !== "image/tiff" };
  }
  return null;
}

function bytesOfDataUri(uri: string): Uint8Array<ArrayBuffer> {
  const comma = uri.indexOf(",");
  const payload = uri.slice(comma + 1);
  if (/;base64$/i.test(uri.slice(0, comma))) return Uint8Array.from(atob(payload), (char) => char.charCodeAt(0));
  return new Uint8Array(new TextEncoder().encode(decodeURIComponent(payload)));
}

/** The result's bytes for a download: inline ones decoded, hosted ones read from R2. */
export async function resultDownload(bucket: R2Bucket, result: Record<string, unknown>): Promise<{ bytes: Uint8Array<ArrayBuffer>; mime: string; extension: string } | null> {
  if (typeof result.svgCode === "string") return { bytes: new Uint8Array(new TextEncoder().encode(result.svgCode)), mime: "image/svg+xml", extension: "svg" };
  const inline = [result.imageUrl, result.image].find((value) => value instanceof Base64Bytes);
  const file = resultFile(result);
  if (!file) return null;
  if (inline) return { bytes: new Uint8Array(inline.bytes), mime: file.mime, extension: file.extension };
  if (file.src.startsWith("data:")) return { bytes: bytesOfDataUri(file.src), mime: file.mime, extension: file.extension };
  const name = /\/files\/([^/?#]+)$/.exec(new URL(file.src).pathname)?.[1];
  const stored = name ? await openResult(bucket, name) : null;
  return stored ? { bytes: new Uint8Array(await stored.arrayBuffer()), mime: file.mime, extension: file.extension } : null;
}

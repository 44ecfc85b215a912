import { randomBase62 } from "../ids/random";
import { fileBytesOf, onlyPiece, type FileLike } from "../codecs/file-pieces";
import { FORMAT_INFO, type ImageFormat } from "../codecs/formats";

// Hosted results: written to R2 under an unguessable id (24 base62 characters, ~143 bits) and
// served by the worker at /files/{id}.{ext}. Ids are never listed, so the URL is the capability.

const RESULT_PREFIX = "results/";
const FILE_NAME = /^([0-9A-Za-z]{24})\.([a-z]{3,4})$/;

export type HostedKind = ImageFormat | "svg";

const SVG_INFO = { mime: "image/svg+xml", ext: "svg" };

/** The MIME type and extension a hosted file of this kind is served with. */
export function hostedFileInfo(kind: HostedKind): { mime: string; ext: string } {
  return kind === "svg" ? SVG_INFO : FORMAT_INFO[kind];
}

export interface HostedFile {
  id: string;
  url: string;
}

/** `file`: one array, the pieces our PNG and GIF writers leave it in, or a streamed file, uploaded without joining them. */
export async function hostResult(bucket: R2Bucket, baseUrl: string, file: FileLike, kind: HostedKind): Promise<HostedFile> {
  const { mime, ext } = hostedFileInfo(kind);
  const id = randomBase62(24);
  await bucket.put(`${RESULT_PREFIX}${id}.${ext}`, uploadOf(file), { httpMetadata: { contentType: mime } });
  return { id, url: `${baseUrl}/files/${id}.${ext}` };
}

/** R2 takes a stream only when its length is known: a FixedLengthStream the pieces are written into. */
function uploadOf(file: FileLike): Uint8Array | ReadableStream<Uint8Array> {
  const bytes = fileBytesOf(file);
  const whole = onlyPiece(bytes);
  if (whole) return whole;
  const { pieces, length } = bytes;
  const { readable, writable } = new FixedLengthStream(length);
  void (async () => {
    const writer = writable.getWriter();
    for (const piece of pieces) await writer.write(piece);
    await writer.close();
  })().catch(() => undefined); // a failed upload rejects bucket.put, which the caller sees
  return readable;
}

/** The stored object for a /files/ name, or null for a malformed or unknown name. */
export async function openResult(bucket: R2Bucket, name: string): Promise<R2ObjectBody | null> {
  if (!FILE_NAME.test(name)) return null;
  return bucket.get(RESULT_PREFIX + name);
}

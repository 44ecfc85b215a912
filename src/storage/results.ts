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

/**
 * Parts of a multipart upload: R2 takes parts of at least 5 MiB (but for the last) and of one
 * size (but for the last). What a streamed result holds of its file at once.
 */
export const UPLOAD_PART_BYTES = 8 * 1024 * 1024;

/**
 * Hosts a file that is written as it is read (`pieces`, of any sizes, made one after another:
 * codecs/native.ts pngPieces), never whole: a multipart upload of UPLOAD_PART_BYTES parts, or one put when
 * the file ends within the first part. A failure while writing aborts the upload (nothing is
 * left under the id) and is thrown.
 */
export async function hostPieces(bucket: R2Bucket, baseUrl: string, pieces: AsyncIterable<Uint8Array>, kind: HostedKind): Promise<HostedFile & { bytes: number }> {
  const { mime, ext } = hostedFileInfo(kind);
  const id = randomBase62(24);
  const key = `${RESULT_PREFIX}${id}.${ext}`;
  const options = { httpMetadata: { contentType: mime } };
  const part = new Uint8Array(UPLOAD_PART_BYTES);
  let filled = 0;
  let upload: R2MultipartUpload | null = null;
  const parts: R2UploadedPart[] = [];
  let total = 0;
  try {
    for await (const piece of pieces) {
      total += piece.length;
      for (let at = 0; at < piece.length; ) {
        const take = Math.min(piece.length - at, UPLOAD_PART_BYTES - filled);
        part.set(piece.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === UPLOAD_PART_BYTES) {
          upload ??= await bucket.createMultipartUpload(key, options);
          parts.push(await upload.uploadPart(parts.length + 1, part));
          filled = 0; // uploaded: the buffer takes the next part

        }
      }
    }
    if (upload === null) {
      await bucket.put(key, part.subarray(0, filled), options);
    } else {
      if (filled > 0) parts.push(await upload.uploadPart(parts.length + 1, part.subarray(0, filled)));
      await upload.complete(parts);
    }
  } catch (error) {
    await upload?.abort().catch(() => undefined);
    throw error;
  }
  return { id, url: `${baseUrl}/files/${id}.${ext}`, bytes: total };
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

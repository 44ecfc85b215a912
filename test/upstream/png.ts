import { crc32, deflateSync } from "node:zlib";
import { FAKE_RECORD_KEYWORD, type FakeRequestRecord } from "./scenarios.ts";

// A small PNG encoder for the fake upstream (Node side): real, decodable images of any size, so
// adapters and tools downstream are tested on what providers actually send. The request record
// rides along in a tEXt chunk, which every decoder skips and a test can read back.

export interface FakePicture {
  width: number;
  height: number;
  /** Picks the colours, so different prompts give different pictures. */
  seed: number;
  /** A subject on a transparent background, as a cut-out model answers. */
  cutout?: boolean;
  record?: FakeRequestRecord;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function encodeFakePng(picture: FakePicture): Buffer {
  const { width, height, seed } = picture;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, adaptive filtering, no interlace
  const chunks = [chunk("IHDR", header)];
  if (picture.record) {
    chunks.push(chunk("tEXt", Buffer.concat([Buffer.from(`${FAKE_RECORD_KEYWORD}\0`, "latin1"), Buffer.from(JSON.stringify(picture.record), "latin1")])));
  }
  chunks.push(chunk("IDAT", deflateSync(pixels(picture), { level: 1 })), chunk("IEND", Buffer.alloc(0)));
  return Buffer.concat([SIGNATURE, ...chunks]);
}

/** Filter byte 0 then RGBA per row: a diagonal gradient, or a disc on transparency for a cut-out. */
function pixels({ width, height, seed, cutout }: FakePicture): Buffer {
  const stride = width * 4 + 1;
  const raw = Buffer.alloc(stride * height);
  const [r0, g0, b0] = [(seed * 37) & 0xff, (seed * 91) & 0xff, (seed * 53) & 0xff];
  const radius = Math.min(width, height) / 3;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * stride + 1 + x * 4;
      const inside = Math.hypot(x - width / 2, y - height / 2) <= radius;
      raw[at] = (r0 + (x * 255) / width) & 0xff;
      raw[at + 1] = (g0 + (y * 255) / height) & 0xff;
      raw[at + 2] = b0;
      raw[at + 3] = cutout && !inside ? 0 : 255;
    }
  }
  return raw;
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Width and height of a PNG (from IHDR), or null for anything else. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 24 || !buffer.subarray(0, 8).equals(SIGNATURE)) return null;
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

/** A stable small number from text, for colours. */
export function seedOf(text: string): number {
  let hash = 2166136261;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return hash >>> 0;
}

/** An SVG graphic carrying the record in <desc>, as an SVG model's output file. */
export function fakeSvg(record: FakeRequestRecord): string {
  const text = JSON.stringify(record).replace(/&/g, "&amp;").replace(/</g, "&lt;");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256"><desc>${text}</desc><circle cx="128" cy="128" r="96" fill="#3a7bd5"/></svg>`;
}

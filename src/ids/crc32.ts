// CRC-32 (ISO 3309): the checksum every PNG chunk carries and the one closing an API key
// (api-key.ts). The runtime's zlib computes it
// natively (node:zlib crc32, in workerd and Node 22): several times faster than a table in
// JS, which showed up as ~8% of a lossless PNG encode (npm run bench:codecs).

import { crc32 as zlibCrc32 } from "node:zlib";

export function crc32(...parts: Uint8Array[]): number {
  let c = 0;
  for (const part of parts) c = zlibCrc32(part, c);
  return c >>> 0;
}

// JPEG or PNG in, BMP out, without an RGBA raster: the rules of the TypeScript encoder
// (src/codecs/bmp.ts): a 54-byte header (BITMAPINFOHEADER, 24-bit BI_RGB, 2835 pixels per metre,
// no colour table), rows bottom-up (positive height, the form every reader takes), each padded to
// 4 bytes, pixels BGR with alpha composited onto black.
//
// A BMP's size is known before its first pixel, and its rows run bottom-up: each oriented row,
// as it comes top-down, is written straight into its place in the file, which JavaScript holds
// (pg_write_at); WASM memory holds one row.
#include <stdlib.h>
#include <string.h>
#include "png_sink.h"

// Copies `length` bytes to `offset` in the output file of `total` bytes (made at the first call).
__attribute__((import_module("env"), import_name("pg_write_at"))) void pg_write_at(const void *data, size_t length, size_t offset, size_t total);

enum { HEADER_BYTES = 14 + 40 };

static void put_u32(uint8_t *at, uint32_t v) {
  for (int k = 0; k < 4; k++) at[k] = (uint8_t)(v >> (8 * k));
}

static void write_header(int width, int height, size_t stride, size_t total) {
  uint8_t h[HEADER_BYTES] = {'B', 'M'};
  put_u32(h + 2, (uint32_t)total);
  put_u32(h + 10, HEADER_BYTES);
  put_u32(h + 14, 40);
  put_u32(h + 18, (uint32_t)width);
  put_u32(h + 22, (uint32_t)height);
  h[26] = 1;  // planes
  h[28] = 24; // bits per pixel; compression (30) stays BI_RGB
  put_u32(h + 34, (uint32_t)(stride * (size_t)height));
  put_u32(h + 38, 2835); // 72 dpi in pixels per metre
  put_u32(h + 42, 2835);
  pg_write_at(h, HEADER_BYTES, 0, total);
}

// A channel composited onto black as the TypeScript encoder rounds it: (c * a + 127) / 255
// stored in a clamped byte array, which rounds to nearest (never a tie for these values).
static inline uint8_t onto_black(int c, int a) { return (uint8_t)((2 * c * a + 509) / 510); }

// `data` (a JPEG; NULL for a PNG, read through pg_read_at) as a BMP, placed through
// pg_write_at. `width` and `height` are the file's, from its header; `orientation` (JPEG) is applied.
int pg_to_bmp(int kind, uint8_t *data, size_t size, int width, int height, int orientation) {
  PgRows rows;
  int status = pg_rows_init(&rows, kind, data, size, width, height, orientation);
  if (status == PG_OK) status = pg_rows_start(&rows, 1);
  if (status != PG_OK) {
    pg_rows_free(&rows);
    return status;
  }
  int w = rows.pass_width, h = rows.pass_height;
  size_t stride = ((size_t)w * 3 + 3) / 4 * 4, total = HEADER_BYTES + stride * (size_t)h;
  uint8_t *out = calloc(stride, 1); // the padding stays zero
  if (!out) return PG_NO_MEMORY;
  write_header(w, h, stride, total);
  for (int y = 0; y < h; y++) {
    const uint8_t *px = pg_rows_next(&rows);
    for (int x = 0; x < w; x++, px += 4) {
      out[3 * x] = onto_black(px[2], px[3]);
      out[3 * x + 1] = onto_black(px[1], px[3]);
      out[3 * x + 2] = onto_black(px[0], px[3]);
    }
    pg_write_at(out, stride, HEADER_BYTES + (size_t)(h - 1 - y) * stride, total);
  }
  free(out);
  pg_rows_free(&rows);
  return PG_OK;
}

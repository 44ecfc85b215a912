// JPEG, PNG, WebP, YCbCr planes or an RGBA raster in, BMP out, without the file whole: a
// 54-byte header (BITMAPINFOHEADER,
// 24-bit BI_RGB, 2835 pixels per metre, no colour table), rows bottom-up (positive height, the
// form every reader takes), each padded to 4 bytes, pixels BGR with alpha composited onto black.
//
// A BMP is 3 bytes a pixel (69 MB at 24 MP), and its rows run bottom-up: the file in order is
// the oriented picture read from its last row up, that is the picture turned by its EXIF
// orientation and then flipped top to bottom, which is itself one of the eight orientations
// (BOTTOM_UP). The row source hands those rows out in order, in bands of output rows
// (png_rows.c: each band decodes the file again; a raster's rows are read bottom up directly),
// and the file leaves WASM memory a few rows at
// a time (pg_bmp_rows) when the answer's reader asks for them. So neither the picture nor the
// file is ever whole anywhere; src/codecs/native.ts keeps the instance between the calls.
#include <stdlib.h>
#include <string.h>
#include "png_sink.h"

__attribute__((import_module("env"), import_name("pg_write"))) void pg_write(const void *data, size_t length);

enum { HEADER_BYTES = 14 + 40 };

// EXIF orientation o followed by a flip top to bottom, as an orientation (index 0: none given, as 1).
static const int BOTTOM_UP[9] = {4, 4, 3, 2, 1, 8, 7, 6, 5};

// The one BMP of this instance, between pg_bmp_begin and its last pg_bmp_rows.
static struct {
  PgRows rows;
  uint8_t *out;  // up to `chunk_rows` file rows, the padding zero
  size_t stride; // bytes of a file row
  int chunk_rows, next, height;
} bmp;

static void put_u32(uint8_t *at, uint32_t v) {
  for (int k = 0; k < 4; k++) at[k] = (uint8_t)(v >> (8 * k));
}

static void write_header(int width, int height, size_t stride) {
  uint8_t h[HEADER_BYTES] = {'B', 'M'};
  put_u32(h + 2, (uint32_t)(HEADER_BYTES + stride * (size_t)height));
  put_u32(h + 10, HEADER_BYTES);
  put_u32(h + 14, 40);
  put_u32(h + 18, (uint32_t)width);
  put_u32(h + 22, (uint32_t)height);
  h[26] = 1;  // planes
  h[28] = 24; // bits per pixel; compression (30) stays BI_RGB
  put_u32(h + 34, (uint32_t)(stride * (size_t)height));
  put_u32(h + 38, 2835); // 72 dpi in pixels per metre
  put_u32(h + 42, 2835);
  pg_write(h, HEADER_BYTES);
}

// A channel composited onto black as browsers round it: (c * a + 127) / 255
// stored in a clamped byte array, which rounds to nearest (never a tie for these values).
static inline uint8_t onto_black(int c, int a) { return (uint8_t)((2 * c * a + 509) / 510); }

// Opens `data` (a JPEG or lossy WebP; NULL for a PNG or lossless WebP, read through pg_read_at,
// and for planes, read through pg_read_planes) as the BMP's rows, `width` x `height` as its
// header says, `orientation` (EXIF 1-8) applied, and writes the file's header through pg_write.
// The whole picture is decoded once here, before the first row is handed out: damage found
// later could no longer be answered as a bad image. `chunk_rows`: the most rows one
// pg_bmp_rows call writes.
int pg_bmp_begin(int kind, uint8_t *data, size_t size, int width, int height, int orientation, int chunk_rows) {
  int status = pg_rows_init(&bmp.rows, kind, data, size, width, height, BOTTOM_UP[orientation >= 1 && orientation <= 8 ? orientation : 0]);
  if (status == PG_OK) status = pg_rows_start(&bmp.rows, 1);
  if (status == PG_OK) status = pg_rows_read_through(&bmp.rows);
  if (status != PG_OK) return status;
  bmp.height = bmp.rows.pass_height;
  bmp.stride = ((size_t)bmp.rows.pass_width * 3 + 3) / 4 * 4;
  bmp.chunk_rows = chunk_rows > 0 ? chunk_rows : 1;
  bmp.out = calloc(bmp.stride, (size_t)bmp.chunk_rows);
  if (!bmp.out) return PG_NO_MEMORY;
  write_header(bmp.rows.pass_width, bmp.height, bmp.stride);
  return PG_OK;
}

// Writes the file's next rows, at most `chunk_rows` of them, through one pg_write; the count
// written (0 once the file is complete, when the row source's memory is freed).
int pg_bmp_rows(void) {
  int n = bmp.height - bmp.next < bmp.chunk_rows ? bmp.height - bmp.next : bmp.chunk_rows;
  int w = bmp.rows.pass_width;
  for (int k = 0; k < n; k++) {
    const uint8_t *px = pg_rows_next(&bmp.rows);
    uint8_t *row = bmp.out + (size_t)k * bmp.stride;
    for (int x = 0; x < w; x++, px += 4) {
      if (px[3] == 255) { // opaque: no division
        row[3 * x] = px[2], row[3 * x + 1] = px[1], row[3 * x + 2] = px[0];
        continue;
      }
      row[3 * x] = onto_black(px[2], px[3]);
      row[3 * x + 1] = onto_black(px[1], px[3]);
      row[3 * x + 2] = onto_black(px[0], px[3]);
    }
  }
  bmp.next += n;
  if (n > 0) pg_write(bmp.out, (size_t)n * bmp.stride);
  if (bmp.next == bmp.height && bmp.out) {
    pg_rows_free(&bmp.rows);
    free(bmp.out);
    bmp.out = NULL;
  }
  return n;
}

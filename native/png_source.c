// PNG to WebP or JPEG: libspng inflates and unfilters one row at a time into the raster
// encoders' row buffer (raster_sink.c), so neither the inflated image nor an RGBA raster ever
// exists whole. The file itself is not copied in either: libspng pulls it from JavaScript in
// the pieces it asks for (pg_read). Interlaced PNGs and EXIF-oriented ones are left to the
// TypeScript decoder (PG_UNSUPPORTED), which handles both.
#include <spng.h>
#include "pixelgate.h"

// Copies the next `length` bytes of the file to `dst`; 0 when the file has fewer left.
__attribute__((import_module("env"), import_name("pg_read"))) int pg_read(void *dst, size_t length);

static int read_file(spng_ctx *ctx, void *user, void *dst, size_t length) {
  (void)ctx;
  (void)user;
  return pg_read(dst, length) ? 0 : SPNG_IO_EOF;
}

static int png_rows(spng_ctx *ctx, int webp, int width, int height, int quality) {
  struct spng_ihdr ihdr;
  if (spng_get_ihdr(ctx, &ihdr)) return PG_INVALID;
  if ((int)ihdr.width != width || (int)ihdr.height != height) return PG_INVALID;
  if (ihdr.interlace_method != SPNG_INTERLACE_NONE) return PG_UNSUPPORTED;
  struct spng_trns trns;
  int alpha = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA || ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA ||
              spng_get_trns(ctx, &trns) == 0;
  if (spng_decode_image(ctx, NULL, 0, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE)) return PG_INVALID;

  enum { BATCH = 16 };
  uint8_t *rows = pg_raster_begin(webp, width, height, alpha, quality, BATCH);
  if (!rows) return PG_NO_MEMORY;
  size_t row_bytes = (size_t)width * 4;
  for (int y = 0; y < height; y += BATCH) {
    int n = height - y < BATCH ? height - y : BATCH;
    for (int i = 0; i < n; i++) {
      int status = spng_decode_row(ctx, rows + i * row_bytes, row_bytes);
      // SPNG_EOI comes with the last row; anything else before it is damage.
      if (status != 0 && !(status == SPNG_EOI && y + i == height - 1)) return PG_INVALID;
    }
    pg_raster_rows(n);
  }
  // The chunks after the image, up to IEND: a file cut off there is refused, as the TypeScript
  // decoder refuses it.
  if (spng_decode_chunks(ctx)) return PG_INVALID;
  return pg_raster_end();
}

int pg_png_to(int webp, int width, int height, int quality) {
  spng_ctx *ctx = spng_ctx_new(0);
  if (!ctx) return PG_NO_MEMORY;
  // Like the TypeScript decoder: CRCs are not checked (a wrong one is not worth refusing a
  // picture over), and only the image's own size is decoded from the zlib stream.
  spng_set_crc_action(ctx, SPNG_CRC_USE, SPNG_CRC_USE);
  spng_set_png_stream(ctx, read_file, NULL);
  int status = png_rows(ctx, webp, width, height, quality);
  spng_ctx_free(ctx);
  return status;
}

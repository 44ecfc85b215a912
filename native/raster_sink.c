// Encoding an RGBA raster that lives in JavaScript (decoded by one of the TypeScript decoders)
// without copying it into WASM memory whole: JS copies a batch of rows at a time into a small
// buffer here, and each batch goes straight into the encoder.
//   WebP: rows become the WebPPicture's YUV(A) planes (libwebp's own RGB-to-YUV formulas,
//         chroma averaged over each 2x2 cell), then one WebPEncode.
//   JPEG: rows, flattened onto black, go to jpeg_write_scanlines (progressive, optimised).
// One encode per instance (src/codecs/native.ts drops the instance afterwards).
#include <stdlib.h>
#include <webp/encode.h>
#include "src/dsp/yuv.h"
#include "pixelgate.h"

static int width, height, next_row;
static uint8_t *rows;
static PgBandEncoder encoder;

// Starts an encode of a width x height image; returns the row buffer JS fills (batch_rows rows
// of RGBA; an even number, so 2x2 chroma cells never straddle two batches), or 0.
uint8_t *pg_raster_begin(int target_is_webp, int w, int h, int has_alpha, int quality, int batch_rows) {
  width = w;
  height = h;
  next_row = 0;
  rows = malloc((size_t)w * 4 * batch_rows);
  if (!rows) return 0;
  return pg_band_encoder_begin(&encoder, target_is_webp, w, h, has_alpha, quality, JCS_RGB) ? rows : 0;
}

static void webp_rows(int n) {
  for (int i = 0; i < n; i += 2) {
    int y = next_row + i;
    const uint8_t *top = rows + (size_t)i * width * 4;
    const uint8_t *bottom = i + 1 < n ? top + (size_t)width * 4 : top; // last odd row: itself
    int pair = i + 1 < n ? 2 : 1;
    uint8_t *luma = encoder.picture.y + (size_t)y * encoder.picture.y_stride;
    uint8_t *u = encoder.picture.u + (size_t)(y / 2) * encoder.picture.uv_stride;
    uint8_t *v = encoder.picture.v + (size_t)(y / 2) * encoder.picture.uv_stride;
    for (int x = 0; x < width; x++) {
      luma[x] = (uint8_t)VP8RGBToY(top[4 * x], top[4 * x + 1], top[4 * x + 2], YUV_HALF);
      if (pair == 2) luma[x + encoder.picture.y_stride] = (uint8_t)VP8RGBToY(bottom[4 * x], bottom[4 * x + 1], bottom[4 * x + 2], YUV_HALF);
    }
    for (int x = 0; x < width; x += 2) {
      int cols = x + 1 < width ? 2 : 1;
      int r = 0, g = 0, b = 0;
      for (int dx = 0; dx < cols; dx++) {
        const uint8_t *p = top + 4 * (x + dx), *q = bottom + 4 * (x + dx);
        r += p[0] + q[0];
        g += p[1] + q[1];
        b += p[2] + q[2];
      }
      // VP8RGBToU/V take sums of four samples; a cell at an edge counts its pixels twice.
      if (cols == 1) r *= 2, g *= 2, b *= 2;
      u[x / 2] = (uint8_t)VP8RGBToU(r, g, b, YUV_HALF << 2);
      v[x / 2] = (uint8_t)VP8RGBToV(r, g, b, YUV_HALF << 2);
    }
    if (encoder.picture.a) {
      for (int k = 0; k < pair; k++) {
        const uint8_t *src = k ? bottom : top;
        uint8_t *a = encoder.picture.a + (size_t)(y + k) * encoder.picture.a_stride;
        for (int x = 0; x < width; x++) a[x] = src[4 * x + 3];
      }
    }
  }
}

static void jpeg_rows(int n) {
  for (int i = 0; i < n; i++) {
    uint8_t *row = rows + (size_t)i * width * 4;
    // RGBA to RGB in place, composited onto black (JPEG has no alpha).
    for (int x = 0; x < width; x++) {
      int a = row[4 * x + 3];
      for (int c = 0; c < 3; c++) row[3 * x + c] = (uint8_t)((row[4 * x + c] * a + 127) / 255);
    }
    JSAMPROW one[1] = {row};
    jpeg_write_scanlines(&encoder.jpeg.co, one, 1);
  }
}

// JS has copied `n` rows (the next ones) into the row buffer.
void pg_raster_rows(int n) {
  if (n <= 0 || next_row + n > height) pg_fail(PG_INVALID);
  if (encoder.webp) webp_rows(n);
  else jpeg_rows(n);
  next_row += n;
}

int pg_raster_end(void) {
  if (next_row != height) return PG_INVALID;
  free(rows);
  return pg_band_encoder_end(&encoder);
}

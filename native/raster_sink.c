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

static int target_webp;
static int width, height, next_row;
static uint8_t *rows;
static WebPPicture picture;
static struct jpeg_compress_struct co;
static struct jpeg_error_mgr err;
static unsigned char *jpeg_out;
static unsigned long jpeg_size;
static float webp_quality;

// Starts an encode of a width x height image; returns the row buffer JS fills (batch_rows rows
// of RGBA; an even number, so 2x2 chroma cells never straddle two batches), or 0.
uint8_t *pg_raster_begin(int target_is_webp, int w, int h, int has_alpha, int quality, int batch_rows) {
  target_webp = target_is_webp;
  width = w;
  height = h;
  next_row = 0;
  rows = malloc((size_t)w * 4 * batch_rows);
  if (!rows) return 0;
  if (target_webp) {
    webp_quality = (float)quality;
    if (!WebPPictureInit(&picture)) return 0;
    picture.use_argb = 0;
    picture.colorspace = has_alpha ? WEBP_YUV420A : WEBP_YUV420;
    picture.width = w;
    picture.height = h;
    if (!WebPPictureAlloc(&picture)) return 0;
    return rows;
  }
  pg_error_handlers(&err);
  co.err = &err;
  jpeg_create_compress(&co);
  co.image_width = (JDIMENSION)w;
  co.image_height = (JDIMENSION)h;
  co.input_components = 3;
  co.in_color_space = JCS_RGB;
  jpeg_set_defaults(&co);
  pg_jpeg_settings(&co, quality);
  jpeg_mem_dest(&co, &jpeg_out, &jpeg_size);
  jpeg_start_compress(&co, TRUE);
  return rows;
}

static void webp_rows(int n) {
  for (int i = 0; i < n; i += 2) {
    int y = next_row + i;
    const uint8_t *top = rows + (size_t)i * width * 4;
    const uint8_t *bottom = i + 1 < n ? top + (size_t)width * 4 : top; // last odd row: itself
    int pair = i + 1 < n ? 2 : 1;
    uint8_t *luma = picture.y + (size_t)y * picture.y_stride;
    uint8_t *u = picture.u + (size_t)(y / 2) * picture.uv_stride;
    uint8_t *v = picture.v + (size_t)(y / 2) * picture.uv_stride;
    for (int x = 0; x < width; x++) {
      luma[x] = (uint8_t)VP8RGBToY(top[4 * x], top[4 * x + 1], top[4 * x + 2], YUV_HALF);
      if (pair == 2) luma[x + picture.y_stride] = (uint8_t)VP8RGBToY(bottom[4 * x], bottom[4 * x + 1], bottom[4 * x + 2], YUV_HALF);
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
    if (picture.a) {
      for (int k = 0; k < pair; k++) {
        const uint8_t *src = k ? bottom : top;
        uint8_t *a = picture.a + (size_t)(y + k) * picture.a_stride;
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
    jpeg_write_scanlines(&co, one, 1);
  }
}

// JS has copied `n` rows (the next ones) into the row buffer.
void pg_raster_rows(int n) {
  if (n <= 0 || next_row + n > height) pg_fail(PG_INVALID);
  if (target_webp) webp_rows(n);
  else jpeg_rows(n);
  next_row += n;
}

int pg_raster_end(void) {
  if (next_row != height) return PG_INVALID;
  free(rows);
  if (!target_webp) {
    jpeg_finish_compress(&co);
    jpeg_destroy_compress(&co);
    pg_set_output(jpeg_out, jpeg_size);
    return PG_OK;
  }
  WebPConfig config;
  if (!pg_configure_webp(&config, webp_quality)) return PG_ENCODE_FAILED;
  return pg_encode_picture(&picture, &config);
}

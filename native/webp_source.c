// WebP to WebP or JPEG without an RGBA raster: the file's YUV rows (webp_rows.h: a lossy file
// through libwebp's VP8 decoder with our own for the alpha plane, a lossless one through our own
// VP8L decoder) go
//   WebP: into the encoder's WebPPicture, so the image exists once (1.5 bytes a pixel, 2.5 with
//         alpha) besides the decoders' few rows (a lossless file's window: up to 4 MB);
//   JPEG: straight into the encoder, as full-range YCbCr flattened onto black; no plane of the
//         picture is ever whole.
// A lossless file may be left out of WASM memory (`data` NULL): our decoder reads it from
// JavaScript a chunk at a time. Animations are left to the TypeScript path (PG_UNSUPPORTED),
// which takes their first frame.
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include "pixelgate.h"
#include "vp8l.h"
#include "webp_rows.h"

// Reads the file's features, checked against the size the caller read from the header.
static int open_webp(const uint8_t *data, size_t size, int width, int height, WebPDecoderConfig *config) {
  if (!WebPInitDecoderConfig(config)) return PG_ENCODE_FAILED;
  size_t vp8l_offset;
  int status = pg_webp_features(data, size, &config->input, &vp8l_offset);
  if (status != PG_OK) return status;
  if (config->input.has_animation) return PG_UNSUPPORTED;
  if (config->input.width != width || config->input.height != height) return PG_INVALID;
  return PG_OK;
}

// A row into the encoder's picture (alpha opaque when the file has none).
static void picture_row(void *sink, const uint8_t *y, const uint8_t *u, const uint8_t *v, const uint8_t *a, int row) {
  WebPPicture *p = sink;
  memcpy(p->y + (size_t)row * p->y_stride, y, (size_t)p->width);
  if (!(row & 1)) {
    memcpy(p->u + (size_t)(row >> 1) * p->uv_stride, u, (size_t)(p->width + 1) / 2);
    memcpy(p->v + (size_t)(row >> 1) * p->uv_stride, v, (size_t)(p->width + 1) / 2);
  }
  if (!p->a) return;
  if (a) memcpy(p->a + (size_t)row * p->a_stride, a, (size_t)p->width);
  else memset(p->a + (size_t)row * p->a_stride, 0xff, (size_t)p->width);
}

// `data` is taken over: freed as soon as the pixels are decoded.
int pg_webp_to_webp(uint8_t *data, size_t size, int width, int height, float quality) {
  WebPConfig config;
  WebPDecoderConfig decoder;
  if (!pg_configure_webp(&config, quality)) return PG_ENCODE_FAILED;
  int status = open_webp(data, size, width, height, &decoder);
  if (status != PG_OK) return status;

  WebPPicture picture;
  // The encoder leaves the alpha plane out again when every pixel turns out opaque.
  status = pg_yuv_picture(&picture, width, height, decoder.input.has_alpha);
  if (status != PG_OK) return status;
  if (decoder.input.format == 2) status = pg_webp_lossless_rows(data, size, width, height, decoder.input.has_alpha, picture_row, &picture);
  else status = pg_webp_lossy_rows(data, size, picture_row, &picture);
  free(data);
  if (status != PG_OK) {
    WebPPictureFree(&picture);
    return status;
  }
  return pg_encode_picture(&picture, &config);
}

// Where decoded rows go on their way to the JPEG encoder.
typedef struct {
  PgJpegEncoder *encoder;
  JSAMPLE *row; // one row of YCbCr samples (chroma repeated, which libjpeg averages back)
  PgRange range; // WebP's studio-range YUV (BT.601) as JPEG's full-range YCbCr
} RowSink;

// A row of the picture (its luma, its 2x2 cells' chroma, its alpha or null) into the JPEG
// encoder. Each pixel is flattened onto black: in YCbCr, black is (0, 128, 128) and the mix is
// linear.
static void jpeg_row(void *to, const uint8_t *y, const uint8_t *u, const uint8_t *v, const uint8_t *a, int row) {
  RowSink *sink = to;
  (void)row;
  int width = (int)sink->encoder->co.image_width;
  JSAMPLE *out = sink->row;
  for (int x = 0; x < width; x++, out += 3) {
    int cb = sink->range.chroma[u[x / 2]], cr = sink->range.chroma[v[x / 2]], lum = sink->range.luma[y[x]];
    if (a && a[x] != 255) {
      int k = a[x];
      lum = (lum * k + 127) / 255;
      cb = (cb * k + 128 * (255 - k) + 127) / 255;
      cr = (cr * k + 128 * (255 - k) + 127) / 255;
    }
    out[0] = (JSAMPLE)lum;
    out[1] = (JSAMPLE)cb;
    out[2] = (JSAMPLE)cr;
  }
  jpeg_write_scanlines(&sink->encoder->co, &sink->row, 1);
}

// `data` is taken over: freed once decoded.
int pg_webp_to_jpeg(uint8_t *data, size_t size, int width, int height, int quality) {
  WebPDecoderConfig decoder;
  int status = open_webp(data, size, width, height, &decoder);
  if (status != PG_OK) return status;

  PgJpegEncoder encoder;
  RowSink sink = {&encoder, malloc((size_t)width * 3)};
  if (!sink.row) return PG_NO_MEMORY;
  pg_range_expand(&sink.range);
  pg_jpeg_start(&encoder, width, height, JCS_YCbCr, quality);
  if (decoder.input.format == 2) status = pg_webp_lossless_rows(data, size, width, height, decoder.input.has_alpha, jpeg_row, &sink);
  else status = pg_webp_lossy_rows(data, size, jpeg_row, &sink);
  free(data);
  if (status == PG_OK && encoder.co.next_scanline != encoder.co.image_height) status = PG_INVALID;
  free(sink.row);
  if (status != PG_OK) return status;
  pg_jpeg_finish(&encoder);
  return PG_OK;
}

// WebP to WebP or JPEG without an RGBA raster: a lossy file's rows (webp_lossy_rows.c: libwebp's
// VP8 decoder, our own for the alpha plane) go
//   WebP: into the encoder's WebPPicture, so the image exists once (1.5 bytes a pixel, 2.5 with
//         alpha) besides the decoders' few rows;
//   JPEG: straight into the encoder, as full-range YCbCr flattened onto black; no plane of the
//         picture is ever whole.
// A lossy (VP8) file decodes row by row. A lossless (VP8L) one is decoded by libwebp into a whole
// ARGB image first (4 bytes a pixel) and converted to YUV from there (for JPEG, into planes of
// ours, then rows), which src/codecs/recode-cost.ts counts separately. Animations are left to the TypeScript path
// (PG_UNSUPPORTED), which takes their first frame.
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include "src/dec/vp8i_dec.h"
#include "src/dec/webpi_dec.h"
#include "pixelgate.h"
#include "webp_rows.h"

// Reads the file's features, checked against the size the caller read from the header.
static int open_webp(const uint8_t *data, size_t size, int width, int height, WebPDecoderConfig *config) {
  if (!WebPInitDecoderConfig(config)) return PG_ENCODE_FAILED;
  VP8StatusCode status = WebPGetFeatures(data, size, &config->input);
  if (status == VP8_STATUS_UNSUPPORTED_FEATURE) return PG_UNSUPPORTED;
  if (status != VP8_STATUS_OK) return PG_INVALID;
  if (config->input.has_animation) return PG_UNSUPPORTED;
  if (config->input.width != width || config->input.height != height) return PG_INVALID;
  return PG_OK;
}

// Decodes into `planes` (and `alpha`, when not null: one byte a pixel, `alpha_stride` apart).
static int decode_into(const uint8_t *data, size_t size, WebPDecoderConfig *config, const PgPlanes *planes, uint8_t *alpha,
                       int alpha_stride) {
  int height = config->input.height, chroma_rows = (height + 1) / 2;
  WebPDecBuffer *out = &config->output;
  out->colorspace = alpha ? MODE_YUVA : MODE_YUV;
  out->is_external_memory = 1;
  WebPYUVABuffer *buf = &out->u.YUVA;
  buf->y = planes->y;
  buf->u = planes->u;
  buf->v = planes->v;
  buf->y_stride = planes->y_stride;
  buf->u_stride = buf->v_stride = planes->uv_stride;
  buf->y_size = (size_t)planes->y_stride * height;
  buf->u_size = buf->v_size = (size_t)planes->uv_stride * chroma_rows;
  buf->a = alpha;
  buf->a_stride = alpha_stride;
  buf->a_size = alpha ? (size_t)alpha_stride * height : 0;
  VP8StatusCode status = WebPDecode(data, size, config);
  WebPFreeDecBuffer(out); // external memory: only the decoder's own state
  if (status == VP8_STATUS_OUT_OF_MEMORY) return PG_NO_MEMORY;
  return status == VP8_STATUS_OK ? PG_OK : PG_INVALID;
}

// A lossy file's row into the encoder's picture (alpha opaque when the file has none).
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
  if (decoder.input.format == 2) {
    PgPlanes planes = {picture.y, picture.u, picture.v, picture.y_stride, picture.uv_stride};
    status = decode_into(data, size, &decoder, &planes, picture.a, picture.a_stride);
  } else {
    status = pg_webp_lossy_rows(data, size, picture_row, &picture);
  }
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

// Rows first_row .. first_row + count - 1 of the picture: luma rows `y_stride` apart, chroma
// rows (of the 2x2 cells) `uv_stride` apart starting with first_row's, alpha (or null) `a_stride`.
// Each pixel is flattened onto black: in YCbCr, black is (0, 128, 128) and the mix is linear.
static void write_rows(RowSink *sink, const uint8_t *y, const uint8_t *u, const uint8_t *v, const uint8_t *a, int y_stride,
                       int uv_stride, int a_stride, int first_row, int count) {
  int width = (int)sink->encoder->co.image_width;
  for (int i = 0; i < count; i++) {
    const uint8_t *luma = y + (size_t)i * y_stride, *alpha = a ? a + (size_t)i * a_stride : NULL;
    size_t cell = (size_t)(((first_row + i) >> 1) - (first_row >> 1)) * uv_stride;
    JSAMPLE *out = sink->row;
    for (int x = 0; x < width; x++, out += 3) {
      int cb = sink->range.chroma[u[cell + x / 2]], cr = sink->range.chroma[v[cell + x / 2]], lum = sink->range.luma[luma[x]];
      if (alpha && alpha[x] != 255) {
        int k = alpha[x];
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
}

// A lossy file's row into the JPEG encoder.
static void jpeg_row(void *sink, const uint8_t *y, const uint8_t *u, const uint8_t *v, const uint8_t *a, int row) {
  write_rows(sink, y, u, v, a, 0, 0, 0, row, 1);
}

// A lossless file: libwebp holds it whole as ARGB anyway, so it is decoded into YUV planes of
// ours (the file freed), then written as rows.
static int lossless_rows(uint8_t *data, size_t size, WebPDecoderConfig *decoder, RowSink *sink, int quality) {
  int width = decoder->input.width, height = decoder->input.height, cw = (width + 1) / 2;
  size_t luma = (size_t)width * height, chroma = (size_t)cw * ((height + 1) / 2);
  uint8_t *pixels = malloc(luma + 2 * chroma + (decoder->input.has_alpha ? luma : 0));
  if (!pixels) return PG_NO_MEMORY;
  PgPlanes planes = {pixels, pixels + luma, pixels + luma + chroma, width, cw};
  uint8_t *alpha = decoder->input.has_alpha ? pixels + luma + 2 * chroma : NULL;
  int status = decode_into(data, size, decoder, &planes, alpha, width);
  free(data);
  if (status == PG_OK) {
    // Started only now: its coefficient arrays (3 bytes a pixel) take the ARGB image's place.
    pg_jpeg_start(sink->encoder, width, height, JCS_YCbCr, quality);
    write_rows(sink, planes.y, planes.u, planes.v, alpha, width, cw, width, 0, height);
  }
  free(pixels);
  return status;
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
  if (decoder.input.format == 2) {
    status = lossless_rows(data, size, &decoder, &sink, quality);
  } else {
    pg_jpeg_start(&encoder, width, height, JCS_YCbCr, quality);
    status = pg_webp_lossy_rows(data, size, jpeg_row, &sink);
    free(data);
    if (status == PG_OK && encoder.co.next_scanline != encoder.co.image_height) status = PG_INVALID;
  }
  free(sink.row);
  if (status != PG_OK) return status;
  pg_jpeg_finish(&encoder);
  return PG_OK;
}

// WebP to WebP or JPEG without an RGBA raster: libwebp's decoder writes YUV 4:2:0 (and the
// alpha plane) into memory we hand it.
//   WebP: that memory is the encoder's WebPPicture, so the image exists once (1.5 bytes a
//         pixel, 2.5 with alpha) besides the decoder's own buffers.
//   JPEG: into planes of our own, turned in place into full-range YCbCr flattened onto black,
//         then fed to the encoder as rows (jpeg_sink.c).
// A lossy (VP8) file decodes row by row into that memory. A lossless (VP8L) one is decoded by
// libwebp into a whole ARGB image first (4 bytes a pixel) and converted to YUV from there, which
// src/codecs/recode-cost.ts counts separately. Animations are left to the TypeScript path
// (PG_UNSUPPORTED), which takes their first frame.
#include <stdlib.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include "pixelgate.h"

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

// `data` is taken over: freed as soon as the pixels are decoded.
int pg_webp_to_webp(uint8_t *data, size_t size, int width, int height, float quality) {
  WebPConfig config;
  WebPDecoderConfig decoder;
  if (!pg_configure_webp(&config, quality)) return PG_ENCODE_FAILED;
  int status = open_webp(data, size, width, height, &decoder);
  if (status != PG_OK) return status;

  WebPPicture picture;
  if (!WebPPictureInit(&picture)) return PG_ENCODE_FAILED;
  picture.use_argb = 0;
  // The encoder leaves the alpha plane out again when every pixel turns out opaque.
  picture.colorspace = decoder.input.has_alpha ? WEBP_YUV420A : WEBP_YUV420;
  picture.width = width;
  picture.height = height;
  if (!WebPPictureAlloc(&picture)) return PG_NO_MEMORY;
  PgPlanes planes = {picture.y, picture.u, picture.v, picture.y_stride, picture.uv_stride};
  status = decode_into(data, size, &decoder, &planes, picture.a, picture.a_stride);
  free(data);
  if (status != PG_OK) {
    WebPPictureFree(&picture);
    return status;
  }
  return pg_encode_picture(&picture, &config);
}

// WebP's studio-range YUV (BT.601: luma 16-235, chroma 16-240) as JPEG's full-range YCbCr.
static uint8_t full_luma(int y) {
  int v = ((y - 16) * 255 * 2 + 219) / (219 * 2);
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static uint8_t full_chroma(int c, int alpha_sum, int pixels) {
  // Scaled about 128 by the cell's mean alpha: the same as flattening each pixel onto black,
  // since black is (0, 128, 128) and YCbCr is linear in RGB.
  float v = 128.0f + (float)(c - 128) * (float)alpha_sum / (224.0f * (float)pixels);
  return (uint8_t)(v < 0.0f ? 0 : v > 255.0f ? 255 : (int)(v + 0.5f));
}

// In place: studio range to full range, and with `alpha` every pixel flattened onto black.
static void to_jpeg_range(const PgPlanes *p, const uint8_t *alpha, int width, int height) {
  for (int y = 0; y < height; y++) {
    uint8_t *luma = p->y + (size_t)y * p->y_stride;
    const uint8_t *a = alpha ? alpha + (size_t)y * width : NULL;
    for (int x = 0; x < width; x++) luma[x] = a ? (uint8_t)((full_luma(luma[x]) * a[x] + 127) / 255) : full_luma(luma[x]);
  }
  for (int cy = 0; cy < (height + 1) / 2; cy++) {
    uint8_t *u = p->u + (size_t)cy * p->uv_stride, *v = p->v + (size_t)cy * p->uv_stride;
    for (int cx = 0; cx < (width + 1) / 2; cx++) {
      int sum = 255, pixels = 1; // opaque
      if (alpha) {
        sum = pixels = 0;
        for (int y = 2 * cy; y < 2 * cy + 2 && y < height; y++)
          for (int x = 2 * cx; x < 2 * cx + 2 && x < width; x++, pixels++) sum += alpha[(size_t)y * width + x];
      }
      u[cx] = full_chroma(u[cx], sum, pixels);
      v[cx] = full_chroma(v[cx], sum, pixels);
    }
  }
}

// `data` is taken over: freed as soon as the pixels are decoded.
int pg_webp_to_jpeg(uint8_t *data, size_t size, int width, int height, int quality) {
  WebPDecoderConfig decoder;
  int status = open_webp(data, size, width, height, &decoder);
  if (status != PG_OK) return status;

  int cw = (width + 1) / 2, ch = (height + 1) / 2;
  size_t luma = (size_t)width * height, chroma = (size_t)cw * ch;
  uint8_t *pixels = malloc(luma + 2 * chroma);
  // Alpha on its own, freed once flattened: the encoder's coefficients need the room.
  uint8_t *alpha = decoder.input.has_alpha ? malloc(luma) : NULL;
  if (!pixels || (decoder.input.has_alpha && !alpha)) return PG_NO_MEMORY;
  PgPlanes planes = {pixels, pixels + luma, pixels + luma + chroma, width, cw};
  status = decode_into(data, size, &decoder, &planes, alpha, width);
  free(data);
  if (status == PG_OK) to_jpeg_range(&planes, alpha, width, height);
  free(alpha);
  if (status != PG_OK) {
    free(pixels);
    return status;
  }
  pg_jpeg_from_planes(&planes, width, height, quality, pixels);
  return PG_OK;
}

// JPEG to lossy WebP: the decoder writes straight into the WebPPicture's YUV planes, so the
// image exists once (1.5 bytes a pixel) instead of as RGBA rasters and their copies.
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>
#include "pixelgate.h"
#include "src/enc/vp8i_enc.h"
#include "src/utils/bit_writer_utils.h"
#include "webp_alpha.h"

// Set by pg_webp_low_memory for this instance's one encode (src/codecs/native.ts WebpSettings).
static int low_memory;

void pg_webp_low_memory(int on) { low_memory = on; }

// The most libwebp's token buffer may take (pg_webp_token_cap; 0: no cap). The caller prices the
// tokens from what the upload suggests; a picture denser than that (a low-quality JPEG written
// at a high quality) stops at the cap and is coded again as it goes (pg_encode_picture).
void pg_webp_token_cap(size_t bytes) { VP8TBufferMaxBytes = bytes; }

// The settings of src/codecs/webp.ts (libwebp's defaults, method 4), quality from the caller;
// low_memory when the caller's estimate of libwebp's token buffer would not fit.
int pg_configure_webp(WebPConfig *config, float quality) {
  if (!WebPConfigInit(config)) return 0;
  config->quality = quality;
  config->method = 4;
  config->low_memory = low_memory;
  return WebPValidateConfig(config);
}

// `picture` set up and allocated as YUV 4:2:0 planes (and an alpha plane), w x h, ready for
// decoders to write into.
int pg_yuv_picture(WebPPicture *picture, int w, int h, int alpha) {
  if (!WebPPictureInit(picture)) return PG_ENCODE_FAILED;
  picture->use_argb = 0;
  picture->colorspace = alpha ? WEBP_YUV420A : WEBP_YUV420;
  picture->width = w;
  picture->height = h;
  return WebPPictureAlloc(picture) ? PG_OK : PG_NO_MEMORY;
}

// `data` is taken over: freed as soon as the pixels are decoded.
int pg_jpeg_to_webp(uint8_t *data, size_t size, int width, int height, int orientation, float quality) {
  WebPConfig config;
  if (!pg_configure_webp(&config, quality)) return PG_ENCODE_FAILED;
  PgSource source;
  int status = pg_source_open(&source, data, size, width, height, orientation);
  if (status != PG_OK) return status;

  WebPPicture picture;
  status = pg_yuv_picture(&picture, source.width, source.height, 0);
  if (status != PG_OK) return status;

  PgPlanes planes = {picture.y, picture.u, picture.v, picture.y_stride, picture.uv_stride};
  PgRange range;
  pg_range_studio(&range);
  pg_source_to_planes(&source, &planes, &range);
  jpeg_destroy_decompress(&source.cinfo);
  free(data);

  return pg_encode_picture(&picture, &config);
}

// Where the WebP goes: to JavaScript as libwebp writes it (the pg_write import), so WASM memory
// holds no copy of the file besides libwebp's own partitions. With an alpha chunk, libwebp's
// RIFF header (its first 12 bytes) gives way to ours, the VP8X chunk and the ALPH chunk.
__attribute__((import_module("env"), import_name("pg_write"))) void pg_write(const void *data, size_t length);

// libwebp's token partition leaves as it grows past its first buffer (native/libwebp-memory.patch):
// JavaScript holds those bytes (pg_hold) until libwebp reaches them in the file (pg_release_held).
// Else the partition doubled its buffer as it grew, holding up to three times its size in WASM
// memory, which never shrinks.
__attribute__((import_module("env"), import_name("pg_hold"))) void pg_hold(const void *data, size_t length);
__attribute__((import_module("env"), import_name("pg_release_held"))) void pg_release_held(void);

static int pg_webp_hold(const uint8_t *data, size_t size) {
  pg_hold(data, size);
  return 1;
}

static int pg_webp_release(void) {
  pg_release_held();
  return 1;
}

typedef struct {
  const PgBitWriter *alpha; // NULL: the file is libwebp's as it is
  int width, height;
  uint8_t riff[12]; // libwebp's RIFF header, until it is whole
  size_t riff_seen;
} PgWebpOutput;

static int pg_webp_write(const uint8_t *data, size_t size, const WebPPicture *picture) {
  PgWebpOutput *out = picture->custom_ptr;
  if (out->alpha && out->riff_seen < sizeof out->riff) {
    size_t take = size < sizeof out->riff - out->riff_seen ? size : sizeof out->riff - out->riff_seen;
    memcpy(out->riff + out->riff_seen, data, take);
    out->riff_seen += take;
    data += take;
    size -= take;
    if (out->riff_seen < sizeof out->riff) return 1;
    uint32_t riff_size = (uint32_t)out->riff[4] | (uint32_t)out->riff[5] << 8 | (uint32_t)out->riff[6] << 16 | (uint32_t)out->riff[7] << 24;
    uint8_t headers[38];
    pg_write(headers, pg_webp_alpha_headers(headers, riff_size, out->alpha, out->width, out->height));
    pg_write(out->alpha->data, out->alpha->size);
    if (out->alpha->size & 1) pg_write("", 1); // the chunk's padding byte
  }
  if (size > 0) pg_write(data, size);
  return 1;
}

// Encodes and frees `picture`; the file leaves through pg_write (the call's output stays empty).
// libwebp encodes the colour; an alpha plane with any transparency goes into a chunk of our own
// coder (webp_alpha.c), after libwebp's usual clean-up of what hides under transparent pixels.
int pg_encode_picture(WebPPicture *picture, const WebPConfig *config) {
  PgBitWriter alpha = {0};
  if (picture->a) {
    if (WebPPictureHasTransparency(picture)) {
      if (!config->exact) WebPCleanupTransparentArea(picture);
      int status = pg_alpha_chunk(picture->a, picture->a_stride, picture->width, picture->height, &alpha);
      if (status != PG_OK) return status;
    }
    picture->a = NULL; // still freed with the picture's other planes
    picture->colorspace = WEBP_YUV420;
  }
  PgWebpOutput output = {alpha.data ? &alpha : NULL, picture->width, picture->height, {0}, 0};
  picture->writer = pg_webp_write;
  picture->custom_ptr = &output;
  VP8BitWriterSpill = pg_webp_hold;
  VP8BitWriterUnspill = pg_webp_release;
  VP8TBufferCapped = 0;
  int ok = WebPEncode(config, picture);
  if (!ok && VP8TBufferCapped && !config->low_memory) {
    // Nothing was written yet (the file is written after the last pass), and the picture is
    // as it was: coded again as it goes, the token pages' memory reused.
    WebPConfig as_it_goes = *config;
    as_it_goes.low_memory = 1;
    ok = WebPEncode(&as_it_goes, picture);
  }
  int error = picture->error_code;
  WebPPictureFree(picture);
  free(alpha.data);
  if (!ok) return error == VP8_ENC_ERROR_OUT_OF_MEMORY || error == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_ENCODE_FAILED;
  pg_set_output(NULL, 0);
  return PG_OK;
}

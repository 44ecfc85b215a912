// JPEG to lossy WebP: the decoder writes straight into the WebPPicture's YUV planes, so the
// image exists once (1.5 bytes a pixel) instead of as RGBA rasters and their copies.
#include <stdlib.h>
#include <webp/encode.h>
#include "pixelgate.h"
#include "webp_alpha.h"

// Set by pg_webp_low_memory for this instance's one encode (src/codecs/native.ts WebpSettings).
static int low_memory;

void pg_webp_low_memory(int on) { low_memory = on; }

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

// Encodes and frees `picture`; the file becomes the call's output. libwebp encodes the colour;
// an alpha plane with any transparency goes into a chunk of our own coder (webp_alpha.c), after
// libwebp's usual clean-up of what hides under transparent pixels.
int pg_encode_picture(WebPPicture *picture, const WebPConfig *config) {
  PgBitWriter alpha = {0};
  int width = picture->width, height = picture->height;
  if (picture->a) {
    if (WebPPictureHasTransparency(picture)) {
      if (!config->exact) WebPCleanupTransparentArea(picture);
      int status = pg_alpha_chunk(picture->a, picture->a_stride, width, height, &alpha);
      if (status != PG_OK) return status;
    }
    picture->a = NULL; // still freed with the picture's other planes
    picture->colorspace = WEBP_YUV420;
  }
  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  picture->writer = WebPMemoryWrite;
  picture->custom_ptr = &writer;
  int ok = WebPEncode(config, picture);
  int error = picture->error_code;
  WebPPictureFree(picture);
  if (!ok) {
    WebPMemoryWriterClear(&writer);
    free(alpha.data);
    return error == VP8_ENC_ERROR_OUT_OF_MEMORY || error == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_ENCODE_FAILED;
  }
  if (!alpha.data) {
    pg_set_output(writer.mem, writer.size);
    return PG_OK;
  }
  uint8_t *file;
  size_t size;
  int status = pg_webp_with_alpha(writer.mem, writer.size, &alpha, width, height, &file, &size);
  WebPMemoryWriterClear(&writer);
  free(alpha.data);
  if (status == PG_OK) pg_set_output(file, size);
  return status;
}

// The encoder behind the two band sinks (raster_sink.c: RGBA rows; planes_sink.c: YCbCr
// planes): a WebPPicture filled band by band and encoded at the end, or a JPEG encoder fed
// scanlines as they come.
#include <webp/encode.h>
#include "pixelgate.h"

// Starts an encode of a w x h image; JPEG scanlines will arrive in `jpeg_input` (RGB or YCbCr).
// 0 when the picture's memory could not be had.
int pg_band_encoder_begin(PgBandEncoder *e, int webp, int w, int h, int alpha, int quality, J_COLOR_SPACE jpeg_input) {
  e->webp = webp;
  e->quality = (float)quality;
  if (webp) {
    return pg_yuv_picture(&e->picture, w, h, alpha) == PG_OK;
  }
  pg_jpeg_start(&e->jpeg, w, h, jpeg_input, quality);
  return 1;
}

// Finishes the file (every row written) and makes it the call's output.
int pg_band_encoder_end(PgBandEncoder *e) {
  if (!e->webp) {
    pg_jpeg_finish(&e->jpeg);
    return PG_OK;
  }
  WebPConfig config;
  if (!pg_configure_webp(&config, e->quality)) return PG_ENCODE_FAILED;
  return pg_encode_picture(&e->picture, &config);
}

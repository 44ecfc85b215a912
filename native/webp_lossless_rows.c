// A lossless WebP's rows (webp_rows.h) from our own VP8L decoder (vp8l.h), where libwebp would
// decode the whole ARGB image first (4 bytes a pixel). The file need not be in WASM memory: the
// decoder can read it from JavaScript a chunk at a time. Each ARGB row becomes YUV the way
// libwebp's decoder makes it for a YUV output buffer (its own WebPConvertARGBToY and
// WebPConvertARGBToUV: chroma stored on even rows, averaged in on odd ones), so the samples are
// the ones libwebp's decode into planes gave; rows go out in pairs once their chroma is done.
#include <stdlib.h>
#include <webp/decode.h>
#include "src/dec/webpi_dec.h"
#include "src/dsp/dsp.h"
#include "pixelgate.h"
#include "vp8l.h"
#include "webp_rows.h"

int pg_webp_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features, size_t *vp8l_offset) {
  // Without `data`, a start of the file long enough for its headers (metadata chunks such as
  // ICCP may come first): 4 KB, then 8 times more until they are whole.
  uint8_t *start = NULL;
  size_t n = size;
  VP8StatusCode status = VP8_STATUS_NOT_ENOUGH_DATA;
  for (size_t want = 4096; status == VP8_STATUS_NOT_ENOUGH_DATA; want *= 8) {
    if (!data) {
      n = want < size ? want : size;
      free(start);
      if (!(start = malloc(n))) return PG_NO_MEMORY;
      if (!pg_read_at(start, 0, n)) n = 0;
    }
    const uint8_t *head = data ? data : start;
    status = WebPGetFeatures(head, n, features);
    WebPHeaderStructure headers = {.data = head, .data_size = n, .have_all_data = n == size};
    if (status == VP8_STATUS_OK) status = WebPParseHeaders(&headers);
    if (status == VP8_STATUS_UNSUPPORTED_FEATURE && features->has_animation) status = VP8_STATUS_OK; // an animation: told below
    *vp8l_offset = headers.offset;
    if (data || n == size) break;
  }
  free(start);
  if (status == VP8_STATUS_UNSUPPORTED_FEATURE) return PG_UNSUPPORTED;
  return status == VP8_STATUS_OK ? PG_OK : PG_INVALID;
}

int pg_webp_lossless_rows(const uint8_t *data, size_t size, int width, int height, int alpha, PgYuvRow each, void *sink) {
  WebPBitstreamFeatures features;
  size_t offset;
  int status = pg_webp_features(data, size, &features, &offset);
  if (status != PG_OK) return status;
  if (features.format != 2 || features.has_animation) return PG_INVALID;
  PgVp8l *decoder;
  // As libwebp: the stream runs to the end of the file.
  status = pg_vp8l_open(&decoder, data, offset, size - offset, width, height);
  if (status != PG_OK) return status;
  WebPInitConvertARGBToYUV();
  size_t cw = (size_t)(width + 1) / 2;
  // Two rows of luma and alpha (the pair sharing a chroma row), and that chroma row.
  uint8_t *rows = malloc(4 * (size_t)width + 2 * cw);
  uint8_t *luma[2] = {rows, rows + width}, *alphas[2] = {rows + 2 * (size_t)width, rows + 3 * (size_t)width};
  uint8_t *u = rows + 4 * (size_t)width, *v = u + cw;
  if (!rows) status = PG_NO_MEMORY;
  for (int y = 0; status == PG_OK && y < height; y++) {
    const uint32_t *argb = pg_vp8l_row(decoder, &status);
    if (!argb) break;
    WebPConvertARGBToY(argb, luma[y & 1], width);
    WebPConvertARGBToUV(argb, u, v, width, !(y & 1));
    for (int x = 0; alpha && x < width; x++) alphas[y & 1][x] = (uint8_t)(argb[x] >> 24);
    if (!(y & 1) && y + 1 < height) continue; // its chroma is finished by the next row
    for (int r = y & ~1; r <= y; r++) each(sink, luma[r & 1], u, v, alpha ? alphas[r & 1] : NULL, r);
  }
  free(rows);
  pg_vp8l_free(decoder);
  return status;
}

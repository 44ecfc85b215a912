// A lossy WebP's rows (webp_rows.h): libwebp's VP8 decoder as VP8Decode runs it, with our
// row callback instead of an output buffer, so the picture is never whole in the decoder (only
// its few rows of cache). The ALPH chunk is not given to libwebp, which would allocate the
// plane whole (twice over, with a lossless stream); our alpha_rows.c hands its rows out as the
// picture's come, in the same order.
#include <webp/decode.h>
#include "src/dec/vp8i_dec.h"
#include "src/dec/webpi_dec.h"
#include "pixelgate.h"
#include "vp8l.h"
#include "webp_rows.h"

typedef struct {
  PgYuvRow each;
  void *sink;
  PgAlphaRows *alpha;
  int alpha_status;
} Rows;

// libwebp's row callback: rows mb_y .. mb_y + mb_h - 1, chroma starting with mb_y's (even).
static int put_rows(const VP8Io *io) {
  Rows *r = io->opaque;
  for (int i = 0; i < io->mb_h; i++) {
    const uint8_t *a = NULL;
    if (r->alpha && !(a = pg_alpha_row(r->alpha, &r->alpha_status))) return 0;
    int row = io->mb_y + i;
    size_t cell = (size_t)((row >> 1) - (io->mb_y >> 1)) * io->uv_stride;
    r->each(r->sink, io->y + (size_t)i * io->y_stride, io->u + cell, io->v + cell, a, row);
  }
  return 1;
}

int pg_webp_lossy_rows(const uint8_t *data, size_t size, PgYuvRow each, void *sink) {
  WebPHeaderStructure headers = {.data = data, .data_size = size, .have_all_data = 1};
  if (WebPParseHeaders(&headers) != VP8_STATUS_OK || headers.is_lossless) return PG_INVALID;
  VP8Io io;
  if (!VP8InitIo(&io)) return PG_ENCODE_FAILED;
  Rows rows = {each, sink, NULL, PG_OK};
  io.data = headers.data + headers.offset;
  io.data_size = headers.data_size - headers.offset;
  io.put = put_rows;
  io.opaque = &rows;
  VP8Decoder *decoder = VP8New();
  if (!decoder) return PG_NO_MEMORY;
  int ok = VP8GetHeaders(decoder, &io);
  if (ok && headers.alpha_data) {
    rows.alpha_status = pg_alpha_open(&rows.alpha, headers.alpha_data, headers.alpha_data_size, io.width, io.height);
    ok = rows.alpha_status == PG_OK;
  }
  ok = ok && VP8Decode(decoder, &io);
  VP8StatusCode status = decoder->status_;
  VP8Delete(decoder);
  pg_alpha_free(rows.alpha);
  if (ok) return PG_OK;
  if (rows.alpha_status != PG_OK) return rows.alpha_status;
  return status == VP8_STATUS_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_INVALID;
}

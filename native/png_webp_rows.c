// The PNG writer's rows from a still WebP file (png_sink.h PgRows, kind PG_FROM_WEBP), without
// the RGBA image ever being whole. Each pass decodes the file again (the file is small next to
// its pixels); the pixels are those of libwebp's own RGBA decode (WebPDecodeRGBA: fancy chroma
// upsampling, alpha straight), which is what the general path's decoder hands out.
//
// Lossy (VP8): the decoding loop of VP8Decode run one macroblock row at a time as the writer
// asks for rows. libwebp's own RGBA output stage (WebPInitCustomIo: upsampler) writes each
// call's rows into a band of ours; its output buffer's address is moved before every call so
// that the rows it is about to write land at the band's start. The band holds the few rows one
// macroblock row produces. The alpha plane (ALPH) is kept from libwebp, which would hold it
// whole: our own decoder (alpha_rows.c) hands its rows out as the band's rows come.
//
// Lossless (VP8L): our own decoder (vp8l.h) hands the rows out one at a time; it holds a window
// of the last pixels decoded (4 MB at most), not the image, and reads the file from JavaScript
// when it is not in WASM memory (`data` NULL, as for a PNG).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include "src/dec/vp8i_dec.h"
#include "src/dec/webpi_dec.h"
#include "png_sink.h"
#include "vp8l.h"

// Rows one macroblock row can emit: 16, the loop filter's delayed rows (up to 8) and the
// upsampler's one row of delay.
enum { LOSSY_BAND_ROWS = 32 };

typedef struct {
  WebPDecParams params; // first: libwebp's output stage gets io->opaque as its WebPDecParams
  WebPDecBuffer output;
  VP8Io io;
  int (*emit)(const VP8Io *io); // libwebp's output stage (CustomPut), called by ours
  VP8Decoder *vp8;
  int critical;                 // between VP8EnterCritical and VP8ExitCritical
  int lossless;
  uint8_t *band;
  int band_capacity, band_first, band_rows;
  PgAlphaRows *alpha;           // lossy: the ALPH chunk's rows, or NULL
  int alpha_status;
  PgVp8l *vp8l;                 // lossless
  size_t vp8l_offset;           // where its stream starts in the file
} WebpRows;

static size_t stride_of(const PgRows *r) { return (size_t)r->source_width * 4; }

// Our put: libwebp writes the rows [last_y, last_y + n) at rgba + y * stride, so rgba is set for
// row last_y to land on the band's first row (the address is only ever offset back into it).
static int put_into_band(const VP8Io *io) {
  WebpRows *w = io->opaque;
  int first = w->params.last_y;
  w->output.u.RGBA.rgba = (uint8_t *)((uintptr_t)w->band - (uintptr_t)first * w->output.u.RGBA.stride);
  if (!w->emit(io)) return 0;
  w->band_first = first;
  w->band_rows = w->params.last_y - first;
  if (w->band_rows > w->band_capacity) pg_fail(PG_ENCODE_FAILED); // never: a macroblock row's rows
  for (int i = 0; w->alpha && i < w->band_rows; i++) { // the rows come in order, as the alpha's do
    const uint8_t *alpha = pg_alpha_row(w->alpha, &w->alpha_status);
    if (!alpha) return 0;
    uint8_t *rgba = w->band + (size_t)i * w->output.u.RGBA.stride;
    for (int x = 0; x < io->width; x++) rgba[4 * x + 3] = alpha[x];
  }
  return 1;
}

static void set_rgba_output(WebpRows *w, const PgRows *r, uint8_t *rgba, int rows) {
  WebPInitDecBuffer(&w->output);
  w->output.colorspace = MODE_RGBA;
  w->output.is_external_memory = 1;
  w->output.width = r->source_width;
  w->output.height = rows;
  w->output.u.RGBA.rgba = rgba;
  w->output.u.RGBA.stride = (int)stride_of(r);
  w->output.u.RGBA.size = stride_of(r) * rows;
}

// ---- Lossy: VP8Decode's set-up (DecodeInto), then its loop a macroblock row per call.

static int lossy_start(WebpRows *w, PgRows *r) {
  WebPHeaderStructure headers = {.data = r->data, .data_size = r->size, .have_all_data = 1};
  if (WebPParseHeaders(&headers) != VP8_STATUS_OK || headers.is_lossless) return PG_INVALID;
  VP8InitIo(&w->io);
  w->io.data = headers.data + headers.offset;
  w->io.data_size = headers.data_size - headers.offset;
  WebPResetDecParams(&w->params);
  set_rgba_output(w, r, w->band, w->band_capacity);
  w->params.output = &w->output;
  WebPInitCustomIo(&w->params, &w->io);
  w->emit = w->io.put;
  w->io.put = put_into_band;
  VP8Decoder *dec = w->vp8 = VP8New();
  if (!dec) return PG_NO_MEMORY;
  if (!VP8GetHeaders(dec, &w->io)) return dec->status_ == VP8_STATUS_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_INVALID;
  if (w->io.width != r->source_width || w->io.height != r->source_height) return PG_INVALID;
  if (headers.alpha_data) { // libwebp is not told of it (it would allocate the plane whole)
    int status = pg_alpha_open(&w->alpha, headers.alpha_data, headers.alpha_data_size, w->io.width, w->io.height);
    if (status != PG_OK) return status;
  }
  w->critical = 1;
  if (VP8EnterCritical(dec, &w->io) != VP8_STATUS_OK || !VP8InitFrame(dec, &w->io)) return PG_INVALID;
  dec->mb_y_ = 0;
  return PG_OK;
}

// One macroblock row decoded, reconstructed, filtered and handed to put_into_band.
static int lossy_step(WebpRows *w) {
  VP8Decoder *dec = w->vp8;
  if (dec->mb_y_ >= dec->br_mb_y_) return 0;
  VP8BitReader *tokens = &dec->parts_[dec->mb_y_ & dec->num_parts_minus_one_];
  if (!VP8ParseIntraModeRow(&dec->br_, dec)) return 0;
  for (; dec->mb_x_ < dec->mb_w_; ++dec->mb_x_)
    if (!VP8DecodeMB(dec, tokens)) return 0;
  VP8InitScanline(dec);
  if (!VP8ProcessRow(dec, &w->io)) return 0;
  dec->mb_y_++;
  return 1;
}

// ---- Lossless: our decoder, a row at a time (ARGB words to RGBA bytes).

static int lossless_start(WebpRows *w, PgRows *r) {
  // As libwebp: the stream runs to the end of the file (here, or read from JavaScript).
  return pg_vp8l_open(&w->vp8l, r->data, w->vp8l_offset, r->size - w->vp8l_offset, r->source_width, r->source_height);
}

static void lossless_row(WebpRows *w, PgRows *r, int y) {
  int status;
  const uint32_t *argb = pg_vp8l_row(w->vp8l, &status);
  if (!argb) pg_fail(status);
  for (int x = 0; x < r->source_width; x++) {
    uint32_t p = argb[x];
    uint8_t *q = w->band + 4 * (size_t)x;
    q[0] = (uint8_t)(p >> 16), q[1] = (uint8_t)(p >> 8), q[2] = (uint8_t)p, q[3] = (uint8_t)(p >> 24);
  }
  w->band_first = y;
  w->band_rows = 1;
}

// ---- PgRowSource

static int webp_start(PgRows *r) {
  WebpRows *w = r->state;
  if (!w) {
    WebPBitstreamFeatures features;
    size_t vp8l_offset;
    int status = pg_webp_features(r->data, r->size, &features, &vp8l_offset);
    if (status != PG_OK) return status;
    if (features.has_animation) return PG_UNSUPPORTED; // the general path takes the first frame
    if (features.width != r->source_width || features.height != r->source_height) return PG_INVALID;
    w = r->state = calloc(1, sizeof *w);
    if (!w) return PG_NO_MEMORY;
    w->vp8l_offset = vp8l_offset;
    w->lossless = features.format == 2;
    r->may_have_alpha = features.has_alpha;
    w->band_capacity = w->lossless ? 1 : LOSSY_BAND_ROWS;
    if (w->band_capacity > r->source_height) w->band_capacity = r->source_height;
    w->band = malloc(stride_of(r) * w->band_capacity);
    if (!w->band) return PG_NO_MEMORY;
  }
  w->band_first = w->band_rows = 0;
  return w->lossless ? lossless_start(w, r) : lossy_start(w, r);
}

static const uint8_t *webp_next(PgRows *r) {
  WebpRows *w = r->state;
  int y = r->file_row - 1; // counted already by the caller
  while (y >= w->band_first + w->band_rows) {
    if (w->lossless) lossless_row(w, r, y);
    else if (!lossy_step(w)) pg_fail(w->alpha_status != PG_OK ? w->alpha_status : w->vp8->status_ == VP8_STATUS_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_INVALID);
  }
  return w->band + (size_t)(y - w->band_first) * stride_of(r);
}

static void webp_stop(PgRows *r) {
  WebpRows *w = r->state;
  if (!w) return;
  pg_vp8l_free(w->vp8l);
  pg_alpha_free(w->alpha);
  w->vp8l = NULL;
  w->alpha = NULL;
  w->alpha_status = PG_OK;
  if (!w->vp8) return;
  if (w->critical) VP8ExitCritical(w->vp8, &w->io); // frees the output stage's memory
  VP8Delete(w->vp8);                                  // and the decoder's, the alpha plane's
  w->vp8 = NULL;
  w->critical = 0;
}

static void webp_free(PgRows *r) {
  WebpRows *w = r->state;
  if (!w) return;
  free(w->band);
  free(w);
  r->state = NULL;
}

const PgRowSource pg_webp_row_source = {webp_start, webp_next, webp_stop, webp_free};

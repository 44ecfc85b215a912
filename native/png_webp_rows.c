// The PNG writer's rows from a still WebP file (png_sink.h PgRows, kind PG_FROM_WEBP), without
// the RGBA image ever being whole. Each pass decodes the file again (the file is small next to
// its pixels); the pixels are those of libwebp's own RGBA decode (WebPDecodeRGBA: fancy chroma
// upsampling, alpha straight), which is what the general path's decoder hands out.
//
// Lossy (VP8): the decoding loop of VP8Decode run one macroblock row at a time as the writer
// asks for rows. libwebp's own RGBA output stage (WebPInitCustomIo: upsampler, alpha) writes each
// call's rows into a band of ours; its output buffer's address is moved before every call so
// that the rows it is about to write land at the band's start. The band holds the few rows one
// macroblock row produces; the alpha plane (ALPH) is held whole by libwebp, 1 byte a pixel.
//
// Lossless (VP8L): libwebp decodes into a whole ARGB image of its own (4 bytes a pixel: its
// backward references reach anywhere above), so no decoder can hand rows out one at a time. A
// pass decodes bands of rows with libwebp's crop window (it stops at the band's last row), so
// besides libwebp's image only the band (at most BAND_BYTES) is held; a band further down costs
// decoding the rows above it again.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include "src/dec/vp8i_dec.h"
#include "src/dec/webpi_dec.h"
#include "png_sink.h"

#define BAND_BYTES (8u << 20)
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
  dec->alpha_data_ = headers.alpha_data;
  dec->alpha_data_size_ = headers.alpha_data_size;
  if (!VP8GetHeaders(dec, &w->io)) return dec->status_ == VP8_STATUS_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_INVALID;
  if (w->io.width != r->source_width || w->io.height != r->source_height) return PG_INVALID;
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

// ---- Lossless: the band [first, first + rows) through libwebp's crop window.

static void lossless_band(WebpRows *w, PgRows *r, int first) {
  int rows = r->source_height - first < w->band_capacity ? r->source_height - first : w->band_capacity;
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) pg_fail(PG_ENCODE_FAILED);
  config.options.use_cropping = 1;
  config.options.crop_width = r->source_width;
  config.options.crop_top = first;
  config.options.crop_height = rows;
  set_rgba_output(w, r, w->band, rows);
  config.output = w->output;
  VP8StatusCode status = WebPDecode(r->data, r->size, &config);
  if (status != VP8_STATUS_OK) pg_fail(status == VP8_STATUS_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_INVALID);
  w->band_first = first;
  w->band_rows = rows;
}

// ---- PgRowSource

static int webp_start(PgRows *r) {
  WebpRows *w = r->state;
  if (!w) {
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(r->data, r->size, &features);
    if (status == VP8_STATUS_UNSUPPORTED_FEATURE) return PG_UNSUPPORTED;
    if (status != VP8_STATUS_OK) return PG_INVALID;
    if (features.has_animation) return PG_UNSUPPORTED; // the general path takes the first frame
    if (features.width != r->source_width || features.height != r->source_height) return PG_INVALID;
    w = r->state = calloc(1, sizeof *w);
    if (!w) return PG_NO_MEMORY;
    w->lossless = features.format == 2;
    r->may_have_alpha = features.has_alpha;
    int rows = (int)(BAND_BYTES / stride_of(r)) & ~1;
    w->band_capacity = w->lossless ? (rows < 2 ? 2 : rows) : LOSSY_BAND_ROWS;
    if (w->band_capacity > r->source_height) w->band_capacity = r->source_height;
    w->band = malloc(stride_of(r) * w->band_capacity);
    if (!w->band) return PG_NO_MEMORY;
  }
  w->band_first = w->band_rows = 0;
  return w->lossless ? PG_OK : lossy_start(w, r);
}

static const uint8_t *webp_next(PgRows *r) {
  WebpRows *w = r->state;
  int y = r->file_row - 1; // counted already by the caller
  while (y >= w->band_first + w->band_rows) {
    if (w->lossless) lossless_band(w, r, y);
    else if (!lossy_step(w)) pg_fail(w->vp8->status_ == VP8_STATUS_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_INVALID);
  }
  return w->band + (size_t)(y - w->band_first) * stride_of(r);
}

static void webp_stop(PgRows *r) {
  WebpRows *w = r->state;
  if (!w || !w->vp8) return;
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

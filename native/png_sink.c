// Every PNG the service writes, a row at a time: rows come from png_rows.c (a JPEG, PNG or WebP
// upload, a HEIC's planes, or a raster held in JavaScript: rgba_rows.c), are laid out (palette,
// grey, grey + alpha, RGB or RGBA), filtered (png_filter.c) and deflated straight into IDAT
// chunks. The rules (src/codecs/png.ts says them to callers):
// - quality 100: lossless in the smallest exact layout (a palette for at most 256 colours when
//   that is not a grey image of more than 16, 8-bit grey for grey images, RGB when opaque);
// - below 100: a palette of 2^(quality/10) colours (png_palette.c), and the lossless file is
//   written too and wins when smaller (abandoned as soon as its data is longer);
// - deflate (png_deflate.c, libdeflate a part at a time) at a flat level for palettes and for
//   parts whose rows filter to mostly zeros, a faster one for photographic parts.
// Only IHDR, PLTE, tRNS, IDAT and IEND are written.
//
// The same writer takes rows pushed from JavaScript a band at a time (png_push.c, the local
// upscaler's output): in one pass there are no statistics, so those files are RGB, or RGBA when
// the caller says the rows may be translucent.
//
// Where the file goes: to JavaScript a chunk at a time through the pg_write import as it is
// deflated, so it never exists whole in WASM memory. Below quality 100 the palette file goes out
// that way; the lossless candidate is kept here in a buffer the palette file's size (it is given
// up as soon as its data is longer), and when it wins it becomes the call's output instead.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h> // crc32
#include "png_sink.h"

// Hands `length` bytes of the output file to JavaScript, which copies them.
__attribute__((import_module("env"), import_name("pg_write"))) void pg_write(const void *data, size_t length);

enum { GRAY = 0, RGB = 2, PALETTE = 3, GRAY_ALPHA = 4, RGBA = 6 };
// About one IDAT chunk's data (one compressed part of png_deflate.c).
#define IDAT_BYTES (256u << 10)

typedef struct {
  int color_type, bit_depth, bpp, filter;
  const PgPalette *palette;
  const PgStats *stats;
} Layout;

typedef struct {
  int to_js;
  uint8_t *data;
  size_t size, cap;
  size_t limit; // buffered: give up once the image data passes this (0: no limit)
  size_t image_data;
  int over;
} Output;

static void put(Output *o, const void *bytes, size_t n) {
  if (o->to_js) {
    pg_write(bytes, n);
    o->size += n;
    return;
  }
  if (o->size + n > o->cap) {
    size_t cap = o->cap ? o->cap : 1 << 16;
    while (cap < o->size + n) cap *= 2;
    uint8_t *grown = realloc(o->data, cap);
    if (!grown) pg_fail(PG_NO_MEMORY);
    o->data = grown;
    o->cap = cap;
  }
  memcpy(o->data + o->size, bytes, n);
  o->size += n;
}

static void put_u32(uint8_t *at, uint32_t v) {
  at[0] = (uint8_t)(v >> 24), at[1] = (uint8_t)(v >> 16), at[2] = (uint8_t)(v >> 8), at[3] = (uint8_t)v;
}

static void chunk(Output *o, const char *type, const uint8_t *data, size_t length) {
  uint8_t head[8], tail[4];
  put_u32(head, (uint32_t)length);
  memcpy(head + 4, type, 4);
  uLong crc = crc32(crc32(0L, Z_NULL, 0), head + 4, 4);
  if (length) crc = crc32(crc, data, (uInt)length);
  put_u32(tail, (uint32_t)crc);
  put(o, head, 8);
  if (length) put(o, data, length);
  put(o, tail, 4);
}

static size_t row_bytes(const Layout *l, int width) {
  int channels = l->color_type == RGBA ? 4 : l->color_type == RGB ? 3 : l->color_type == GRAY_ALPHA ? 2 : 1;
  return ((size_t)width * channels * l->bit_depth + 7) / 8;
}

// One RGBA row in the layout's samples.
static void lay_out(const Layout *l, const uint8_t *px, int width, uint8_t *raw) {
  switch (l->color_type) {
    case GRAY:
      for (int x = 0; x < width; x++) raw[x] = px[4 * x];
      return;
    case GRAY_ALPHA:
      for (int x = 0; x < width; x++) raw[2 * x] = px[4 * x], raw[2 * x + 1] = px[4 * x + 3];
      return;
    case RGB:
      for (int x = 0; x < width; x++) raw[3 * x] = px[4 * x], raw[3 * x + 1] = px[4 * x + 1], raw[3 * x + 2] = px[4 * x + 2];
      return;
    case RGBA:
      memcpy(raw, px, (size_t)width * 4);
      return;
  }
  int depth = l->bit_depth, per_byte = 8 / depth;
  if (depth == 8) {
    for (int x = 0; x < width; x++) raw[x] = (uint8_t)pg_palette_index(l->palette, l->stats, px + 4 * x);
    return;
  }
  memset(raw, 0, row_bytes(l, width));
  for (int x = 0; x < width; x++) {
    int index = pg_palette_index(l->palette, l->stats, px + 4 * x);
    raw[x / per_byte] |= (uint8_t)(index << (8 - depth * (x % per_byte + 1)));
  }
}

static Layout palette_layout(const PgPalette *p, const PgStats *s) {
  int n = p->entries;
  Layout l = {PALETTE, n <= 2 ? 1 : n <= 4 ? 2 : n <= 16 ? 4 : 8, 1, 0, p, s};
  return l;
}

// The smallest exact layout, from the statistics.
static Layout lossless_layout(const PgPalette *exact, const PgStats *s) {
  if (s->exact_count <= PG_EXACT_MAX && (s->exact_count <= 16 || !s->gray)) return palette_layout(exact, s);
  Layout l = {RGBA, 8, 4, 1, NULL, s};
  if (s->gray) l.color_type = s->alpha ? GRAY_ALPHA : GRAY, l.bpp = s->alpha ? 2 : 1;
  else if (!s->alpha) l.color_type = RGB, l.bpp = 3;
  return l;
}

// Each compressed part of the image data becomes one IDAT chunk.
static void put_idat(void *ctx, const uint8_t *data, size_t n) {
  Output *o = ctx;
  chunk(o, "IDAT", data, n);
  o->image_data += n;
  if (o->limit && o->image_data > o->limit) o->over = 1;
}

// One file being written: its layout, where it goes, the rows' filter and deflate state.
struct PgPngWriter {
  Layout l;
  Output *o;
  Output own; // pg_png_writer_new's: to JavaScript
  PgDeflate z;
  PgFilter filter;
  uint8_t *raw, *prev; // this row in the layout's samples, and the one above (zeros at first)
  size_t n;
  int width;
};

// Starts the file in `l`: signature, IHDR, the palette if any.
static int writer_begin(PgPngWriter *w, const Layout *l, Output *o, int width, int height) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  w->l = *l, w->o = o, w->width = width;
  w->n = row_bytes(l, width);
  w->filter = (PgFilter){l->bpp, 0};
  w->raw = malloc(w->n), w->prev = calloc(w->n, 1);
  if (!w->raw || !w->prev || pg_deflate_begin(&w->z, w->n, l->filter, put_idat, o) != PG_OK) return PG_NO_MEMORY;
  put(o, signature, 8);
  uint8_t ihdr[13] = {0};
  put_u32(ihdr, (uint32_t)width);
  put_u32(ihdr + 4, (uint32_t)height);
  ihdr[8] = (uint8_t)l->bit_depth;
  ihdr[9] = (uint8_t)l->color_type;
  chunk(o, "IHDR", ihdr, 13);
  if (l->palette) {
    const PgPalette *p = l->palette;
    uint8_t plte[256 * 3], trns[256];
    int last = -1;
    for (int k = 0; k < p->entries; k++) {
      memcpy(plte + 3 * k, p->rgba + 4 * k, 3);
      trns[k] = p->rgba[4 * k + 3];
      if (trns[k] < 255) last = k;
    }
    chunk(o, "PLTE", plte, (size_t)p->entries * 3);
    if (last >= 0) chunk(o, "tRNS", trns, (size_t)last + 1); // up to the last entry not opaque
  }
  return PG_OK;
}

// The next RGBA row, laid out, filtered and deflated.
static void writer_row(PgPngWriter *w, const uint8_t *px) {
  lay_out(&w->l, px, w->width, w->raw);
  uint8_t *filtered = pg_deflate_room(&w->z, w->n + 1);
  if (w->l.filter) {
    pg_filter_row(&w->filter, w->raw, w->prev, (int)w->n, filtered);
  } else {
    filtered[0] = 0;
    memcpy(filtered + 1, w->raw, w->n);
  }
  uint8_t *t = w->raw;
  w->raw = w->prev, w->prev = t;
}

// The last part of the image data and IEND (unless the file went over its limit); frees the state.
static void writer_end(PgPngWriter *w) {
  if (!w->o->over) pg_deflate_end(&w->z);
  pg_deflate_free(&w->z);
  free(w->raw), free(w->prev);
  if (!w->o->over) chunk(w->o, "IEND", NULL, 0);
}

// Writes the whole file in `l` to `o` (or stops once it is over its limit).
static int write_png(PgRows *rows, const Layout *l, Output *o) {
  int status = pg_rows_start(rows, 1);
  if (status != PG_OK) return status;
  PgPngWriter w = {0};
  if (writer_begin(&w, l, o, rows->pass_width, rows->pass_height) != PG_OK) return PG_NO_MEMORY;
  for (int y = 0; y < rows->pass_height && !o->over; y++) writer_row(&w, pg_rows_next(rows));
  writer_end(&w);
  pg_rows_stop(rows);
  return PG_OK;
}

PgPngWriter *pg_png_writer_new(int width, int height, int alpha) {
  PgPngWriter *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->own.to_js = 1;
  Layout l = {alpha ? RGBA : RGB, 8, alpha ? 4 : 3, 1, NULL, NULL};
  if (writer_begin(w, &l, &w->own, width, height) != PG_OK) return NULL; // the instance is dropped
  return w;
}

void pg_png_writer_row(PgPngWriter *w, const uint8_t *rgba) { writer_row(w, rgba); }

void pg_png_writer_end(PgPngWriter *w) {
  writer_end(w);
  free(w);
}

static int palette_size(int quality) {
  int n = (int)lround(pow(2.0, quality / 10.0));
  return n < 2 ? 2 : n > 256 ? 256 : n;
}

static int encode(PgRows *rows, PgStats *stats, int quality) {
  int status = pg_stats_gather(stats, rows, quality < 100);
  if (status != PG_OK) return status;
  PgPalette exact;
  pg_palette_exact(&exact, stats);
  Layout lossless = lossless_layout(&exact, stats);
  if (quality >= 100) {
    Output out = {1};
    return write_png(rows, &lossless, &out);
  }

  PgPalette quantized, *palette = &exact;
  if (stats->exact_count > palette_size(quality)) {
    status = pg_palette_median_cut(&quantized, stats, palette_size(quality));
    if (status != PG_OK) return status;
    palette = &quantized;
  }
  free(stats->bins); // the histogram has done its work: the files need the memory
  stats->bins = NULL;
  Output small = {1};
  Layout indexed = palette_layout(palette, stats);
  status = write_png(rows, &indexed, &small);
  if (palette != &exact) pg_palette_free(palette);
  if (status != PG_OK) return status;
  // Smooth synthetic images can filter down below any palette: the lossless file stands when
  // it is smaller, so quantizing never makes the file bigger. Its buffer is sized once: it is
  // given up one IDAT chunk past the palette file's size.
  Output exact_file = {0, NULL, 0, small.size + IDAT_BYTES + 4096, small.size};
  exact_file.data = malloc(exact_file.cap);
  if (!exact_file.data) return PG_NO_MEMORY;
  status = write_png(rows, &lossless, &exact_file);
  if (status != PG_OK) return status;
  if (!exact_file.over && exact_file.size < small.size) pg_set_output(exact_file.data, exact_file.size);
  else free(exact_file.data);
  return PG_OK;
}

// `data` (a JPEG; NULL for a PNG, which is read through pg_read_at) re-encoded as PNG, handed
// out through pg_write, or the call's output when a lossless candidate beat the palette file. `width`
// and `height` are the file's, as read from its header; `orientation` (JPEG) is applied.
int pg_to_png(int kind, uint8_t *data, size_t size, int width, int height, int orientation, int quality) {
  PgRows rows;
  int status = pg_rows_init(&rows, kind, data, size, width, height, orientation);
  if (status != PG_OK) return status;
  PgStats stats;
  status = encode(&rows, &stats, quality);
  pg_stats_free(&stats);
  pg_rows_free(&rows);
  return status;
}

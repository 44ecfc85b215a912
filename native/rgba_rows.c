// The PNG, GIF and BMP writers' rows from an RGBA raster held in JavaScript (kind PG_FROM_RGBA):
// how encodeImage writes those formats (src/codecs/native.ts encodeRgba). Rows are copied in a
// batch at a time through the pg_read_rgba import, in the order the writer asks for them (top
// down for PNG and GIF, bottom up for BMP), so the raster never exists whole in WASM memory:
// each pass over the picture (statistics, then each file written) copies its rows in once.
#include <limits.h>
#include <stdlib.h>
#include "png_sink.h"

// Copies raster rows [first, first + rows) to `dst`, `width` x 4 bytes each, packed.
__attribute__((import_module("env"), import_name("pg_read_rgba"))) void pg_read_rgba(uint8_t *dst, int first, int rows);

// Rows held per batch: at most this many bytes (at least one row).
#define BATCH_BYTES (256u << 10)

// Whether any pixel of the raster is not opaque, set by the pg_rgba_* call of this instance.
static int raster_alpha;

typedef struct {
  uint8_t *rows;
  int capacity, first, count, last;
} RgbaRows;

static int rgba_start(PgRows *r) {
  RgbaRows *b = r->state;
  if (!b) {
    b = r->state = calloc(1, sizeof *b);
    if (!b) return PG_NO_MEMORY;
    size_t row_bytes = (size_t)r->source_width * 4;
    b->capacity = row_bytes >= BATCH_BYTES ? 1 : (int)(BATCH_BYTES / row_bytes);
    if (b->capacity > r->source_height) b->capacity = r->source_height;
    b->rows = malloc(row_bytes * (size_t)b->capacity);
    if (!b->rows) return PG_NO_MEMORY;
  }
  r->may_have_alpha = raster_alpha;
  b->first = b->count = 0;
  b->last = INT_MAX;
  return PG_OK;
}

// Row `y`, from the batch that holds it: a new batch starts at `y` when the rows go down, and
// ends at `y` when they go up.
static const uint8_t *rgba_row_at(PgRows *r, int y) {
  RgbaRows *b = r->state;
  if (y < b->first || y >= b->first + b->count) {
    int up = y < b->last;
    b->first = up ? (y - b->capacity + 1 > 0 ? y - b->capacity + 1 : 0) : y;
    b->count = r->source_height - b->first < b->capacity ? r->source_height - b->first : b->capacity;
    pg_read_rgba(b->rows, b->first, b->count);
  }
  b->last = y;
  return b->rows + (size_t)(y - b->first) * r->source_width * 4;
}

static void rgba_stop(PgRows *r) { (void)r; }

static void rgba_free(PgRows *r) {
  RgbaRows *b = r->state;
  if (!b) return;
  free(b->rows);
  free(b);
  r->state = NULL;
}

const PgRowSource pg_rgba_row_source = {rgba_start, NULL, rgba_stop, rgba_free, rgba_row_at};

// A width x height raster (`alpha`: some pixel is not opaque) as PNG, the rules of pg_to_png.
int pg_rgba_to_png(int width, int height, int alpha, int quality) {
  raster_alpha = alpha;
  return pg_to_png(PG_FROM_RGBA, NULL, 0, width, height, 1, quality);
}

// The same raster as GIF, or as BMP (then pg_bmp_rows writes it), the rules of pg_to_gif and
// pg_bmp_begin.
int pg_rgba_to_gif(int width, int height, int alpha) {
  raster_alpha = alpha;
  return pg_to_gif(PG_FROM_RGBA, NULL, 0, width, height, 1);
}

int pg_rgba_bmp_begin(int width, int height, int alpha, int chunk_rows) {
  raster_alpha = alpha;
  return pg_bmp_begin(PG_FROM_RGBA, NULL, 0, width, height, 1, chunk_rows);
}

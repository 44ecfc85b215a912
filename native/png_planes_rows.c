// The PNG, GIF and BMP writers' rows from YCbCr 4:2:0 planes held in JavaScript (a HEIC decoded
// by our HEVC decoder or libheif: src/codecs/heic-tiles.ts, heic.ts), kind PG_FROM_PLANES. Each
// pass asks JavaScript for a batch of plane rows at a time (the pg_read_planes import, the band
// layout of planes_sink.c) and converts them to RGBA with the planes' own matrix and range (pg_planes_rgba), so neither an
// RGBA image nor a second copy of the planes exists in WASM memory.
#include <stdlib.h>
#include "png_sink.h"

// Copies plane rows [first, first + rows) (and their chroma rows) into `band`: luma rows
// `width` apart, then BATCH / 2 Cb rows and BATCH / 2 Cr rows, (width + 1) / 2 apart, then alpha
// rows `width` apart when the image has alpha.
__attribute__((import_module("env"), import_name("pg_read_planes"))) void pg_read_planes(uint8_t *band, int first, int rows, int batch);

enum { BATCH = 16 }; // even: a chroma row never straddles two batches

// The planes' encoding, set by pg_planes_to_png for the one encode of this instance.
static struct {
  int alpha, full_range;
  double kr, kb;
} encoding;

typedef struct {
  uint8_t *planes, *rgba;
  int first, rows;
} PlanesRows;

static int planes_start(PgRows *r) {
  PlanesRows *p = r->state;
  if (!p) {
    p = r->state = calloc(1, sizeof *p);
    if (!p) return PG_NO_MEMORY;
    size_t luma = (size_t)r->source_width * BATCH, chroma = (size_t)((r->source_width + 1) / 2) * BATCH;
    p->planes = malloc(luma * (encoding.alpha ? 2 : 1) + chroma);
    p->rgba = malloc(luma * 4);
    if (!p->planes || !p->rgba) return PG_NO_MEMORY;
  }
  r->may_have_alpha = encoding.alpha;
  p->first = p->rows = 0;
  return PG_OK;
}

static const uint8_t *planes_next(PgRows *r) {
  PlanesRows *p = r->state;
  int y = r->file_row - 1, w = r->source_width, cw = (w + 1) / 2;
  if (y >= p->first + p->rows) {
    int n = r->source_height - y < BATCH ? r->source_height - y : BATCH;
    pg_read_planes(p->planes, y, n, BATCH);
    uint8_t *cb = p->planes + (size_t)w * BATCH;
    PgPlanes in = {p->planes, cb, cb + (size_t)cw * (BATCH / 2), w, cw};
    const uint8_t *alpha = encoding.alpha ? cb + (size_t)cw * BATCH : NULL;
    pg_planes_rgba(&in, alpha, w, n, encoding.kr, encoding.kb, encoding.full_range, p->rgba);
    p->first = y;
    p->rows = n;
  }
  return p->rgba + (size_t)(y - p->first) * w * 4;
}

static void planes_stop(PgRows *r) { (void)r; }

static void planes_free(PgRows *r) {
  PlanesRows *p = r->state;
  if (!p) return;
  free(p->planes);
  free(p->rgba);
  free(p);
  r->state = NULL;
}

const PgRowSource pg_planes_row_source = {planes_start, planes_next, planes_stop, planes_free};

static void set_encoding(int alpha, double kr, double kb, int full_range) {
  encoding.alpha = alpha;
  encoding.kr = kr;
  encoding.kb = kb;
  encoding.full_range = full_range;
}

// A width x height image of planes (alpha plane or not; matrix kr, kb; range) as PNG, the rules
// of pg_to_png.
int pg_planes_to_png(int width, int height, int alpha, int quality, double kr, double kb, int full_range) {
  set_encoding(alpha, kr, kb, full_range);
  return pg_to_png(PG_FROM_PLANES, NULL, 0, width, height, 1, quality);
}

// The same planes as GIF, or as BMP (then pg_bmp_rows writes it), the rules of pg_to_gif and
// pg_bmp_begin: their rows are the ones the PNG writer reads, so the three files show the same pixels.
int pg_planes_to_gif(int width, int height, int alpha, double kr, double kb, int full_range) {
  set_encoding(alpha, kr, kb, full_range);
  return pg_to_gif(PG_FROM_PLANES, NULL, 0, width, height, 1);
}

int pg_planes_bmp_begin(int width, int height, int alpha, double kr, double kb, int full_range, int chunk_rows) {
  set_encoding(alpha, kr, kb, full_range);
  return pg_bmp_begin(PG_FROM_PLANES, NULL, 0, width, height, 1, chunk_rows);
}

// A width x height image of planes resized from the span (x0, y0, cw, ch) to out_w x out_h
// (resize.c), the answer's RGBA raster the call's output.
int pg_planes_resize(int width, int height, int alpha, double kr, double kb, int full_range, double x0, double y0, double cw, double ch, int out_w, int out_h) {
  set_encoding(alpha, kr, kb, full_range);
  PgRows rows;
  int status = pg_rows_init(&rows, PG_FROM_PLANES, NULL, 0, width, height, 1);
  if (status != PG_OK) return status;
  return pg_resize_source(&rows, x0, y0, cw, ch, out_w, out_h);
}

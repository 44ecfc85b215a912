// Resizing as the rows come: a file's rows (png_rows.c's sources, in file order; a JPEG already
// scaled by libjpeg's DCT while it decodes, 1/2, 1/4 or 1/8) or a raster's rows copied in from
// JavaScript go through a separable Lanczos-3 filter one row at a time. Each source row is
// filtered across into a ring of as many rows as one output row needs; each output row is then
// filtered down from that ring as soon as its last source row has come. What the call holds is
// the ring, the filter's weights and the output raster (4 bytes a pixel of the *output*), never
// the source image. Colour is filtered premultiplied by alpha, so transparent pixels lend no
// colour to their neighbours. The output leaves through pg_set_output as RGBA; the EXIF
// orientation is applied to it in JavaScript (src/codecs/resize.ts), where it is small.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "png_sink.h"

// The weights of one axis: for output index i, `count[i]` source samples from `first[i]`,
// weighted by w[i * span .. i * span + count[i]).
typedef struct {
  int *first, *count;
  float *w;
  int span;
} Taps;

typedef struct {
  int src_w, src_h, out_w, out_h;
  Taps across, down;
  float *ring;   // `down.span` rows of out_w x 4 floats, filtered across, premultiplied
  float *line;   // one source row, premultiplied
  int next_out;  // the next output row to write
  int last_row;  // the last source row any output row needs
  uint8_t *out;  // the output raster, out_w x out_h RGBA
} Resizer;

static double lanczos3(double x) {
  x = fabs(x);
  if (x < 1e-9) return 1.0;
  if (x >= 3.0) return 0.0;
  double px = M_PI * x;
  return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

// The taps mapping `out` samples onto the span [start, start + length) of `src` samples (a
// centred crop when the span is less than the source). Downscaling widens the kernel by the
// scale, so every source sample under an output sample counts; taps beyond the source's edge
// are dropped and the rest renormalised.
static int taps_init(Taps *t, int src, double start, double length, int out) {
  double scale = length / out;
  double stretch = scale > 1.0 ? scale : 1.0;
  double support = 3.0 * stretch;
  t->span = (int)ceil(2.0 * support) + 2;
  t->first = malloc(sizeof(int) * (size_t)out * 2);
  t->w = malloc(sizeof(float) * (size_t)out * t->span);
  if (!t->first || !t->w) return PG_NO_MEMORY;
  t->count = t->first + out;
  for (int i = 0; i < out; i++) {
    double centre = start + (i + 0.5) * scale;
    int lo = (int)floor(centre - support), hi = (int)ceil(centre + support);
    if (lo < 0) lo = 0;
    if (hi > src) hi = src;
    if (hi - lo > t->span) hi = lo + t->span;
    float *w = t->w + (size_t)i * t->span;
    double sum = 0;
    for (int j = lo; j < hi; j++) sum += w[j - lo] = (float)lanczos3((j + 0.5 - centre) / stretch);
    if (hi <= lo || fabs(sum) < 1e-9) {
      // Nothing under the kernel (cannot happen for a span inside the source): the nearest sample.
      lo = (int)centre < src ? (int)centre : src - 1;
      hi = lo + 1;
      w[0] = 1.0f;
      sum = 1.0;
    }
    for (int j = 0; j < hi - lo; j++) w[j] = (float)(w[j] / sum);
    t->first[i] = lo;
    t->count[i] = hi - lo;
  }
  return PG_OK;
}

static void taps_free(Taps *t) {
  free(t->first);
  free(t->w);
  t->first = NULL;
  t->w = NULL;
}

static void resizer_free(Resizer *r) {
  taps_free(&r->across);
  taps_free(&r->down);
  free(r->ring);
  free(r->line);
  r->ring = r->line = NULL;
}

// A src_w x src_h image to out_w x out_h from its span (x0, y0, cw, ch), in source pixels.
static int resizer_init(Resizer *r, int src_w, int src_h, double x0, double y0, double cw, double ch, int out_w, int out_h) {
  memset(r, 0, sizeof *r);
  if (src_w < 1 || src_h < 1 || out_w < 1 || out_h < 1 || cw <= 0 || ch <= 0) return PG_INVALID;
  r->src_w = src_w, r->src_h = src_h, r->out_w = out_w, r->out_h = out_h;
  int status = taps_init(&r->across, src_w, x0, cw, out_w);
  if (status == PG_OK) status = taps_init(&r->down, src_h, y0, ch, out_h);
  if (status != PG_OK) return status;
  r->ring = malloc(sizeof(float) * 4 * (size_t)out_w * r->down.span);
  r->line = malloc(sizeof(float) * 4 * (size_t)src_w);
  r->out = malloc((size_t)out_w * out_h * 4);
  if (!r->ring || !r->line || !r->out) return PG_NO_MEMORY;
  r->last_row = r->down.first[out_h - 1] + r->down.count[out_h - 1] - 1;
  return PG_OK;
}

static uint8_t clamp_byte(float v) {
  return v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)(v + 0.5f);
}

// Output row `y` from the ring: filtered down, then colour divided by alpha again.
static void write_row(Resizer *r, int y) {
  int n = r->down.count[y], first = r->down.first[y], width = r->out_w * 4;
  const float *w = r->down.w + (size_t)y * r->down.span;
  uint8_t *dst = r->out + (size_t)y * width;
  for (int x = 0; x < width; x += 4) {
    float c0 = 0, c1 = 0, c2 = 0, a = 0;
    for (int k = 0; k < n; k++) {
      const float *p = r->ring + (size_t)((first + k) % r->down.span) * width + x;
      c0 += w[k] * p[0], c1 += w[k] * p[1], c2 += w[k] * p[2], a += w[k] * p[3];
    }
    if (a < 0.5f) {
      dst[x] = dst[x + 1] = dst[x + 2] = dst[x + 3] = 0;
      continue;
    }
    float alpha = a > 255.0f ? 255.0f : a;
    dst[x] = clamp_byte(c0 / a * 255.0f), dst[x + 1] = clamp_byte(c1 / a * 255.0f), dst[x + 2] = clamp_byte(c2 / a * 255.0f);
    dst[x + 3] = clamp_byte(alpha);
  }
}

// Source row `sy` (RGBA, src_w pixels): filtered across into the ring, then every output row
// whose last source row it is written. Rows no output row needs are passed over.
static void resizer_row(Resizer *r, int sy, const uint8_t *row) {
  if (sy > r->last_row || r->next_out >= r->out_h || sy < r->down.first[r->next_out]) return;
  float *line = r->line;
  for (int x = 0; x < r->src_w; x++) {
    const uint8_t *p = row + 4 * x;
    float a = p[3];
    float f = a / 255.0f;
    line[4 * x] = p[0] * f, line[4 * x + 1] = p[1] * f, line[4 * x + 2] = p[2] * f, line[4 * x + 3] = a;
  }
  float *ring = r->ring + (size_t)(sy % r->down.span) * r->out_w * 4;
  for (int x = 0; x < r->out_w; x++) {
    int n = r->across.count[x];
    const float *w = r->across.w + (size_t)x * r->across.span;
    const float *p = line + 4 * (size_t)r->across.first[x];
    float c0 = 0, c1 = 0, c2 = 0, a = 0;
    for (int k = 0; k < n; k++, p += 4) c0 += w[k] * p[0], c1 += w[k] * p[1], c2 += w[k] * p[2], a += w[k] * p[3];
    ring[4 * x] = c0, ring[4 * x + 1] = c1, ring[4 * x + 2] = c2, ring[4 * x + 3] = a;
  }
  while (r->next_out < r->out_h && r->down.first[r->next_out] + r->down.count[r->next_out] - 1 <= sy) write_row(r, r->next_out++);
}

// Hands the output raster to JavaScript (pg_output_data); PG_INVALID unless every row was written.
static int resizer_end(Resizer *r) {
  int done = r->next_out == r->out_h;
  resizer_free(r);
  if (!done) return PG_INVALID;
  pg_set_output(r->out, (size_t)r->out_w * r->out_h * 4);
  return PG_OK;
}

// ---- Rows of a file (JPEG, PNG, still WebP) or of planes (a HEIC's), read in file order.

// `rows` initialised (pg_rows_init, orientation 1) and, for a JPEG, its scale set: read from the
// top, resized from the span (x0, y0, cw, ch) in the source's own pixels (before scaling), and
// freed. The answer's raster becomes the call's output.
int pg_resize_source(PgRows *rows, double x0, double y0, double cw, double ch, int out_w, int out_h) {
  int width = rows->source_width, height = rows->source_height;
  int status = pg_rows_start(rows, 0);
  // libjpeg's scaled size: the header's divided by the scale, rounded up.
  int jpeg = rows->kind == PG_FROM_JPEG && status == PG_OK;
  int w = jpeg ? (int)rows->cinfo.output_width : width;
  int h = jpeg ? (int)rows->cinfo.output_height : height;
  double fx = (double)w / width, fy = (double)h / height;
  Resizer r;
  if (status == PG_OK) status = resizer_init(&r, w, h, x0 * fx, y0 * fy, cw * fx, ch * fy, out_w, out_h);
  for (int y = 0; status == PG_OK && y <= r.last_row && y < h; y++) resizer_row(&r, y, pg_rows_next(rows));
  pg_rows_free(rows);
  if (status != PG_OK) return status;
  return resizer_end(&r);
}

// `width` x `height`: the file's header size; `denom` 1, 2, 4 or 8: a JPEG decoded at that
// fraction by libjpeg's DCT scaling (ignored for the others). The span is in the file's own
// pixels (before orientation and scaling).
int pg_resize_file(int kind, uint8_t *data, size_t size, int width, int height, int denom, double x0, double y0, double cw, double ch, int out_w, int out_h) {
  PgRows rows;
  int status = pg_rows_init(&rows, kind, data, size, width, height, 1);
  if (status != PG_OK) return status;
  rows.scale_denom = kind == PG_FROM_JPEG && (denom == 2 || denom == 4 || denom == 8) ? denom : 1;
  return pg_resize_source(&rows, x0, y0, cw, ch, out_w, out_h);
}

// ---- A raster held in JavaScript, a batch of rows at a time (as raster_sink.c takes one).

static Resizer raster;
static uint8_t *batch;
static int batch_rows_held, next_row;

uint8_t *pg_resize_begin(int src_w, int src_h, double x0, double y0, double cw, double ch, int out_w, int out_h, int batch_rows) {
  next_row = 0;
  batch_rows_held = batch_rows;
  batch = malloc((size_t)src_w * 4 * batch_rows);
  if (!batch || resizer_init(&raster, src_w, src_h, x0, y0, cw, ch, out_w, out_h) != PG_OK) return 0;
  return batch;
}

// JS has copied the next `n` rows into the batch.
void pg_resize_rows(int n) {
  if (n <= 0 || n > batch_rows_held || next_row + n > raster.src_h) pg_fail(PG_INVALID);
  for (int i = 0; i < n; i++) resizer_row(&raster, next_row + i, batch + (size_t)i * raster.src_w * 4);
  next_row += n;
}

int pg_resize_end(void) {
  free(batch);
  return resizer_end(&raster);
}

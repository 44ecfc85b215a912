// PNG as a target without an RGBA raster: declarations shared by png_rows.c (where the rows
// come from), png_stats.c (what the whole image holds), png_palette.c (median cut) and
// png_sink.c (layout, filters, deflate, chunks).
#ifndef PIXELGATE_PNG_SINK_H
#define PIXELGATE_PNG_SINK_H

#include "pixelgate.h"

// ---- Row sources: RGBA rows of the oriented image, top to bottom, one pass at a time.
enum { PG_FROM_JPEG = 0, PG_FROM_PNG = 1, PG_FROM_WEBP = 2, PG_FROM_PLANES = 3, PG_FROM_RGBA = 4 };

// A row source kept in a file of its own (png_webp_rows.c, png_planes_rows.c, rgba_rows.c):
// what pg_rows_* call for its kind. `state` is the source's own. Its rows are the file's, in
// file order (row `file_row` - 1 is asked for); png_rows.c turns them by the EXIF orientation.
// A source whose rows can be read in any order (an RGBA raster held in JavaScript) has `row_at`
// instead of `next`: a flipped or mirrored picture then takes its rows directly, without bands.
typedef struct PgRows PgRows;
typedef struct {
  int (*start)(PgRows *r);
  const uint8_t *(*next)(PgRows *r);
  void (*stop)(PgRows *r);
  void (*free)(PgRows *r);
  const uint8_t *(*row_at)(PgRows *r, int y);
} PgRowSource;
extern const PgRowSource pg_webp_row_source, pg_planes_row_source, pg_rgba_row_source;

struct PgRows {
  int kind;
  int width, height;         // of the output (oriented)
  int may_have_alpha;        // the file can hold alpha at all (PNG colour type or tRNS)
  // JPEG
  const uint8_t *data;
  size_t size;
  int orientation, source_width, source_height;
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr err;
  int open;                  // cinfo is live
  int scale_denom;           // 2, 4 or 8: a file-order pass decodes at that fraction by libjpeg's DCT scaling (resize.c); else 1
  int kept;                  // cinfo holds a progressive file's coefficients for every band (buffered-image mode)
  uint8_t *band;             // oriented rows of the current band (turned or flipped images)
  int band_first, band_rows, band_capacity;
  // PNG
  void *spng;
  size_t read_at;
  // Both
  uint8_t *row;              // the row handed out (RGBA)
  int next;                  // next row of this pass
  int pass_width, pass_height; // this pass's rows: the output's, or the file's in file order
  int band_mode, mirror_rows;
  int flip_rows;             // a source read in any order (row_at): this pass runs bottom up
  // WebP, planes (HEIC)
  const PgRowSource *source;
  void *state;
  int file_row;              // PNG, WebP, planes: next row of the file-order pass under a band
};

int pg_rows_init(PgRows *r, int kind, const uint8_t *data, size_t size, int width, int height, int orientation);
// Starts a pass; `oriented` 0 hands the rows out in file order (for statistics).
int pg_rows_start(PgRows *r, int oriented);
// The next row (RGBA, width x 4 bytes), valid until the next call.
const uint8_t *pg_rows_next(PgRows *r);
// Reads the whole file once at the start of an oriented pass, which then goes on from its first
// row: damage shows before any row is handed out (the streamed BMP: bmp_sink.c).
int pg_rows_read_through(PgRows *r);
void pg_rows_stop(PgRows *r);
void pg_rows_free(PgRows *r);

// Rows read in file order and resized (resize.c); `rows` is freed, the answer's RGBA raster
// becomes the call's output.
int pg_resize_source(PgRows *rows, double x0, double y0, double cw, double ch, int out_w, int out_h);

// The file (JPEG, WebP; NULL for a PNG, which is read through pg_read_at) or the planes
// (PG_FROM_PLANES) as PNG (png_sink.c).
int pg_to_png(int kind, uint8_t *data, size_t size, int width, int height, int orientation, int quality);
// The same as GIF (gif_sink.c), and as BMP a few rows per call (bmp_sink.c).
int pg_to_gif(int kind, uint8_t *data, size_t size, int width, int height, int orientation);
int pg_bmp_begin(int kind, uint8_t *data, size_t size, int width, int height, int orientation, int chunk_rows);
int pg_bmp_rows(void);

// ---- The same writer fed RGBA rows by its caller (png_push.c): 8-bit RGB, or RGBA when
// `alpha`, every row filtered; the file goes to JavaScript through pg_write as it is deflated.
typedef struct PgPngWriter PgPngWriter;
PgPngWriter *pg_png_writer_new(int width, int height, int alpha); // NULL: no memory
void pg_png_writer_row(PgPngWriter *w, const uint8_t *rgba);
// The last part of the image data and IEND; frees the writer.
void pg_png_writer_end(PgPngWriter *w);

// ---- Whole-image statistics, gathered in one pass in file order (ended early once a
// lossless layout is settled).
enum { PG_EXACT_MAX = 256 };

typedef struct {
  int width, height;
  int alpha, gray;
  int exact_count;                  // distinct colours in first-seen order, or > PG_EXACT_MAX
  uint32_t exact[PG_EXACT_MAX];     // canonical RGBA words (R low byte, all-transparent as 0)
  uint32_t table[2 * PG_EXACT_MAX]; // open-addressing set over `exact` (value + 1, 0 = empty)
  int alpha_bins;                   // histogram keys carry 4 bits of alpha
  uint32_t *bins;                   // per bin: count, sum R, sum G, sum B, sum A (or NULL)
  uint32_t transparent;             // pixels with alpha 0, outside the histogram
  int binary_alpha;                 // GIF: gathered with pg_binary_pixel applied, RGB-only histogram
} PgStats;

int pg_stats_gather(PgStats *s, PgRows *rows, int histogram);
// The statistics of a 1-bit-transparency target (GIF): every pixel as pg_binary_pixel makes it,
// with the histogram; the median cut then measures R, G and B only.
int pg_stats_gather_binary(PgStats *s, PgRows *rows);
// 1-bit transparency: alpha below 128 is fully transparent (0, 0, 0, 0), the rest opaque.
static inline const uint8_t *pg_binary_pixel(const uint8_t *p, uint8_t *q) {
  if (p[3] == 255) return p;
  int clear = p[3] < 128;
  q[0] = clear ? 0 : p[0], q[1] = clear ? 0 : p[1], q[2] = clear ? 0 : p[2], q[3] = clear ? 0 : 255;
  return q;
}
void pg_stats_free(PgStats *s);
// Index of a canonical colour in the exact palette, or -1.
int pg_exact_index(const PgStats *s, uint32_t word);
static inline uint32_t pg_canonical(const uint8_t *p) {
  return p[3] == 0 ? 0 : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t pg_bin_of(const uint8_t *p, int alpha_bins) {
  uint32_t rgb = (uint32_t)(p[0] >> 3) << 10 | (uint32_t)(p[1] >> 3) << 5 | (uint32_t)(p[2] >> 3);
  return alpha_bins ? rgb << 4 | p[3] >> 4 : rgb;
}

// ---- Palette: exact, or median cut over the histogram.
typedef struct {
  int entries;              // palette size, the transparent entry included
  uint8_t rgba[256 * 4];
  int transparent_index;    // -1 for none
  const PgStats *exact;     // exact palette: look colours up here
  uint16_t *entry_of_bin;   // quantized: the entry of each histogram bin
} PgPalette;

void pg_palette_exact(PgPalette *p, const PgStats *s);
int pg_palette_median_cut(PgPalette *p, const PgStats *s, int max_colors);
void pg_palette_free(PgPalette *p);
static inline int pg_palette_index(const PgPalette *p, const PgStats *s, const uint8_t *px) {
  if (p->exact) return pg_exact_index(s, pg_canonical(px));
  if (px[3] == 0) return p->transparent_index;
  return p->entry_of_bin[pg_bin_of(px, s->alpha_bins)];
}

// ---- Row filter (adaptive: the five sums over every byte, 16 bytes at a time).
typedef struct {
  int bpp;
  int row;
} PgFilter;
void pg_filter_row(PgFilter *f, const uint8_t *raw, const uint8_t *prev, int n, uint8_t *out);

// ---- The zlib stream of the IDAT chunks (png_deflate.c): filtered rows in, parts out.
typedef void PgEmit(void *ctx, const uint8_t *data, size_t n);
typedef struct {
  int filtered;         // rows carry filter types: each part picks its level from its zeros
  PgEmit *emit;         // receives each compressed part (the first with the zlib header)
  void *ctx;
  struct libdeflate_compressor *first, *flat; // a part's first level, and the flat one
  uint8_t *in, *out, *again;                   // rows; compressed at the first level, at the flat one
  size_t used, cap;
  uint32_t adler;
  int started;
} PgDeflate;
int pg_deflate_begin(PgDeflate *d, size_t row_bytes, int filtered, PgEmit *emit, void *ctx);
// Where the next `n` bytes of the stream (one filtered row, at most row_bytes + 1) go.
uint8_t *pg_deflate_room(PgDeflate *d, size_t n);
void pg_deflate_end(PgDeflate *d);
void pg_deflate_free(PgDeflate *d);

#endif

// Where the PNG writer's rows come from: a JPEG (libjpeg-turbo scanlines, RGBA straight out of
// its colour converter) or a PNG (libspng rows), one row at a time, so no whole-image raster
// exists. The writer needs the image more than once (statistics, then each file it writes):
// every pass decodes the file again, which costs time, not memory (the file is small next to
// its pixels).
//
// EXIF orientation: a mirrored image (2) is turned row by row. Otherwise the output's rows are
// not the file's rows: the image is decoded in bands of output rows, each pass keeping only the
// pixels that land in its band. A flipped JPEG (3, 4) skips to the source rows it needs; a
// turned one (5-8) crops its scanlines to the source columns it needs (jpeg_crop_scanline), so
// the colour conversion and upsampling of each pixel still run once overall; only the entropy
// decoding repeats per band. A PNG or WebP is read whole for each band (a flipped one up to the
// band's last source row): time, not memory.
#include <stdlib.h>
#include <string.h>
#include <spng.h>
#include "png_sink.h"

// Output rows held per band: at most this many bytes (8 MB: about 6 passes for a turned 12 MP photo).
#define BAND_BYTES (8u << 20)
// Columns or rows decoded either side of a band, so that libjpeg's chroma upsampling, which
// looks at neighbouring samples, sees the same neighbours as in a full decode.
#define BAND_MARGIN 32

// Copies the `length` bytes at `offset` of the file to `dst`; 0 when the file has fewer.
__attribute__((import_module("env"), import_name("pg_read_at"))) int pg_read_at(void *dst, size_t offset, size_t length);

int pg_rows_init(PgRows *r, int kind, const uint8_t *data, size_t size, int width, int height, int orientation) {
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->data = data;
  r->size = size;
  r->source = kind == PG_FROM_WEBP ? &pg_webp_row_source : kind == PG_FROM_PLANES ? &pg_planes_row_source : kind == PG_FROM_RGBA ? &pg_rgba_row_source : NULL;
  r->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
  r->source_width = width;
  r->source_height = height;
  int turned = r->orientation >= 5;
  r->width = turned ? height : width;
  r->height = turned ? width : height;
  r->row = malloc((size_t)r->width * 4 > (size_t)width * 4 ? (size_t)r->width * 4 : (size_t)width * 4);
  return r->row ? PG_OK : PG_NO_MEMORY;
}

// ---- JPEG

// Opens the JPEG for a pass (a band, or all rows). `keep`: a progressive file is decoded once
// into its coefficients for every band to come (libjpeg's buffered-image mode: each band is an
// output pass over them), instead of once per band.
static int jpeg_open(PgRows *r, int keep) {
  if (r->open) jpeg_destroy_decompress(&r->cinfo);
  r->kept = 0;
  pg_error_handlers(&r->err);
  r->cinfo.err = &r->err;
  jpeg_create_decompress(&r->cinfo);
  r->open = 1;
  jpeg_mem_src(&r->cinfo, r->data, (unsigned long)r->size);
  jpeg_read_header(&r->cinfo, TRUE);
  if ((int)r->cinfo.image_width != r->source_width || (int)r->cinfo.image_height != r->source_height) return PG_INVALID;
  J_COLOR_SPACE cs = r->cinfo.jpeg_color_space;
  if (cs != JCS_YCbCr && cs != JCS_GRAYSCALE && cs != JCS_RGB) return PG_UNSUPPORTED; // CMYK: the general path
  r->cinfo.out_color_space = JCS_EXT_RGBA;
  r->cinfo.dct_method = JDCT_ISLOW; // as the general path's decoder, so lossless means the same pixels
  r->kept = keep && r->cinfo.progressive_mode;
  r->cinfo.buffered_image = r->kept ? TRUE : FALSE;
  // Scaled (resize.c): libjpeg's inverse DCT makes 1/2, 1/4 or 1/8 of the size directly, so the
  // full-size samples are never made. Only in file order, never with bands.
  if (r->scale_denom > 1) {
    r->cinfo.scale_num = 1;
    r->cinfo.scale_denom = (unsigned int)r->scale_denom;
  }
  jpeg_start_decompress(&r->cinfo);
  // A memory source never suspends; a file cut short ends in the EOI marker libjpeg makes up.
  while (r->kept && !jpeg_input_complete(&r->cinfo)) {
    if (jpeg_consume_input(&r->cinfo) == JPEG_SUSPENDED) return PG_INVALID;
  }
  return PG_OK;
}

static void read_scanline(PgRows *r, uint8_t *dst) {
  JSAMPROW one[1] = {dst};
  if (jpeg_read_scanlines(&r->cinfo, one, 1) != 1) pg_fail(PG_INVALID);
}

static void mirror(uint8_t *row, int width) {
  uint32_t *px = (uint32_t *)row;
  for (int a = 0, b = width - 1; a < b; a++, b--) {
    uint32_t t = px[a];
    px[a] = px[b];
    px[b] = t;
  }
}

// The band [first, first + n) of output rows: which source rows (flipped images: [lo, lo + n),
// turned ones: all) or source columns (turned: [lo, lo + n)) land in it.
typedef struct {
  int first, n, lo, flip_x, flip_y, turned;
} Band;

static Band band_at(const PgRows *r, int first) {
  Band b = {first, r->height - first < r->band_capacity ? r->height - first : r->band_capacity};
  pg_orientation_bits(r->orientation, &b.flip_x, &b.flip_y, &b.turned);
  // Flipped: output row y is source row H - 1 - y. Turned: output row y is source column y (or
  // W - 1 - y), output column x source row x (or H - 1 - x).
  b.lo = !b.turned ? r->source_height - first - b.n : b.flip_x ? r->source_width - first - b.n : first;
  return b;
}

// Source row `sy` into the band: `src` holds its pixels from column b->lo on (turned), or the
// whole row (flipped, only rows in [lo, lo + n)).
static void place_row(PgRows *r, const Band *b, int sy, const uint32_t *src) {
  int w = r->width;
  if (!b->turned) {
    uint8_t *dst = r->band + (size_t)(r->source_height - 1 - sy - b->first) * w * 4;
    memcpy(dst, src, (size_t)w * 4);
    if (b->flip_x) mirror(dst, w);
    return;
  }
  uint32_t *band = (uint32_t *)r->band;
  int ox = b->flip_y ? r->source_height - 1 - sy : sy;
  for (int k = 0; k < b->n; k++) {
    int oy = b->flip_x ? r->source_width - 1 - (b->lo + k) : b->lo + k;
    band[(size_t)(oy - b->first) * w + ox] = src[k];
  }
}

// Decodes output rows [first, first + n) of a JPEG into the band. A flipped one skips to the
// source rows it needs: a baseline file's skipped rows are entropy-decoded again for each band,
// a progressive file's coefficients are kept from the first band on (`kept`), so skipping costs
// nothing there. A turned one crops its scanlines to the columns it needs (a crop holds for a
// whole decode, so each band opens the file again).
static void fill_jpeg_band(PgRows *r, const Band *b) {
  int status = r->kept && !b->turned ? PG_OK : jpeg_open(r, !b->turned);
  if (status != PG_OK) pg_fail(status);
  int W = r->source_width, H = r->source_height, lo = b->lo;
  if (!b->turned) {
    if (r->kept) jpeg_start_output(&r->cinfo, r->cinfo.input_scan_number);
    int skip = lo - BAND_MARGIN > 0 ? lo - BAND_MARGIN : 0;
    if (skip > 0 && (int)jpeg_skip_scanlines(&r->cinfo, (JDIMENSION)skip) != skip) pg_fail(PG_INVALID);
    for (int sy = skip; sy < H - b->first; sy++) {
      read_scanline(r, r->row);
      if (sy >= lo) place_row(r, b, sy, (const uint32_t *)r->row);
    }
    if (r->kept) {
      jpeg_finish_output(&r->cinfo); // the rest of the pass is not needed
      return;
    }
  } else {
    JDIMENSION x0 = (JDIMENSION)(lo - BAND_MARGIN > 0 ? lo - BAND_MARGIN : 0);
    JDIMENSION cw = (JDIMENSION)((lo + b->n + BAND_MARGIN < W ? lo + b->n + BAND_MARGIN : W) - (int)x0);
    jpeg_crop_scanline(&r->cinfo, &x0, &cw);
    for (int sy = 0; sy < H; sy++) {
      read_scanline(r, r->row);
      place_row(r, b, sy, (const uint32_t *)r->row + (lo - (int)x0));
    }
  }
  jpeg_abort_decompress(&r->cinfo);
}

// ---- PNG

static int read_file(spng_ctx *ctx, void *user, void *dst, size_t length) {
  (void)ctx;
  PgRows *r = user;
  if (!pg_read_at(dst, r->read_at, length)) return SPNG_IO_EOF;
  r->read_at += length;
  return 0;
}

static int png_open(PgRows *r) {
  if (r->spng) spng_ctx_free(r->spng);
  spng_ctx *ctx = r->spng = spng_ctx_new(0);
  if (!ctx) return PG_NO_MEMORY;
  r->read_at = 0;
  // As the TypeScript decoder: CRCs are not checked, and only the image's own size is inflated.
  spng_set_crc_action(ctx, SPNG_CRC_USE, SPNG_CRC_USE);
  spng_set_png_stream(ctx, read_file, r);
  struct spng_ihdr ihdr;
  if (spng_get_ihdr(ctx, &ihdr)) return PG_INVALID;
  if ((int)ihdr.width != r->source_width || (int)ihdr.height != r->source_height) return PG_INVALID;
  if (ihdr.interlace_method != SPNG_INTERLACE_NONE) return PG_UNSUPPORTED; // the TypeScript decoder's job
  struct spng_trns trns;
  r->may_have_alpha = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA || ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA ||
                      spng_get_trns(ctx, &trns) == 0;
  if (spng_decode_image(ctx, NULL, 0, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE)) return PG_INVALID;
  return PG_OK;
}

// ---- PNG, WebP, planes: the file's rows in file order, `file_row` counting them.

static int file_start(PgRows *r) {
  r->file_row = 0;
  return r->source ? r->source->start(r) : png_open(r);
}

static const uint8_t *file_next(PgRows *r) {
  int y = r->file_row++;
  if (r->source && r->source->row_at) return r->source->row_at(r, r->flip_rows ? r->source_height - 1 - y : y);
  if (r->source) return r->source->next(r);
  int status = spng_decode_row(r->spng, r->row, (size_t)r->source_width * 4);
  // SPNG_EOI comes with the last row; anything else before it is damage.
  if (status != 0 && !(status == SPNG_EOI && y == r->source_height - 1)) pg_fail(PG_INVALID);
  // A file cut off after its image data is refused, as the TypeScript decoder refuses it.
  if (y == r->source_height - 1 && spng_decode_chunks(r->spng)) pg_fail(PG_INVALID);
  return r->row;
}

static void file_stop(PgRows *r) {
  if (r->source) r->source->stop(r);
  if (r->spng) spng_ctx_free(r->spng);
  r->spng = NULL;
}

// Output rows [first, first + n) of a PNG or WebP into the band: its rows read from the top,
// up to the last one the band needs.
static void fill_file_band(PgRows *r, const Band *b) {
  int status = file_start(r);
  if (status != PG_OK) pg_fail(status);
  int last = b->turned ? r->source_height : r->source_height - b->first;
  for (int sy = 0; sy < last; sy++) {
    const uint32_t *row = (const uint32_t *)file_next(r);
    if (b->turned) place_row(r, b, sy, row + b->lo);
    else if (sy >= b->lo) place_row(r, b, sy, row);
  }
  file_stop(r);
}

static void fill_band(PgRows *r, int first) {
  Band b = band_at(r, first);
  if (r->kind == PG_FROM_JPEG) fill_jpeg_band(r, &b);
  else fill_file_band(r, &b);
  r->band_first = first;
  r->band_rows = b.n;
}

// ---- Passes

int pg_rows_start(PgRows *r, int oriented) {
  r->next = 0;
  r->band_first = -1;
  r->band_rows = 0;
  // A source read in any order is flipped and mirrored row by row; only a turn needs bands.
  int flip_x, flip_y, turned;
  pg_orientation_bits(r->orientation, &flip_x, &flip_y, &turned);
  int direct = r->source && r->source->row_at && !turned;
  r->flip_rows = oriented && direct && flip_y;
  r->band_mode = oriented && r->orientation > 2 && !direct;
  r->pass_width = oriented ? r->width : r->source_width;
  r->pass_height = oriented ? r->height : r->source_height;
  if (r->band_mode) {
    if (!r->band) {
      size_t row_bytes = (size_t)r->width * 4;
      int rows = (int)(BAND_BYTES / row_bytes);
      int passes = (r->height + (rows > 0 ? rows : 1) - 1) / (rows > 0 ? rows : 1);
      r->band_capacity = (r->height + passes - 1) / passes; // bands of equal height
      if (r->band_capacity < 1) r->band_capacity = 1;
      r->band = malloc(row_bytes * r->band_capacity);
      if (!r->band) return PG_NO_MEMORY;
    }
    // Each band opens its own decoder; the file's features (alpha) are known from a first look.
    if (r->kind == PG_FROM_JPEG) return PG_OK;
    int status = file_start(r);
    file_stop(r);
    return status;
  }
  // Mirrored (2; 3 read directly) rows are turned as they come; in file order (statistics)
  // they stay as stored.
  r->mirror_rows = oriented && flip_x;
  return r->kind == PG_FROM_JPEG ? jpeg_open(r, 0) : file_start(r);
}

const uint8_t *pg_rows_next(PgRows *r) {
  int y = r->next++;
  if (!r->band_mode) {
    if (r->kind == PG_FROM_JPEG) {
      read_scanline(r, r->row);
    } else {
      const uint8_t *row = file_next(r);
      if (!r->mirror_rows) return row;
      if (row != r->row) memcpy(r->row, row, (size_t)r->width * 4);
    }
    if (r->mirror_rows) mirror(r->row, r->width);
    return r->row;
  }
  if (y < r->band_first || y >= r->band_first + r->band_rows) fill_band(r, y);
  return r->band + (size_t)(y - r->band_first) * r->width * 4;
}

int pg_rows_read_through(PgRows *r) {
  if (r->source && r->source->row_at) return PG_OK; // held whole and already valid: nothing to find
  if (r->band_mode) {
    // The first band of a flipped or turned picture reads the file to its last row.
    pg_rows_next(r);
    r->next = 0;
    return PG_OK;
  }
  for (int y = 0; y < r->pass_height; y++) pg_rows_next(r);
  pg_rows_stop(r);
  return pg_rows_start(r, 1);
}

// Ends a pass, whether or not every row was read.
void pg_rows_stop(PgRows *r) {
  if (r->open) jpeg_destroy_decompress(&r->cinfo);
  r->open = r->kept = 0;
  file_stop(r);
}

void pg_rows_free(PgRows *r) {
  pg_rows_stop(r);
  if (r->source) r->source->free(r);
  free(r->band);
  free(r->row);
  r->band = r->row = NULL;
}

// Decoding a JPEG with libjpeg-turbo into oriented YUV 4:2:0 planes, scanline by scanline.
//
// libjpeg hands out YCbCr rows (no colour conversion); each row's luma is written straight to
// its oriented place, and chroma is summed per 2x2 cell of the *output* grid, so the planes are
// exact for every EXIF orientation and odd size. Only one group of source rows (the one or two
// that fall into the same output chroma row or column) is summed at a time.
#include <stdlib.h>
#include <string.h>
#include <jerror.h>
#include "pixelgate.h"

static void fail_exit(j_common_ptr cinfo) {
  pg_fail(cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? PG_NO_MEMORY : PG_INVALID);
}

// Warnings (corrupt data libjpeg can step over) stay silent, as in the decoder we replace;
// a cut-off file never gets here (the caller checks for the end-of-image marker first).
static void quiet(j_common_ptr cinfo) { (void)cinfo; }
static void quiet_level(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

void pg_error_handlers(struct jpeg_error_mgr *err) {
  jpeg_std_error(err);
  err->error_exit = fail_exit;
  err->output_message = quiet;
  err->emit_message = quiet_level;
}

int pg_source_open(PgSource *s, const uint8_t *data, size_t size, int width, int height, int orientation) {
  memset(s, 0, sizeof *s);
  pg_error_handlers(&s->err);
  s->cinfo.err = &s->err;
  jpeg_create_decompress(&s->cinfo);
  jpeg_mem_src(&s->cinfo, data, (unsigned long)size);
  jpeg_read_header(&s->cinfo, TRUE);
  // The caller checked this size against its limits before calling: nothing else is decoded.
  if ((int)s->cinfo.image_width != width || (int)s->cinfo.image_height != height) return PG_INVALID;
  switch (s->cinfo.jpeg_color_space) {
    case JCS_YCbCr: s->cinfo.out_color_space = JCS_YCbCr; break;
    case JCS_GRAYSCALE: s->cinfo.out_color_space = JCS_GRAYSCALE; break;
    default: return PG_UNSUPPORTED;
  }
  s->cinfo.dct_method = JDCT_ISLOW;
  // Chroma is averaged back over 2x2 cells by every consumer (our planes, libjpeg's encoder):
  // replicating samples instead of libjpeg's "fancy" interpolation gives back the file's own
  // chroma exactly for 4:2:0 input, and costs less.
  s->cinfo.do_fancy_upsampling = FALSE;
  s->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
  jpeg_start_decompress(&s->cinfo);
  int turned = s->orientation >= 5;
  s->width = turned ? height : width;
  s->height = turned ? width : height;
  return PG_OK;
}

void pg_range_full(PgRange *range) {
  for (int i = 0; i < 256; i++) range->luma[i] = range->chroma[i] = (uint8_t)i;
}

// JPEG's YCbCr uses 0-255; VP8 expects BT.601 studio range (Y 16-235, Cb/Cr 16-240).
void pg_range_studio(PgRange *range) {
  for (int i = 0; i < 256; i++) {
    range->luma[i] = (uint8_t)(16 + (i * 219 + 127) / 255);
    int c = (i - 128) * 224;
    range->chroma[i] = (uint8_t)(128 + (c >= 0 ? (c + 127) / 255 : -((-c + 127) / 255)));
  }
}

// The other way, for WebP's planes going into JPEG: studio-range codes spread over 0-255 (luma
// 16 -> 0 and 235 -> 255, chroma about 128), clamped.
static uint8_t expand(int v, int zero, int full_zero, int scale) {
  int full = full_zero + ((v - zero) * 255 * 2 + (v >= zero ? scale : -scale)) / (scale * 2);
  return (uint8_t)(full < 0 ? 0 : full > 255 ? 255 : full);
}

void pg_range_expand(PgRange *range) {
  for (int i = 0; i < 256; i++) {
    range->luma[i] = expand(i, 16, 0, 219);
    range->chroma[i] = expand(i, 128, 128, 224);
  }
}

// Chroma sums for one output chroma line (a row, or a column when the image is turned).
typedef struct {
  uint16_t *cb, *cr;
  uint8_t *count;
  int cells;
  int line; // output chroma line being summed, -1 for none
} ChromaLine;

static void flush_line(ChromaLine *c, const PgPlanes *p, int turned, const PgRange *range) {
  if (c->line < 0) return;
  for (int k = 0; k < c->cells; k++) {
    int n = c->count[k];
    if (n == 0) continue;
    size_t at = turned ? (size_t)k * p->uv_stride + c->line : (size_t)c->line * p->uv_stride + k;
    p->u[at] = range->chroma[(c->cb[k] + n / 2) / n];
    p->v[at] = range->chroma[(c->cr[k] + n / 2) / n];
  }
  memset(c->cb, 0, c->cells * sizeof *c->cb);
  memset(c->cr, 0, c->cells * sizeof *c->cr);
  memset(c->count, 0, c->cells);
  c->line = -1;
}

// EXIF orientation as three bits: mirror source x, mirror source y, swap the axes.
void pg_orientation_bits(int o, int *flip_x, int *flip_y, int *turned) {
  static const unsigned char bits[9] = {0, 0, 1, 3, 2, 4, 6, 7, 5};
  *flip_x = bits[o] & 1;
  *flip_y = (bits[o] >> 1) & 1;
  *turned = (bits[o] >> 2) & 1;
}

void pg_source_to_planes(PgSource *s, const PgPlanes *p, const PgRange *range) {
  j_decompress_ptr ci = &s->cinfo;
  int w = (int)ci->output_width, h = (int)ci->output_height, comps = ci->output_components;
  int flip_x, flip_y, turned;
  pg_orientation_bits(s->orientation, &flip_x, &flip_y, &turned);

  ChromaLine chroma = {0};
  chroma.cells = (w + 1) / 2;
  chroma.line = -1;
  if (comps == 3) {
    chroma.cb = calloc((size_t)chroma.cells * 2, sizeof(uint16_t));
    chroma.count = calloc((size_t)chroma.cells, 1);
    if (!chroma.cb || !chroma.count) pg_fail(PG_NO_MEMORY);
    chroma.cr = chroma.cb + chroma.cells;
  }
  JSAMPARRAY rows = (*ci->mem->alloc_sarray)((j_common_ptr)ci, JPOOL_IMAGE, (JDIMENSION)(w * comps), ci->rec_outbuf_height);
  // Luma index of source pixel x on a row: start + x * step.
  ptrdiff_t along = turned ? p->y_stride : 1;

  while ((int)ci->output_scanline < h) {
    int first = (int)ci->output_scanline;
    int n = (int)jpeg_read_scanlines(ci, rows, ci->rec_outbuf_height);
    for (int i = 0; i < n; i++) {
      int r = flip_y ? h - 1 - (first + i) : first + i; // output row, or column when turned
      ptrdiff_t start = turned ? r : (ptrdiff_t)r * p->y_stride;
      ptrdiff_t step = flip_x ? -along : along;
      if (flip_x) start += (ptrdiff_t)(w - 1) * along;
      const JSAMPLE *src = rows[i];
      uint8_t *y = p->y + start;
      if (comps == 1) {
        for (int x = 0; x < w; x++, y += step) *y = range->luma[src[x]];
        continue;
      }
      if (r / 2 != chroma.line) {
        flush_line(&chroma, p, turned, range);
        chroma.line = r / 2;
      }
      for (int x = 0; x < w; x++, y += step, src += 3) {
        *y = range->luma[src[0]];
        int k = (flip_x ? w - 1 - x : x) >> 1;
        chroma.cb[k] += src[1];
        chroma.cr[k] += src[2];
        chroma.count[k]++;
      }
    }
  }
  if (comps == 3) {
    flush_line(&chroma, p, turned, range);
    free(chroma.cb);
    free(chroma.count);
  } else {
    // Grey: neutral chroma.
    int cw = (s->width + 1) / 2, ch = (s->height + 1) / 2;
    for (int row = 0; row < ch; row++) {
      memset(p->u + (size_t)row * p->uv_stride, range->chroma[128], cw);
      memset(p->v + (size_t)row * p->uv_stride, range->chroma[128], cw);
    }
  }
  jpeg_finish_decompress(ci);
}

// Bands of YCbCr 4:2:0 rows placed into a whole picture turned or mirrored by an EXIF
// orientation (planes_sink.c, for a HEIC whose irot turns it): each source sample goes to its
// place in the oriented planes, chroma cell by chroma cell. A band's rows are an even number
// (but for the last band), so a 2x2 chroma cell never straddles two bands.
#include "pixelgate.h"

// Where sample (x, y) of a w x h source lands in the oriented planes, as an offset.
typedef struct {
  int flip_x, flip_y, turned;
} Orientation;

static size_t place(const Orientation *o, int x, int y, int w, int h, int stride) {
  int along = o->flip_x ? w - 1 - x : x; // position along the source row
  int across = o->flip_y ? h - 1 - y : y; // which source row
  return o->turned ? (size_t)along * stride + across : (size_t)across * stride + along;
}

// Copies `n` rows of `band` (source rows first..first+n-1 of a w x h image; chroma rows
// first/2 on) and, when both are given, its alpha rows into `to` and `to_alpha`.
void pg_orient_band(const PgPlanes *band, const uint8_t *alpha, int w, int h, int first, int n, int orientation, const PgPlanes *to, uint8_t *to_alpha, int alpha_stride) {
  Orientation o;
  pg_orientation_bits(orientation, &o.flip_x, &o.flip_y, &o.turned);
  for (int i = 0; i < n; i++) {
    const uint8_t *y = band->y + (size_t)i * band->y_stride;
    const uint8_t *a = alpha ? alpha + (size_t)i * w : NULL;
    for (int x = 0; x < w; x++) {
      to->y[place(&o, x, first + i, w, h, to->y_stride)] = y[x];
      if (a && to_alpha) to_alpha[place(&o, x, first + i, w, h, alpha_stride)] = a[x];
    }
  }
  int cw = (w + 1) / 2, ch = (h + 1) / 2;
  for (int i = 0; i < (n + 1) / 2; i++) {
    const uint8_t *u = band->u + (size_t)i * band->uv_stride, *v = band->v + (size_t)i * band->uv_stride;
    for (int x = 0; x < cw; x++) {
      size_t at = place(&o, x, first / 2 + i, cw, ch, to->uv_stride);
      to->u[at] = u[x];
      to->v[at] = v[x];
    }
  }
}

// Encoding YCbCr 4:2:0 planes that live in JavaScript (a HEIC decoded by libheif, which hands
// out the HEVC picture's own planes) as WebP or JPEG, a band of rows at a time, without ever
// making an RGBA image of them.
//
// The planes may use any of the usual matrices (BT.601, BT.709, BT.2020) and either range; the
// encoders want BT.601, studio range for WebP and full range for JPEG. Converting between two
// YCbCr encodings is linear: luma' = a*luma + b*Cb + c*Cr and chroma' = d*Cb + e*Cr (luma drops
// out of chroma), so each output sample is a few multiplications, with each luma sample taking
// the chroma of its 2x2 cell. For the common case (BT.601 full range, what iPhones write, to
// JPEG) the map is the identity and the samples go through unchanged.
//
// JPEG has no alpha: pixels are flattened onto black (luma and chroma scaled toward black by the
// alpha, each chroma cell by its four pixels' mean alpha). WebP keeps alpha as its own plane.
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>
#include "pixelgate.h"

enum { FRACTION = 16 }; // fixed-point bits of the conversion coefficients

// One YCbCr encoding: the matrix's red and blue luma weights, and the code range; or, as a
// target, `rgb`: full-range RGB (the PNG writer's rows, pg_planes_rgba).
typedef struct {
  double kr, kb;
  int full_range;
  int rgb;
} Encoding;

// Output code values from normalised (y 0..1, chroma -0.5..0.5) samples, and back.
static double code_scale(const Encoding *e, int luma) { return e->full_range ? 255.0 : luma ? 219.0 : 224.0; }

// Source normalised YCbCr -> target normalised YCbCr, through RGB.
static void convert_normalised(const Encoding *from, const Encoding *to, const double in[3], double out[3]) {
  double y = in[0], cb = in[1], cr = in[2];
  double r = y + 2 * (1 - from->kr) * cr;
  double b = y + 2 * (1 - from->kb) * cb;
  double g = (y - from->kr * r - from->kb * b) / (1 - from->kr - from->kb);
  if (to->rgb) {
    out[0] = r, out[1] = g, out[2] = b;
    return;
  }
  out[0] = to->kr * r + (1 - to->kr - to->kb) * g + to->kb * b;
  out[1] = (b - out[0]) / (2 * (1 - to->kb));
  out[2] = (r - out[0]) / (2 * (1 - to->kr));
}

// The map in code values, as fixed-point coefficients: column k is what source component k
// contributes (luma counted from its black level, chroma from 128).
typedef struct {
  int32_t m[3][3];
  int32_t luma_in_black, luma_out_black;
} CodeMap;

static void code_map(CodeMap *map, const Encoding *from, const Encoding *to) {
  for (int k = 0; k < 3; k++) {
    double unit[3] = {0, 0, 0}, out[3];
    unit[k] = 1.0 / code_scale(from, k == 0); // one code step of source component k
    convert_normalised(from, to, unit, out);
    for (int row = 0; row < 3; row++) map->m[row][k] = (int32_t)(out[row] * code_scale(to, row == 0) * (1 << FRACTION) + (out[row] >= 0 ? 0.5 : -0.5));
  }
  map->luma_in_black = from->full_range ? 0 : 16;
  map->luma_out_black = to->full_range ? 0 : 16;
}

static uint8_t clamp_code(int32_t fixed, int32_t offset) {
  int32_t v = ((fixed + (1 << (FRACTION - 1))) >> FRACTION) + offset;
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static int width, height, chroma_width, has_alpha, next_row, batch;
static uint8_t *band; // batch luma rows, batch/2 Cb rows, batch/2 Cr rows, then batch alpha rows
static CodeMap map;
static PgBandEncoder encoder;

// Starts an encode of a width x height image whose planes use the matrix (kr, kb) and range
// given; returns the band buffer JS fills (layout above; batch_rows even), or 0.
uint8_t *pg_planes_begin(int webp, int w, int h, int alpha, int quality, int batch_rows, double kr, double kb, int full_range) {
  width = w;
  height = h;
  chroma_width = (w + 1) / 2;
  has_alpha = alpha;
  next_row = 0;
  batch = batch_rows;
  Encoding from = {kr, kb, full_range, 0};
  Encoding to = {0.299, 0.114, !webp, 0}; // BT.601: studio range for VP8, full range for JPEG
  code_map(&map, &from, &to);
  band = malloc((size_t)w * batch_rows * (alpha ? 2 : 1) + (size_t)chroma_width * batch_rows);
  if (!band) return 0;
  return pg_band_encoder_begin(&encoder, webp, w, h, alpha, quality, JCS_YCbCr) ? band : 0;
}

// The band's planes, and where their converted samples go (the picture's planes at this row for
// WebP; the band itself for JPEG, converted in place).
static PgPlanes band_planes(void) {
  uint8_t *cb = band + (size_t)width * batch;
  PgPlanes p = {band, cb, cb + (size_t)chroma_width * (batch / 2), width, chroma_width};
  return p;
}

static void convert_band(const PgPlanes *in, const PgPlanes *out, const uint8_t *alpha, int n) {
  for (int i = 0; i < n; i++) {
    const uint8_t *y = in->y + (size_t)i * in->y_stride;
    const uint8_t *cb = in->u + (size_t)(i / 2) * in->uv_stride, *cr = in->v + (size_t)(i / 2) * in->uv_stride;
    uint8_t *to = out->y + (size_t)i * out->y_stride;
    const uint8_t *a = alpha ? alpha + (size_t)i * width : NULL;
    for (int x = 0; x < width; x++) {
      int32_t fixed = map.m[0][0] * (y[x] - map.luma_in_black) + map.m[0][1] * (cb[x / 2] - 128) + map.m[0][2] * (cr[x / 2] - 128);
      uint8_t luma = clamp_code(fixed, map.luma_out_black);
      to[x] = a ? (uint8_t)((luma * a[x] + 127) / 255) : luma;
    }
  }
  for (int i = 0; i < (n + 1) / 2; i++) {
    const uint8_t *cb = in->u + (size_t)i * in->uv_stride, *cr = in->v + (size_t)i * in->uv_stride;
    uint8_t *u = out->u + (size_t)i * out->uv_stride, *v = out->v + (size_t)i * out->uv_stride;
    for (int x = 0; x < chroma_width; x++) {
      int32_t dcb = cb[x] - 128, dcr = cr[x] - 128;
      int32_t fu = map.m[1][1] * dcb + map.m[1][2] * dcr, fv = map.m[2][1] * dcb + map.m[2][2] * dcr;
      if (alpha) { // the cell's mean alpha; rows and columns past the edge repeat the last one
        int y0 = 2 * i, y1 = 2 * i + 1 < n ? 2 * i + 1 : y0, x0 = 2 * x, x1 = 2 * x + 1 < width ? 2 * x + 1 : x0;
        int mean = (alpha[(size_t)y0 * width + x0] + alpha[(size_t)y0 * width + x1] + alpha[(size_t)y1 * width + x0] + alpha[(size_t)y1 * width + x1] + 2) / 4;
        fu = (int32_t)((int64_t)fu * mean / 255);
        fv = (int32_t)((int64_t)fv * mean / 255);
      }
      u[x] = clamp_code(fu, 128);
      v[x] = clamp_code(fv, 128);
    }
  }
}

// JS has copied the next `n` rows (and their (n + 1) / 2 chroma rows) into the band.
void pg_planes_rows(int n) {
  if (n <= 0 || n > batch || next_row + n > height || (n % 2 && next_row + n != height)) pg_fail(PG_INVALID);
  PgPlanes in = band_planes();
  uint8_t *alpha = has_alpha ? band + (size_t)width * batch + (size_t)chroma_width * batch : NULL;
  if (encoder.webp) {
    const WebPPicture *pic = &encoder.picture;
    size_t chroma_at = (size_t)(next_row / 2) * pic->uv_stride;
    PgPlanes out = {pic->y + (size_t)next_row * pic->y_stride, pic->u + chroma_at, pic->v + chroma_at, pic->y_stride, pic->uv_stride};
    convert_band(&in, &out, NULL, n);
    if (alpha)
      for (int i = 0; i < n; i++) memcpy(pic->a + (size_t)(next_row + i) * pic->a_stride, alpha + (size_t)i * width, width);
  } else {
    convert_band(&in, &in, alpha, n);
    pg_jpeg_write_planes(&encoder.jpeg.co, &in, width, n);
  }
  next_row += n;
}

int pg_planes_end(void) {
  if (next_row != height) return PG_INVALID;
  free(band);
  return pg_band_encoder_end(&encoder);
}

// `rows` rows of 4:2:0 planes (the first an even row of the image) as RGBA rows, `width` * 4 bytes
// apart, through the same fixed-point map as the encoders' samples, with RGB as its target;
// alpha from its own plane (rows `width` apart), or opaque when `alpha` is null.
void pg_planes_rgba(const PgPlanes *in, const uint8_t *alpha, int width, int rows, double kr, double kb, int full_range, uint8_t *rgba) {
  CodeMap rgb;
  Encoding from = {kr, kb, full_range, 0}, to = {0, 0, 1, 1};
  code_map(&rgb, &from, &to);
  for (int i = 0; i < rows; i++) {
    const uint8_t *y = in->y + (size_t)i * in->y_stride;
    const uint8_t *cb = in->u + (size_t)(i / 2) * in->uv_stride, *cr = in->v + (size_t)(i / 2) * in->uv_stride;
    const uint8_t *a = alpha ? alpha + (size_t)i * width : NULL;
    uint8_t *out = rgba + (size_t)i * width * 4;
    for (int x = 0; x < width; x++, out += 4) {
      int32_t dy = y[x] - rgb.luma_in_black, dcb = cb[x / 2] - 128, dcr = cr[x / 2] - 128;
      for (int c = 0; c < 3; c++) out[c] = clamp_code(rgb.m[c][0] * dy + rgb.m[c][1] * dcb + rgb.m[c][2] * dcr, 0);
      out[3] = a ? a[x] : 255;
    }
  }
}

// VP8L's four transforms, read from the stream and undone one row at a time (vp8l.h).
//
// The encoder applies them in the order they are stored; the decoder undoes them last first.
// All work per pixel within a row except the predictor, which also needs the row above (kept in
// `above`, the transform's own previous output) and, for the last column's top-right
// neighbour, the row's own first pixel. Colour indexing unpacks 2, 4 or 8 pixels from each coded
// pixel when the palette is small, so the rows before it are narrower.
#include <stdlib.h>
#include <string.h>
#include "pixelgate.h"
#include "vp8l.h"

static int blocks(int size, int bits) { return (size + (1 << bits) - 1) >> bits; }

// Per channel, modulo 256.
static inline uint32_t add_pixels(uint32_t a, uint32_t b) {
  return (((a & 0xff00ff00u) + (b & 0xff00ff00u)) & 0xff00ff00u) | (((a & 0x00ff00ffu) + (b & 0x00ff00ffu)) & 0x00ff00ffu);
}

// Per channel, rounded down.
static inline uint32_t average(uint32_t a, uint32_t b) { return (((a ^ b) & 0xfefefefeu) >> 1) + (a & b); }

static inline int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }

static inline uint32_t clamp_add_subtract_full(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t out = 0;
  for (int shift = 0; shift < 32; shift += 8)
    out |= (uint32_t)clamp255((int)(a >> shift & 0xff) + (int)(b >> shift & 0xff) - (int)(c >> shift & 0xff)) << shift;
  return out;
}

static inline uint32_t clamp_add_subtract_half(uint32_t a, uint32_t b) {
  uint32_t out = 0;
  for (int shift = 0; shift < 32; shift += 8) {
    int x = (int)(a >> shift & 0xff), y = (int)(b >> shift & 0xff);
    out |= (uint32_t)clamp255(x + (x - y) / 2) << shift;
  }
  return out;
}

// The neighbour (top or left) whose gradient from the top-left is smaller, summed over channels.
static inline uint32_t select_neighbour(uint32_t left, uint32_t top, uint32_t top_left) {
  int towards_top = 0; // sum |left - tl| - |top - tl|
  for (int shift = 0; shift < 32; shift += 8) {
    int l = (int)(left >> shift & 0xff), t = (int)(top >> shift & 0xff), tl = (int)(top_left >> shift & 0xff);
    towards_top += abs(l - tl) - abs(t - tl);
  }
  return towards_top <= 0 ? top : left;
}

static inline uint32_t predict(int mode, uint32_t l, uint32_t t, uint32_t tl, uint32_t tr) {
  switch (mode) {
  case 1: return l;
  case 2: return t;
  case 3: return tr;
  case 4: return tl;
  case 5: return average(average(l, tr), t);
  case 6: return average(l, tl);
  case 7: return average(l, t);
  case 8: return average(tl, t);
  case 9: return average(t, tr);
  case 10: return average(average(l, tl), average(t, tr));
  case 11: return select_neighbour(l, t, tl);
  case 12: return clamp_add_subtract_full(l, t, tl);
  case 13: return clamp_add_subtract_half(average(l, t), tl);
  default: return 0xff000000u; // 0, and the unused 14 and 15: opaque black
  }
}

static void unpredict(PgTransform *t, int y, uint32_t *row) {
  const uint32_t *up = t->above;
  int w = t->width;
  if (y == 0) { // first pixel from black, the rest of the row from the left
    row[0] = add_pixels(row[0], 0xff000000u);
    for (int x = 1; x < w; x++) row[x] = add_pixels(row[x], row[x - 1]);
  } else {
    const uint32_t *modes = t->data + (size_t)(y >> t->bits) * t->data_width;
    row[0] = add_pixels(row[0], up[0]);
    for (int x = 1; x < w; x++) {
      uint32_t tr = x + 1 < w ? up[x + 1] : row[0];
      row[x] = add_pixels(row[x], predict((int)(modes[x >> t->bits] >> 8 & 15), row[x - 1], up[x], up[x - 1], tr));
    }
  }
  memcpy(t->above, row, sizeof *row * (size_t)w);
}

static inline int colour_delta(int8_t multiplier, int8_t value) { return ((int)multiplier * value) >> 5; }

static void uncross_colour(const PgTransform *t, int y, uint32_t *row) {
  const uint32_t *blocks_row = t->data + (size_t)(y >> t->bits) * t->data_width;
  for (int x = 0; x < t->width; x++) {
    uint32_t m = blocks_row[x >> t->bits], p = row[x];
    int8_t green = (int8_t)(p >> 8);
    int red = (int)(p >> 16 & 0xff), blue = (int)(p & 0xff);
    red = (red + colour_delta((int8_t)(m & 0xff), green)) & 0xff;
    blue += colour_delta((int8_t)(m >> 8 & 0xff), green);
    blue = (blue + colour_delta((int8_t)(m >> 16 & 0xff), (int8_t)red)) & 0xff;
    row[x] = (p & 0xff00ff00u) | (uint32_t)red << 16 | (uint32_t)blue;
  }
}

static void add_green(const PgTransform *t, uint32_t *row) {
  for (int x = 0; x < t->width; x++) {
    uint32_t g = row[x] >> 8 & 0xff;
    row[x] = (row[x] & 0xff00ff00u) | (((row[x] & 0x00ff00ffu) + (g << 16 | g)) & 0x00ff00ffu);
  }
}

static void unindex(const PgTransform *t, const uint32_t *in, uint32_t *out) {
  if (t->bits == 0) {
    for (int x = 0; x < t->width; x++) out[x] = t->data[in[x] >> 8 & 0xff];
    return;
  }
  int per_word = 1 << t->bits, bits = 8 >> t->bits;
  uint32_t mask = (1u << bits) - 1, packed = 0;
  for (int x = 0; x < t->width; x++, packed >>= bits) {
    if ((x & (per_word - 1)) == 0) packed = in[x >> t->bits] >> 8 & 0xff;
    out[x] = t->data[packed & mask];
  }
}

uint32_t *pg_transform_row(PgTransform *t, int y, uint32_t *in, uint32_t *spare) {
  switch (t->type) {
  case PG_PREDICT: unpredict(t, y, in); return in;
  case PG_CROSS_COLOUR: uncross_colour(t, y, in); return in;
  case PG_SUBTRACT_GREEN: add_green(t, in); return in;
  default: unindex(t, in, spare); return spare;
  }
}

int pg_transform_read(PgBitReader *br, PgTransform *t, int *width, int height, PgVp8l *d) {
  int status = PG_OK;
  memset(t, 0, sizeof *t);
  t->type = (int)pg_bits_read(br, 2);
  t->width = *width;
  if (t->type == PG_PREDICT || t->type == PG_CROSS_COLOUR) {
    t->bits = (int)pg_bits_read(br, 3) + 2;
    t->data_width = blocks(*width, t->bits);
    t->data = pg_vp8l_subimage(d, t->data_width, blocks(height, t->bits), &status);
    if (status == PG_OK && t->type == PG_PREDICT && !(t->above = malloc(sizeof *t->above * (size_t)*width))) status = PG_NO_MEMORY;
  } else if (t->type == PG_COLOUR_INDEX) {
    int colours = (int)pg_bits_read(br, 8) + 1;
    t->bits = colours > 16 ? 0 : colours > 4 ? 1 : colours > 2 ? 2 : 3;
    *width = blocks(*width, t->bits);
    uint32_t *stored = pg_vp8l_subimage(d, colours, 1, &status);
    if (status == PG_OK && !(t->data = calloc(256, sizeof *t->data))) status = PG_NO_MEMORY;
    if (status == PG_OK) { // stored as differences from the previous colour
      t->data[0] = stored[0];
      for (int i = 1; i < colours; i++) t->data[i] = add_pixels(stored[i], t->data[i - 1]);
    }
    free(stored);
  }
  return status;
}

void pg_transform_free(PgTransform *t) {
  free(t->data);
  free(t->above);
  t->data = t->above = NULL;
}

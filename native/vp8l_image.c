// VP8L image streams (vp8l.h): the transforms, the entropy-coded pixels, rows handed out.
//
// A pixel is a literal (green, red, blue, alpha symbols), a copy of earlier pixels (a length and
// a distance, both prefix symbols with extra bits), or an entry of the colour cache (a small
// hash of recent colours). Which group of five codes applies comes from the entropy image, per
// block of the picture ("meta codes"). The main image keeps only the last `ring_size` pixels it
// decoded: every distance the format can express fits, so a copy never reaches past it; the
// sub-images are decoded whole into their ring.
#include <stdlib.h>
#include <string.h>
#include "pixelgate.h"
#include "vp8l.h"

enum { CODES = 5, GREEN_LITERALS = 256, LENGTH_SYMBOLS = 24, DISTANCE_SYMBOLS = 40, NEAR_CODES = 120, MAX_CACHE_BITS = 11 };
// The longest distance a distance symbol can give (symbol 39, all extra bits set) past the
// 120 codes for the neighbourhood, whose own reach is at most 7 rows and 8 pixels.
#define FAR_DISTANCE (1048576u - NEAR_CODES)
// The most the prefix codes of one image may take (read_groups).
#define MAX_CODE_BYTES (16u << 20)

// The neighbourhood codes 1-120, as (columns back, rows back): the nearest pixels first.
static const int8_t NEAR[NEAR_CODES][2] = {
  {0, 1}, {1, 0}, {1, 1}, {-1, 1}, {0, 2}, {2, 0}, {1, 2}, {-1, 2}, {2, 1}, {-2, 1}, {2, 2}, {-2, 2}, {0, 3}, {3, 0}, {1, 3}, {-1, 3},
  {3, 1}, {-3, 1}, {2, 3}, {-2, 3}, {3, 2}, {-3, 2}, {0, 4}, {4, 0}, {1, 4}, {-1, 4}, {4, 1}, {-4, 1}, {3, 3}, {-3, 3}, {2, 4}, {-2, 4},
  {4, 2}, {-4, 2}, {0, 5}, {3, 4}, {-3, 4}, {4, 3}, {-4, 3}, {5, 0}, {1, 5}, {-1, 5}, {5, 1}, {-5, 1}, {2, 5}, {-2, 5}, {5, 2}, {-5, 2},
  {4, 4}, {-4, 4}, {3, 5}, {-3, 5}, {5, 3}, {-5, 3}, {0, 6}, {6, 0}, {1, 6}, {-1, 6}, {6, 1}, {-6, 1}, {2, 6}, {-2, 6}, {6, 2}, {-6, 2},
  {4, 5}, {-4, 5}, {5, 4}, {-5, 4}, {3, 6}, {-3, 6}, {6, 3}, {-6, 3}, {0, 7}, {7, 0}, {1, 7}, {-1, 7}, {5, 5}, {-5, 5}, {7, 1}, {-7, 1},
  {4, 6}, {-4, 6}, {6, 4}, {-6, 4}, {2, 7}, {-2, 7}, {7, 2}, {-7, 2}, {3, 7}, {-3, 7}, {7, 3}, {-7, 3}, {5, 6}, {-5, 6}, {6, 5}, {-6, 5},
  {8, 0}, {4, 7}, {-4, 7}, {7, 4}, {-7, 4}, {8, 1}, {8, 2}, {6, 6}, {-6, 6}, {8, 3}, {5, 7}, {-5, 7}, {7, 5}, {-7, 5}, {8, 4}, {6, 7},
  {-6, 7}, {7, 6}, {-7, 6}, {8, 5}, {7, 7}, {-7, 7}, {8, 6}, {8, 7},
};

// Entropy-coded pixels being decoded: the main image's, or a sub-image's.
typedef struct {
  int width;
  size_t total, decoded;
  int x, y;                // the next pixel's place
  int cache_bits;
  uint32_t *cache;
  int meta_bits, meta_width;
  uint32_t *meta;          // per block: index into `groups`
  PgPrefixCode (*groups)[CODES];
  int group_count;
  uint32_t *ring;
  size_t ring_size, ring_at;
  uint32_t copy_left;
  size_t copy_distance;
} Coded;

struct PgVp8l {
  PgBitReader br;
  int width, height;
  PgTransform transforms[4];
  int transform_count;
  Coded image;
  uint32_t *row, *spare;
  int next_row;
};

static size_t distance_of(int width, uint32_t code) {
  if (code > NEAR_CODES) return code - NEAR_CODES;
  long d = (long)NEAR[code - 1][1] * width + NEAR[code - 1][0];
  return d >= 1 ? (size_t)d : 1;
}

static inline void put(Coded *c, uint32_t pixel) {
  c->ring[c->ring_at] = pixel;
  if (++c->ring_at == c->ring_size) c->ring_at = 0;
  if (c->cache) c->cache[(0x1e35a7bdu * pixel) >> (32 - c->cache_bits)] = pixel;
  c->decoded++;
  if (++c->x == c->width) c->x = 0, c->y++;
}

// Decodes pixels until `until` of them are; a copy may be left half done for the next call.
static int decode(PgBitReader *br, Coded *c, size_t until) {
  while (c->decoded < until) {
    if (c->copy_left) {
      size_t n = c->copy_left < until - c->decoded ? c->copy_left : until - c->decoded;
      c->copy_left -= (uint32_t)n;
      while (n--) {
        size_t from = c->ring_at >= c->copy_distance ? c->ring_at - c->copy_distance : c->ring_at + c->ring_size - c->copy_distance;
        put(c, c->ring[from]);
      }
      continue;
    }
    if (br->overrun) return PG_INVALID;
    const PgPrefixCode *g = c->groups[c->meta ? c->meta[(size_t)(c->y >> c->meta_bits) * c->meta_width + (c->x >> c->meta_bits)] : 0];
    int green = pg_prefix_symbol(br, &g[0]);
    if (green < GREEN_LITERALS) {
      uint32_t red = (uint32_t)pg_prefix_symbol(br, &g[1]), blue = (uint32_t)pg_prefix_symbol(br, &g[2]);
      uint32_t alpha = (uint32_t)pg_prefix_symbol(br, &g[3]);
      put(c, alpha << 24 | red << 16 | (uint32_t)green << 8 | blue);
    } else if (green < GREEN_LITERALS + LENGTH_SYMBOLS) {
      uint32_t length = pg_prefix_value(br, green - GREEN_LITERALS);
      size_t distance = distance_of(c->width, pg_prefix_value(br, pg_prefix_symbol(br, &g[4])));
      if (distance > c->decoded || length > c->total - c->decoded) return PG_INVALID;
      c->copy_left = length;
      c->copy_distance = distance;
    } else {
      put(c, c->cache[green - GREEN_LITERALS - LENGTH_SYMBOLS]);
    }
  }
  return br->overrun ? PG_INVALID : PG_OK;
}

static void coded_free(Coded *c) {
  for (int g = 0; g < c->group_count; g++)
    for (int k = 0; k < CODES; k++) pg_prefix_free(&c->groups[g][k]);
  free(c->groups);
  free(c->cache);
  free(c->meta);
  free(c->ring);
  memset(c, 0, sizeof *c);
}

// What one code's decoding tables take.
static size_t code_bytes(const PgPrefixCode *code) {
  size_t symbols = 0;
  for (int len = 1; len < 16; len++) symbols += code->count[len];
  return (sizeof *code->table << code->root) + symbols * sizeof *code->sorted;
}

// The groups of codes; those no block uses are read and checked but not kept (`used`: the
// group's index among those kept, or -1). libwebp's encoder writes at most a few thousand
// groups (a few MB of tables); a file asking for far more is refused as too large before it
// can grow memory past what an isolate has.
static int read_groups(PgBitReader *br, Coded *c, int stored, const int *used) {
  static const int alphabet[CODES] = {GREEN_LITERALS + LENGTH_SYMBOLS, 256, 256, 256, DISTANCE_SYMBOLS};
  size_t bytes = (size_t)c->group_count * sizeof *c->groups;
  if (bytes > MAX_CODE_BYTES) return PG_NO_MEMORY;
  if (!(c->groups = calloc((size_t)c->group_count, sizeof *c->groups))) return PG_NO_MEMORY;
  for (int g = 0; g < stored; g++) {
    int kept = used ? used[g] : g;
    for (int k = 0; k < CODES; k++) {
      int size = alphabet[k] + (k == 0 && c->cache_bits ? 1 << c->cache_bits : 0);
      int ok = pg_prefix_read(br, size, kept >= 0 ? &c->groups[kept][k] : NULL);
      if (ok < 0) return PG_NO_MEMORY;
      if (!ok) return PG_INVALID;
      if (kept >= 0 && (bytes += code_bytes(&c->groups[kept][k])) > MAX_CODE_BYTES) return PG_NO_MEMORY;
    }
  }
  return PG_OK;
}

// The colour cache, meta codes (main image only) and codes of an image `width` x `height`.
static int read_coding(PgVp8l *d, Coded *c, int width, int height, int main) {
  PgBitReader *br = &d->br;
  int status = PG_OK, stored = 1, *used = NULL;
  c->width = width;
  c->total = (size_t)width * height;
  if (pg_bits_read(br, 1)) {
    c->cache_bits = (int)pg_bits_read(br, 4);
    if (c->cache_bits < 1 || c->cache_bits > MAX_CACHE_BITS) return PG_INVALID;
    if (!(c->cache = calloc((size_t)1 << c->cache_bits, sizeof *c->cache))) return PG_NO_MEMORY;
  }
  c->group_count = 1;
  if (main && pg_bits_read(br, 1)) {
    c->meta_bits = (int)pg_bits_read(br, 3) + 2;
    c->meta_width = (width + (1 << c->meta_bits) - 1) >> c->meta_bits;
    int rows = (height + (1 << c->meta_bits) - 1) >> c->meta_bits;
    size_t blocks = (size_t)c->meta_width * rows;
    if (!(c->meta = pg_vp8l_subimage(d, c->meta_width, rows, &status))) return status;
    for (size_t i = 0; i < blocks; i++) c->meta[i] = c->meta[i] >> 8 & 0xffff;
    for (size_t i = 0; i < blocks; i++) stored = (int)c->meta[i] + 1 > stored ? (int)c->meta[i] + 1 : stored;
    if (!(used = malloc(sizeof *used * (size_t)stored))) return PG_NO_MEMORY;
    for (int g = 0; g < stored; g++) used[g] = -1;
    c->group_count = 0;
    for (size_t i = 0; i < blocks; i++) {
      if (used[c->meta[i]] < 0) used[c->meta[i]] = c->group_count++;
      c->meta[i] = (uint32_t)used[c->meta[i]];
    }
  }
  if (br->overrun) status = PG_INVALID;
  if (status == PG_OK) status = read_groups(br, c, stored, used);
  free(used);
  return status;
}

uint32_t *pg_vp8l_subimage(PgVp8l *d, int width, int height, int *status) {
  Coded c = {0};
  *status = read_coding(d, &c, width, height, 0);
  if (*status == PG_OK && !(c.ring = malloc(sizeof *c.ring * c.total))) *status = PG_NO_MEMORY;
  c.ring_size = c.total;
  if (*status == PG_OK) *status = decode(&d->br, &c, c.total);
  uint32_t *pixels = *status == PG_OK ? c.ring : NULL;
  if (pixels) c.ring = NULL;
  coded_free(&c);
  return pixels;
}

// The transforms, then the main image's coding; the ring and rows allocated.
static int open_stream(PgVp8l *d) {
  int width = d->width, seen = 0, status = PG_OK;
  while (status == PG_OK && pg_bits_read(&d->br, 1)) {
    if (d->transform_count == 4) return PG_INVALID; // a fifth repeats one
    PgTransform *t = &d->transforms[d->transform_count];
    status = pg_transform_read(&d->br, t, &width, d->height, d);
    d->transform_count++;
    if (seen & 1 << t->type) status = PG_INVALID; // each transform at most once
    seen |= 1 << t->type;
  }
  if (status == PG_OK) status = read_coding(d, &d->image, width, d->height, 1);
  if (status != PG_OK) return status;
  if (d->br.overrun) return PG_INVALID;
  size_t window = FAR_DISTANCE > 7u * (size_t)width + 8 ? FAR_DISTANCE : 7u * (size_t)width + 8;
  Coded *c = &d->image;
  c->ring_size = c->total < window ? c->total : window;
  c->ring = malloc(sizeof *c->ring * c->ring_size);
  d->row = malloc(sizeof *d->row * (size_t)d->width);
  d->spare = malloc(sizeof *d->spare * (size_t)d->width);
  return c->ring && d->row && d->spare ? PG_OK : PG_NO_MEMORY;
}

static int opened(PgVp8l **out, PgVp8l *d, int status) {
  if (status != PG_OK) {
    pg_vp8l_free(d);
    d = NULL;
  }
  *out = d;
  return status;
}

int pg_vp8l_open_stream(PgVp8l **out, const uint8_t *data, size_t size, int width, int height) {
  PgVp8l *d = calloc(1, sizeof *d);
  if (!d) return opened(out, NULL, PG_NO_MEMORY);
  pg_bits_open(&d->br, data, 0, size);
  d->width = width;
  d->height = height;
  return opened(out, d, open_stream(d));
}

int pg_vp8l_open(PgVp8l **out, const uint8_t *data, size_t offset, size_t size, int width, int height) {
  PgVp8l *d = calloc(1, sizeof *d);
  if (!d) return opened(out, NULL, PG_NO_MEMORY);
  if (pg_bits_open(&d->br, data, offset, size) != PG_OK) return opened(out, d, PG_NO_MEMORY);
  // Signature, 14 bits each of width - 1 and height - 1, the alpha hint, a 3-bit version (0).
  int ok = pg_bits_read(&d->br, 8) == 0x2f;
  d->width = (int)pg_bits_read(&d->br, 14) + 1;
  d->height = (int)pg_bits_read(&d->br, 14) + 1;
  pg_bits_read(&d->br, 1);
  ok = ok && pg_bits_read(&d->br, 3) == 0 && !d->br.overrun && d->width == width && d->height == height;
  return opened(out, d, ok ? open_stream(d) : PG_INVALID);
}

const uint32_t *pg_vp8l_row(PgVp8l *d, int *status) {
  Coded *c = &d->image;
  if (d->next_row >= d->height) {
    *status = PG_INVALID;
    return NULL;
  }
  *status = decode(&d->br, c, (size_t)(d->next_row + 1) * c->width);
  if (*status != PG_OK) return NULL;
  // The row just completed ends where the ring's next pixel goes.
  size_t first = c->ring_at >= (size_t)c->width ? c->ring_at - c->width : c->ring_at + c->ring_size - c->width;
  size_t head = c->ring_size - first < (size_t)c->width ? c->ring_size - first : (size_t)c->width;
  memcpy(d->row, c->ring + first, head * sizeof *d->row);
  memcpy(d->row + head, c->ring, (c->width - head) * sizeof *d->row);
  uint32_t *row = d->row, *spare = d->spare;
  for (int i = d->transform_count - 1; i >= 0; i--) {
    uint32_t *out = pg_transform_row(&d->transforms[i], d->next_row, row, spare);
    if (out == spare) spare = row;
    row = out;
  }
  d->next_row++;
  return row;
}

void pg_vp8l_free(PgVp8l *d) {
  if (!d) return;
  for (int i = 0; i < d->transform_count; i++) pg_transform_free(&d->transforms[i]);
  coded_free(&d->image);
  pg_bits_close(&d->br);
  free(d->row);
  free(d->spare);
  free(d);
}

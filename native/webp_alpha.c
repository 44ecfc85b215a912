// A WebP's alpha plane (its ALPH chunk) written by our own coder instead of libwebp's.
//
// Why: libwebp codes alpha with its full lossless encoder, which copies the plane into an ARGB
// picture and builds hash chains and backward references over the whole image: about 22 bytes
// a pixel (289 MB for a 12 MP PNG with alpha), against 2.4 for the colour of the same picture.
// This coder needs a few rows and its output: it filters the plane a row at a time (the
// container's own filters, chosen as libwebp does), codes runs as copies of the pixel before or
// above (VP8L's two nearest distance codes) and everything else as literals, with Huffman codes
// from a counting pass. Cut-out and feathered masks, what alpha usually is, are runs and edges,
// and come out within a few percent of libwebp's size (docs/codecs.md).
//
// The stream is VP8L with no transforms, no colour cache and one group of codes; red, blue and
// alpha are always 0, which libwebp's decoder recognises and decodes straight to 8 bits.
#include <stdlib.h>
#include <string.h>
#include "src/utils/filters_utils.h"
#include "lossless_codes.h"
#include "webp_alpha.h"

enum { MIN_COPY = 3, MAX_COPY = 4096, LITERALS = 256, GREEN_SYMBOLS = 280, DISTANCE_SYMBOLS = 40 };
// VP8L distance codes 1 and 2: the pixel above, the pixel before.
enum { FROM_ABOVE = 1, FROM_BEFORE = 2 };

typedef struct {
  PgBitWriter *out; // null while counting
  uint32_t green[GREEN_SYMBOLS], distance[DISTANCE_SYMBOLS];
  uint64_t extra_bits;
  PgCode green_code, distance_code;
} Tokens;

static void literal(Tokens *t, int value) {
  if (t->out) pg_code_put(t->out, &t->green_code, value);
  else t->green[value]++;
}

static void copy(Tokens *t, int length, int distance_code) {
  int length_bits, distance_bits;
  uint32_t length_extra, distance_extra;
  int length_symbol = pg_prefix_of((uint32_t)length, &length_bits, &length_extra);
  int distance_symbol = pg_prefix_of((uint32_t)distance_code, &distance_bits, &distance_extra);
  if (!t->out) {
    t->green[LITERALS + length_symbol]++;
    t->distance[distance_symbol]++;
    t->extra_bits += (uint64_t)(length_bits + distance_bits);
    return;
  }
  pg_code_put(t->out, &t->green_code, LITERALS + length_symbol);
  pg_bits_put(t->out, length_extra, length_bits);
  pg_code_put(t->out, &t->distance_code, distance_symbol);
  pg_bits_put(t->out, distance_extra, distance_bits);
}

// Row y of the plane as the container's filter leaves it: each sample minus its prediction.
static void filter_row(const uint8_t *row, const uint8_t *above, int width, int y, int filter, uint8_t *out) {
  if (filter == WEBP_FILTER_NONE) {
    memcpy(out, row, (size_t)width);
    return;
  }
  // The first row predicts from the left (its first sample from 0), the first column from above.
  out[0] = (uint8_t)(row[0] - (y ? above[0] : 0));
  for (int x = 1; x < width; x++) {
    int prediction = row[x - 1];
    if (y && filter == WEBP_FILTER_VERTICAL) prediction = above[x];
    if (y && filter == WEBP_FILTER_GRADIENT) {
      prediction = row[x - 1] + above[x] - above[x - 1];
      prediction = prediction < 0 ? 0 : prediction > 255 ? 255 : prediction;
    }
    out[x] = (uint8_t)(row[x] - prediction);
  }
}

// The filtered plane as one stream of bytes, made a row at a time into a ring that holds the
// copy window and the rows ahead of it, with hash chains over its 3-byte strings (LZ77 as in
// deflate, with VP8L's limits: copies of 3 to 4096 pixels, here from up to WINDOW back).
enum { RING = 1 << 17, WINDOW = 1 << 16, HASH_BITS = 16, CHAIN = 24, NICE = 258 };

// The format's 120 short distance codes, nearest first: (rows up) << 4 | (8 - columns left).
static const uint8_t CODE_TO_PLANE[120] = {
    0x18, 0x07, 0x17, 0x19, 0x28, 0x06, 0x27, 0x29, 0x16, 0x1a, 0x26, 0x2a, 0x38, 0x05, 0x37, 0x39, 0x15, 0x1b, 0x36, 0x3a,
    0x25, 0x2b, 0x48, 0x04, 0x47, 0x49, 0x14, 0x1c, 0x35, 0x3b, 0x46, 0x4a, 0x24, 0x2c, 0x58, 0x45, 0x4b, 0x34, 0x3c, 0x03,
    0x57, 0x59, 0x13, 0x1d, 0x56, 0x5a, 0x23, 0x2d, 0x44, 0x4c, 0x55, 0x5b, 0x33, 0x3d, 0x68, 0x02, 0x67, 0x69, 0x12, 0x1e,
    0x66, 0x6a, 0x22, 0x2e, 0x54, 0x5c, 0x43, 0x4d, 0x65, 0x6b, 0x32, 0x3e, 0x78, 0x01, 0x77, 0x79, 0x53, 0x5d, 0x11, 0x1f,
    0x64, 0x6c, 0x42, 0x4e, 0x76, 0x7a, 0x21, 0x2f, 0x75, 0x7b, 0x31, 0x3f, 0x63, 0x6d, 0x52, 0x5e, 0x00, 0x74, 0x7c, 0x41,
    0x4f, 0x10, 0x20, 0x62, 0x6e, 0x30, 0x73, 0x7d, 0x51, 0x5f, 0x40, 0x72, 0x7e, 0x61, 0x6f, 0x50, 0x71, 0x7f, 0x60, 0x70};

typedef struct {
  const uint8_t *plane;
  int stride, width, height, filter;
  long produced, total; // stream bytes made so far; width x height
  uint8_t *ring, *row;  // the stream (position p at p % RING); one filtered row
  int32_t *head;        // per hash: its latest position + 1 (0: none)
  int32_t *chain;       // per ring slot: the previous position with the same hash + 1
  uint8_t *short_code;  // per distance up to `short_reach`: its short code (0: none)
  long short_reach;
} Stream;

static int stream_open(Stream *s, const uint8_t *plane, int stride, int width, int height) {
  memset(s, 0, sizeof *s);
  s->plane = plane, s->stride = stride, s->width = width, s->height = height;
  s->total = (long)width * height;
  s->short_reach = 7L * width + 8;
  s->ring = malloc(RING);
  s->row = malloc((size_t)width);
  s->head = malloc(sizeof(int32_t) << HASH_BITS);
  s->chain = malloc(sizeof(int32_t) * RING);
  s->short_code = calloc((size_t)s->short_reach + 1, 1);
  if (!s->ring || !s->row || !s->head || !s->chain || !s->short_code) return PG_NO_MEMORY;
  for (int code = 120; code >= 1; code--) {
    int entry = CODE_TO_PLANE[code - 1];
    long distance = (long)(entry >> 4) * width + 8 - (entry & 15);
    if (distance >= 1) s->short_code[distance] = (uint8_t)code; // the smallest code wins
  }
  return PG_OK;
}

static void stream_close(Stream *s) {
  free(s->ring), free(s->row), free(s->head), free(s->chain), free(s->short_code);
}

// Starts the stream over with `filter`.
static void stream_rewind(Stream *s, int filter) {
  s->filter = filter;
  s->produced = 0;
  memset(s->head, 0, sizeof(int32_t) << HASH_BITS);
}

// Filters rows until the stream holds position `end - 1` (or is complete).
static void stream_fill(Stream *s, long end) {
  while (s->produced < end && s->produced < s->total) {
    int y = (int)(s->produced / s->width);
    filter_row(s->plane + (size_t)y * s->stride, y ? s->plane + (size_t)(y - 1) * s->stride : NULL, s->width, y, s->filter, s->row);
    long at = s->produced % RING, first = RING - at < s->width ? RING - at : s->width;
    memcpy(s->ring + at, s->row, (size_t)first);
    memcpy(s->ring, s->row + first, (size_t)(s->width - first));
    s->produced += s->width;
  }
}

static inline uint8_t byte_at(const Stream *s, long p) { return s->ring[p & (RING - 1)]; }

static void insert(Stream *s, long p) {
  if (p + 2 >= s->produced) return;
  uint32_t key = (uint32_t)byte_at(s, p) << 16 | (uint32_t)byte_at(s, p + 1) << 8 | byte_at(s, p + 2);
  uint32_t hash = (key * 2654435761u) >> (32 - HASH_BITS);
  s->chain[p & (RING - 1)] = s->head[hash];
  s->head[hash] = (int32_t)(p + 1);
}

static int match_length(const Stream *s, long p, long distance, int limit) {
  int n = 0;
  while (n < limit && byte_at(s, p - distance + n) == byte_at(s, p + n)) n++;
  return n;
}

// The longest earlier copy of the bytes at p: the pixel before and the one above first (runs and
// repeated rows, with the cheapest codes), then the hash chain.
static int longest_match(const Stream *s, long p, long *distance) {
  int limit = s->total - p < MAX_COPY ? (int)(s->total - p) : MAX_COPY, best = 0;
  long nearest[2] = {1, s->width};
  for (int k = 0; k < 2; k++) {
    if (nearest[k] > p) continue;
    int n = match_length(s, p, nearest[k], limit);
    if (n > best) best = n, *distance = nearest[k];
  }
  if (p + 2 >= s->produced) return best;
  uint32_t key = (uint32_t)byte_at(s, p) << 16 | (uint32_t)byte_at(s, p + 1) << 8 | byte_at(s, p + 2);
  long candidate = (long)s->head[(key * 2654435761u) >> (32 - HASH_BITS)] - 1;
  for (int steps = CHAIN; candidate >= 0 && p - candidate <= WINDOW && steps > 0 && best < NICE; steps--) {
    if (best < limit && byte_at(s, candidate + best) == byte_at(s, p + best)) {
      int n = match_length(s, p, p - candidate, limit);
      if (n > best) best = n, *distance = p - candidate;
    }
    candidate = (long)s->chain[candidate & (RING - 1)] - 1;
  }
  return best;
}

// The plane's tokens with `filter`, in the same order both when counting and when writing.
static void tokenize(Tokens *t, Stream *s, int filter) {
  stream_rewind(s, filter);
  for (long p = 0; p < s->total;) {
    stream_fill(s, p + MAX_COPY + 1);
    long distance = 0, later = 0;
    int length = longest_match(s, p, &distance);
    insert(s, p);
    int code = distance <= s->short_reach ? s->short_code[distance] : 0;
    // Three pixels are worth a copy from a short code; a long distance costs more bits. A copy
    // is put off by one pixel when the next one starts a longer copy (deflate's lazy match).
    int worth = length >= MIN_COPY + (code ? 0 : 1);
    if (worth && length < NICE && p + 1 < s->total && longest_match(s, p + 1, &later) > length + 1) worth = 0;
    if (!worth) {
      literal(t, byte_at(s, p));
      p++;
      continue;
    }
    copy(t, length, code ? code : (int)distance + 120);
    for (int k = 1; k < length; k++) insert(s, p + k);
    p += length;
  }
}

static const PgCode *zero_code(void) {
  static PgCode code;
  static const uint32_t none[1] = {0};
  if (!code.n) pg_code_build(&code, none, 1, 15);
  return &code;
}

// Counts the tokens of `filter` and builds their codes; the stream's size in bits.
static uint64_t plan(Tokens *t, Stream *s, int filter) {
  memset(t, 0, sizeof *t);
  tokenize(t, s, filter);
  pg_code_build(&t->green_code, t->green, GREEN_SYMBOLS, 15);
  pg_code_build(&t->distance_code, t->distance, DISTANCE_SYMBOLS, 15);
  return 3 + pg_code_header_cost(&t->green_code) + 3 * pg_code_header_cost(zero_code()) + pg_code_header_cost(&t->distance_code) +
         pg_code_cost(&t->green_code, t->green) + pg_code_cost(&t->distance_code, t->distance) + t->extra_bits;
}

int pg_alpha_chunk(const uint8_t *plane, int stride, int width, int height, PgBitWriter *out) {
  Stream stream;
  Tokens *trials = malloc(2 * sizeof(Tokens));
  if (!trials || stream_open(&stream, plane, stride, width, height) != PG_OK) return PG_NO_MEMORY;
  // libwebp's choice at its default effort: its estimate of the best filter, or none.
  int filters[2] = {WEBP_FILTER_NONE, WebPEstimateBestFilter(plane, width, height, stride)};
  uint64_t bits[2];
  for (int k = 0; k < 2; k++) bits[k] = k && filters[1] == filters[0] ? UINT64_MAX : plan(&trials[k], &stream, filters[k]);
  int best = bits[1] < bits[0];
  Tokens *t = &trials[best];

  if (bits[best] / 8 >= (uint64_t)width * height) {
    // Coding would not make it smaller: the plane as it is (compression method 0).
    pg_bits_put(out, 0, 8);
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) pg_bits_put(out, plane[(size_t)y * stride + x], 8);
  } else {
    pg_bits_put(out, 1 | (uint32_t)filters[best] << 2, 8); // lossless compression, the filter
    pg_bits_put(out, 0, 3);                                 // no transform, no colour cache, one group of codes
    pg_code_write(out, &t->green_code);
    for (int k = 0; k < 3; k++) pg_code_write(out, zero_code()); // red, blue, alpha
    pg_code_write(out, &t->distance_code);
    t->out = out;
    tokenize(t, &stream, filters[best]);
    pg_bits_pad(out);
  }
  free(trials);
  stream_close(&stream);
  return PG_OK;
}

static void put_le(uint8_t *at, uint32_t value, int bytes) {
  for (int i = 0; i < bytes; i++) at[i] = (uint8_t)(value >> (8 * i));
}

size_t pg_webp_alpha_headers(uint8_t *out, uint32_t simple_riff_size, const PgBitWriter *alpha, int width, int height) {
  // libwebp writes a simple file (RIFF header, then one VP8 chunk): the chunk is kept as it is,
  // after a VP8X chunk that announces alpha and our ALPH chunk (padded to an even size).
  size_t alpha_padded = alpha->size + (alpha->size & 1);
  memcpy(out, "RIFF", 4);
  put_le(out + 4, simple_riff_size + 18 + 8 + (uint32_t)alpha_padded, 4);
  memcpy(out + 8, "WEBPVP8X", 8);
  put_le(out + 16, 10, 4);
  memset(out + 20, 0, 4);
  out[20] = 0x10; // the alpha flag
  put_le(out + 24, (uint32_t)width - 1, 3);
  put_le(out + 27, (uint32_t)height - 1, 3);
  memcpy(out + 30, "ALPH", 4);
  put_le(out + 34, (uint32_t)alpha->size, 4);
  return 38;
}

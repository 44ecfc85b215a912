// The parts of WebP's lossless (VP8L) bitstream our alpha coder writes: an LSB-first bit
// writer, length-limited Huffman codes, and how VP8L stores a code (its lengths, run-length
// coded through a second, smaller code). Layout as in Google's "WebP Lossless Bitstream
// Specification"; libwebp's decoder reads it back in the tests.
#include <stdlib.h>
#include <string.h>
#include "lossless_codes.h"

// ---- Bits, least significant first, into a buffer that grows.

void pg_bits_put(PgBitWriter *w, uint32_t value, int count) {
  w->acc |= (uint64_t)value << w->used;
  w->used += count;
  while (w->used >= 8) {
    if (w->size == w->capacity) {
      size_t capacity = w->capacity ? w->capacity * 2 : 4096;
      uint8_t *grown = realloc(w->data, capacity);
      if (!grown) pg_fail(PG_NO_MEMORY);
      w->data = grown;
      w->capacity = capacity;
    }
    w->data[w->size++] = (uint8_t)w->acc;
    w->acc >>= 8;
    w->used -= 8;
  }
}

void pg_bits_pad(PgBitWriter *w) {
  if (w->used > 0) pg_bits_put(w, 0, 8 - w->used);
}

// ---- Huffman codes.

// Code lengths of a Huffman tree over `counts` (two smallest merged first); 0 for unused symbols.
static int tree_lengths(const uint32_t *counts, int n, uint8_t *lengths) {
  enum { MAX = 2 * PG_MAX_ALPHABET };
  uint64_t weight[MAX];
  int parent[MAX], alive[MAX], nodes = 0, leaves[PG_MAX_ALPHABET], used = 0;
  for (int s = 0; s < n; s++) {
    lengths[s] = 0;
    if (!counts[s]) continue;
    leaves[used++] = s;
    weight[nodes] = counts[s];
    parent[nodes] = -1;
    alive[nodes++] = 1;
  }
  for (int left = used; left > 1; left--) {
    int a = -1, b = -1;
    for (int i = 0; i < nodes; i++) {
      if (!alive[i]) continue;
      if (a < 0 || weight[i] < weight[a]) b = a, a = i;
      else if (b < 0 || weight[i] < weight[b]) b = i;
    }
    alive[a] = alive[b] = 0;
    weight[nodes] = weight[a] + weight[b];
    parent[nodes] = -1;
    alive[nodes] = 1;
    parent[a] = parent[b] = nodes++;
  }
  int deepest = 0;
  for (int k = 0; k < used; k++) {
    int depth = 0;
    for (int i = k; parent[i] >= 0; i = parent[i]) depth++;
    lengths[leaves[k]] = (uint8_t)depth;
    if (depth > deepest) deepest = depth;
  }
  return deepest;
}

void pg_code_build(PgCode *code, const uint32_t *counts, int n, int limit) {
  code->n = n;
  code->used = 0;
  code->only = 0;
  for (int s = 0; s < n; s++)
    if (counts[s]) code->used++, code->only = s;
  if (code->used <= 1) {
    // One symbol (or none): the decoder reads it with no bits at all.
    memset(code->lengths, 0, (size_t)n);
    code->lengths[code->only] = 1;
    return;
  }
  // Too deep: rare symbols are counted as less rare until the tree fits the limit.
  uint32_t flattened[PG_MAX_ALPHABET];
  for (uint32_t floor = 1;; floor *= 2) {
    for (int s = 0; s < n; s++) flattened[s] = counts[s] && counts[s] < floor ? floor : counts[s];
    if (tree_lengths(flattened, n, code->lengths) <= limit) break;
  }
  // Canonical codes in symbol order, bit-reversed for the LSB-first writer.
  int per_length[16] = {0};
  uint32_t next[16];
  for (int s = 0; s < n; s++) per_length[code->lengths[s]]++;
  per_length[0] = 0;
  uint32_t value = 0;
  for (int len = 1; len < 16; len++) next[len] = value = (value + per_length[len - 1]) << 1;
  for (int s = 0; s < n; s++) {
    int len = code->lengths[s];
    if (!len) continue;
    uint32_t c = next[len]++, reversed = 0;
    for (int i = 0; i < len; i++) reversed |= ((c >> i) & 1) << (len - 1 - i);
    code->codes[s] = (uint16_t)reversed;
  }
}

void pg_code_put(PgBitWriter *w, const PgCode *code, int symbol) {
  if (code->used > 1) pg_bits_put(w, code->codes[symbol], code->lengths[symbol]);
}

uint64_t pg_code_cost(const PgCode *code, const uint32_t *counts) {
  uint64_t bits = 0;
  if (code->used > 1)
    for (int s = 0; s < code->n; s++) bits += (uint64_t)counts[s] * code->lengths[s];
  return bits;
}

// ---- How a code is stored.

// The order the code-length code's own lengths are written in.
static const uint8_t CODE_LENGTH_ORDER[19] = {17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

// Run-length tokens of a code's lengths: 0-15 themselves, 16 repeats the previous non-zero
// length 3-6 times, 17 and 18 write 3-10 and 11-138 zeros. `extra` gets each token's extra bits.
static int length_tokens(const PgCode *code, uint8_t *tokens, uint8_t *extra) {
  int count = 0, previous = 8;
  for (int s = 0; s < code->n;) {
    int len = code->lengths[s], run = 1;
    while (s + run < code->n && code->lengths[s + run] == len) run++;
    s += run;
    while (run > 0) {
      if (len == 0 && run >= 11) {
        int r = run > 138 ? 138 : run;
        tokens[count] = 18, extra[count++] = (uint8_t)(r - 11), run -= r;
      } else if (len == 0 && run >= 3) {
        int r = run > 10 ? 10 : run;
        tokens[count] = 17, extra[count++] = (uint8_t)(r - 3), run -= r;
      } else if (len != 0 && len == previous && run >= 3) {
        int r = run > 6 ? 6 : run;
        tokens[count] = 16, extra[count++] = (uint8_t)(r - 3), run -= r;
      } else {
        tokens[count] = (uint8_t)len, extra[count++] = 0, run--;
        if (len) previous = len;
      }
    }
  }
  return count;
}

static const uint8_t TOKEN_EXTRA_BITS[19] = {[16] = 2, [17] = 3, [18] = 7};

// Writes `code` as VP8L stores it, returning the bits it took (`w` null: only counts them).
static uint64_t put_code(PgBitWriter *w, const PgCode *code) {
  if (code->used <= 1 && code->only < 256) {
    // A "simple" code of one symbol: 1 bit, symbol count - 1, then the symbol in 1 or 8 bits.
    int wide = code->only > 1;
    if (w) {
      pg_bits_put(w, 1, 1);
      pg_bits_put(w, 0, 1);
      pg_bits_put(w, (uint32_t)wide, 1);
      pg_bits_put(w, (uint32_t)code->only, wide ? 8 : 1);
    }
    return wide ? 11 : 4;
  }
  uint8_t tokens[PG_MAX_ALPHABET], extra[PG_MAX_ALPHABET];
  int count = length_tokens(code, tokens, extra);
  uint32_t histogram[19] = {0};
  for (int i = 0; i < count; i++) histogram[tokens[i]]++;
  PgCode lengths_code;
  pg_code_build(&lengths_code, histogram, 19, 7);
  int written = 19;
  while (written > 4 && (!histogram[CODE_LENGTH_ORDER[written - 1]])) written--;
  uint64_t bits = 1 + 4 + 3 * (uint64_t)written + 1;
  if (w) {
    pg_bits_put(w, 0, 1); // a normal code
    pg_bits_put(w, (uint32_t)(written - 4), 4);
    for (int i = 0; i < written; i++) pg_bits_put(w, histogram[CODE_LENGTH_ORDER[i]] ? lengths_code.lengths[CODE_LENGTH_ORDER[i]] : 0, 3);
    pg_bits_put(w, 0, 1); // every symbol's length follows
  }
  for (int i = 0; i < count; i++) {
    if (w) {
      pg_code_put(w, &lengths_code, tokens[i]);
      pg_bits_put(w, extra[i], TOKEN_EXTRA_BITS[tokens[i]]);
    }
    bits += (lengths_code.used > 1 ? lengths_code.lengths[tokens[i]] : 0) + TOKEN_EXTRA_BITS[tokens[i]];
  }
  return bits;
}

void pg_code_write(PgBitWriter *w, const PgCode *code) { put_code(w, code); }
uint64_t pg_code_header_cost(const PgCode *code) { return put_code(NULL, code); }

// ---- Lengths and distances: a prefix symbol and extra bits.

int pg_prefix_of(uint32_t value, int *extra_bits, uint32_t *extra_value) {
  if (value <= 4) {
    *extra_bits = 0;
    *extra_value = 0;
    return (int)value - 1;
  }
  uint32_t v = value - 1;
  int highest = 31 - __builtin_clz(v);
  int second = (v >> (highest - 1)) & 1;
  *extra_bits = highest - 1;
  *extra_value = v & ((1u << (highest - 1)) - 1);
  return 2 * highest + second;
}

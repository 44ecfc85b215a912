// VP8L's bits and prefix codes, read side (the writer is lossless_codes.c).
//
// Bits come lowest first. A prefix code is canonical (as deflate's): codes are handed out by
// length, then by symbol, and its first bit read is the code's highest. Codes are stored either
// "simple" (one or two symbols named outright) or as code lengths, themselves coded with a code
// over 19 length symbols (0-15 a length, 16 repeat the previous, 17 and 18 runs of zeros).
// A code must be complete (every bit pattern leads somewhere), except that a code with a single
// symbol reads no bits at all; anything else is refused, as libwebp refuses it.
#include <stdlib.h>
#include <string.h>
#include "pixelgate.h"
#include "vp8l.h"

enum { MAX_LENGTH = 15, ROOT_BITS = 8, LENGTH_SYMBOLS = 19, MAX_ALPHABET = 256 + 24 + 2048 };

// The order in which the code-length code's own lengths are stored.
static const uint8_t LENGTH_ORDER[LENGTH_SYMBOLS] = {17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

enum { CHUNK_BYTES = 64 << 10 };

int pg_bits_open(PgBitReader *br, const uint8_t *data, size_t offset, size_t size) {
  memset(br, 0, sizeof *br);
  if (data) {
    br->data = data + offset;
    br->size = size;
    return PG_OK;
  }
  br->file_at = offset;
  br->file_end = offset + size;
  br->chunk = malloc(CHUNK_BYTES);
  return br->chunk ? PG_OK : PG_NO_MEMORY;
}

void pg_bits_close(PgBitReader *br) {
  free(br->chunk);
  br->chunk = NULL;
}

// The next chunk of the file, once the current one is used up.
static void next_chunk(PgBitReader *br) {
  size_t n = br->file_end - br->file_at < CHUNK_BYTES ? br->file_end - br->file_at : CHUNK_BYTES;
  if (!pg_read_at(br->chunk, br->file_at, n)) n = 0, br->file_end = br->file_at; // the file is shorter
  br->data = br->chunk;
  br->size = n;
  br->pos = 0;
  br->file_at += n;
}

static inline void refill(PgBitReader *br) {
  while (br->count <= 56) {
    if (br->pos == br->size) {
      if (br->file_at == br->file_end) return;
      next_chunk(br);
      continue;
    }
    br->bits |= (uint64_t)br->data[br->pos++] << br->count;
    br->count += 8;
  }
}

static inline void consume(PgBitReader *br, int n) {
  if (n > br->count) {
    br->overrun = 1;
    br->bits = 0;
    br->count = 0;
    return;
  }
  br->bits >>= n;
  br->count -= n;
}

uint32_t pg_bits_read(PgBitReader *br, int n) {
  refill(br);
  uint32_t value = (uint32_t)(br->bits & ((1ull << n) - 1));
  consume(br, n);
  return value;
}

void pg_prefix_free(PgPrefixCode *code) {
  free(code->table);
  free(code->sorted);
  code->table = code->sorted = NULL;
}

static uint32_t reversed(uint32_t code, int length) {
  uint32_t r = 0;
  for (int i = 0; i < length; i++, code >>= 1) r = (r << 1) | (code & 1);
  return r;
}

// The decoding tables of the code with these lengths; 0 when they do not form a valid code.
// With `code` NULL only the check is made.
static int build(PgPrefixCode *code, const uint8_t *lengths, int n) {
  uint16_t count[MAX_LENGTH + 1] = {0};
  for (int s = 0; s < n; s++) count[lengths[s]]++;
  int used = n - count[0], longest = 0;
  if (used == 0) return 0;
  if (used > 1) {
    int open = 1; // unassigned codes at the current length
    for (int len = 1; len <= MAX_LENGTH; len++) {
      open = (open << 1) - count[len];
      if (open < 0) return 0; // over-subscribed
      if (count[len]) longest = len;
    }
    if (open != 0) return 0; // incomplete
  }
  if (!code) return 1;
  memset(code, 0, sizeof *code);
  if (used == 1) { // no bits: the table's single entry
    code->table = malloc(sizeof *code->table);
    if (!code->table) return -1;
    for (int s = 0; s < n; s++)
      if (lengths[s]) code->table[0] = (uint16_t)(s << 4);
    return 1;
  }
  memcpy(code->count, count, sizeof count);
  code->root = longest < ROOT_BITS ? longest : ROOT_BITS;
  code->table = malloc(sizeof *code->table << code->root);
  code->sorted = malloc(sizeof *code->sorted * (size_t)used);
  if (!code->table || !code->sorted) return -1;
  uint16_t next[MAX_LENGTH + 2] = {0};
  for (int len = 1; len <= MAX_LENGTH; len++) next[len + 1] = (uint16_t)(next[len] + count[len]);
  for (int s = 0; s < n; s++)
    if (lengths[s]) code->sorted[next[lengths[s]]++] = (uint16_t)s;
  // Canonical codes in sorted order; those within the root fill every entry they prefix.
  for (int i = 0; i < 1 << code->root; i++) code->table[i] = PG_LONG_CODE;
  uint32_t value = 0;
  for (int len = 1, i = 0; len <= code->root; len++, value <<= 1) {
    for (int k = 0; k < count[len]; k++, i++, value++) {
      for (uint32_t at = reversed(value, len); at < 1u << code->root; at += 1u << len)
        code->table[at] = (uint16_t)(code->sorted[i] << 4 | len);
    }
  }
  return 1;
}

int pg_prefix_symbol(PgBitReader *br, const PgPrefixCode *code) {
  refill(br);
  uint16_t entry = code->table[br->bits & ((1u << code->root) - 1)];
  if (entry != PG_LONG_CODE) {
    consume(br, entry & 15);
    return entry >> 4;
  }
  // Longer than the root table: walk the canonical code a bit at a time.
  uint64_t bits = br->bits;
  int value = 0, first = 0, index = 0;
  for (int len = 1; len <= MAX_LENGTH; len++, bits >>= 1) {
    value |= (int)(bits & 1);
    int n = code->count[len];
    if (value - first < n) {
      consume(br, len);
      return code->sorted[index + value - first];
    }
    index += n;
    first = (first + n) << 1;
    value <<= 1;
  }
  consume(br, MAX_LENGTH + 1); // unreachable for a complete code
  return 0;
}

uint32_t pg_prefix_value(PgBitReader *br, int symbol) {
  if (symbol < 4) return (uint32_t)symbol + 1;
  int extra = (symbol - 2) >> 1;
  uint32_t offset = (uint32_t)(2 + (symbol & 1)) << extra;
  return offset + pg_bits_read(br, extra) + 1;
}

// The code lengths of a normal code: 0 when they are malformed.
static int read_lengths(PgBitReader *br, int alphabet, uint8_t *lengths) {
  uint8_t length_lengths[LENGTH_SYMBOLS] = {0};
  int stored = 4 + (int)pg_bits_read(br, 4);
  for (int i = 0; i < stored; i++) length_lengths[LENGTH_ORDER[i]] = (uint8_t)pg_bits_read(br, 3);
  PgPrefixCode lengths_code;
  int ok = build(&lengths_code, length_lengths, LENGTH_SYMBOLS);
  if (ok <= 0) return ok;
  int limit = alphabet; // how many length symbols follow, when stored
  if (pg_bits_read(br, 1)) {
    int bits = 2 + 2 * (int)pg_bits_read(br, 3);
    limit = 2 + (int)pg_bits_read(br, bits);
    if (limit > alphabet) ok = 0;
  }
  int previous = 8;
  for (int s = 0; ok && s < alphabet && limit-- > 0 && !br->overrun;) {
    int symbol = pg_prefix_symbol(br, &lengths_code);
    if (symbol < 16) {
      lengths[s++] = (uint8_t)symbol;
      if (symbol) previous = symbol;
      continue;
    }
    int repeat = symbol == 16 ? 3 + (int)pg_bits_read(br, 2) : symbol == 17 ? 3 + (int)pg_bits_read(br, 3) : 11 + (int)pg_bits_read(br, 7);
    if (s + repeat > alphabet) ok = 0;
    else memset(lengths + s, symbol == 16 ? previous : 0, (size_t)repeat), s += repeat;
  }
  pg_prefix_free(&lengths_code);
  return ok && !br->overrun;
}

int pg_prefix_read(PgBitReader *br, int alphabet, PgPrefixCode *code) {
  static uint8_t lengths[MAX_ALPHABET]; // one decode at a time per instance
  if (alphabet > MAX_ALPHABET) return 0;
  memset(lengths, 0, sizeof lengths);
  if (pg_bits_read(br, 1)) { // simple: one or two symbols, each a 1-bit code
    int two = (int)pg_bits_read(br, 1);
    lengths[pg_bits_read(br, pg_bits_read(br, 1) ? 8 : 1)] = 1;
    if (two) lengths[pg_bits_read(br, 8)] = 1;
  } else {
    int ok = read_lengths(br, alphabet, lengths);
    if (ok <= 0) return ok;
  }
  if (br->overrun) return 0;
  return build(code, lengths, alphabet);
}

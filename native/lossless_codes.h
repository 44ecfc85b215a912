// Writing WebP lossless (VP8L) bitstreams: bits, Huffman codes and how they are stored
// (lossless_codes.c). Used by the alpha coder (webp_alpha.c).
#ifndef PIXELGATE_LOSSLESS_CODES_H
#define PIXELGATE_LOSSLESS_CODES_H

#include "pixelgate.h"

// The largest alphabet written: green and lengths (256 literals + 24 length prefixes).
#define PG_MAX_ALPHABET 280

typedef struct {
  uint8_t *data;
  size_t size, capacity;
  uint64_t acc;
  int used;
} PgBitWriter;

void pg_bits_put(PgBitWriter *w, uint32_t value, int count); // count <= 32
void pg_bits_pad(PgBitWriter *w);

typedef struct {
  int n;           // alphabet size
  int used, only;  // symbols with a count; the last of them
  uint8_t lengths[PG_MAX_ALPHABET];
  uint16_t codes[PG_MAX_ALPHABET];
} PgCode;

// A Huffman code for `counts`, no code longer than `limit` bits.
void pg_code_build(PgCode *code, const uint32_t *counts, int n, int limit);
// One symbol (nothing when the code has a single symbol: the decoder reads no bits).
void pg_code_put(PgBitWriter *w, const PgCode *code, int symbol);
// The code itself, as VP8L stores it; and what that costs in bits.
void pg_code_write(PgBitWriter *w, const PgCode *code);
uint64_t pg_code_header_cost(const PgCode *code);
// Bits `counts` take under `code`.
uint64_t pg_code_cost(const PgCode *code, const uint32_t *counts);

// A length or distance (>= 1) as VP8L's prefix symbol and its extra bits.
int pg_prefix_of(uint32_t value, int *extra_bits, uint32_t *extra_value);

#endif

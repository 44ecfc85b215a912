// GIF's variable-length-code LZW, streamed: indices go in a row at a time, codes come out packed
// into the sub-blocks of the image data. The coding decisions are those of omggif's writer, so
// both write the same bytes for the same indices:
// a clear code first; a string's code is written when the string plus the next index is not in
// the table; the code size grows when the next free code needs another bit; when the table is
// full (4096 codes) a clear code follows at 12 bits and the table starts over.
#include <stdlib.h>
#include <string.h>
#include "gif_writer.h"
#include "pixelgate.h"

// Hands `length` bytes of the output file to JavaScript, which copies them.
__attribute__((import_module("env"), import_name("pg_write"))) void pg_write(const void *data, size_t length);

#define CHUNK_BYTES (64u << 10)
enum { MAX_CODES = 4096 };

PgGifWriter *pg_gif_writer_new(void) {
  PgGifWriter *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->chunk = malloc(CHUNK_BYTES);
  if (!g->chunk) {
    free(g);
    return NULL;
  }
  return g;
}

void pg_gif_writer_free(PgGifWriter *g) {
  if (!g) return;
  free(g->chunk);
  free(g);
}

void pg_gif_put(PgGifWriter *g, const void *bytes, size_t n) {
  const uint8_t *from = bytes;
  while (n > 0) {
    size_t room = CHUNK_BYTES - g->chunk_used, take = n < room ? n : room;
    memcpy(g->chunk + g->chunk_used, from, take);
    g->chunk_used += take, from += take, n -= take;
    if (g->chunk_used == CHUNK_BYTES) pg_gif_flush(g);
  }
}

void pg_gif_flush(PgGifWriter *g) {
  if (g->chunk_used) pg_write(g->chunk, g->chunk_used);
  g->chunk_used = 0;
}

static void data_byte(PgGifWriter *g, uint8_t b) {
  g->block[g->block_used++] = b;
  if (g->block_used < 255) return;
  uint8_t length = 255;
  pg_gif_put(g, &length, 1);
  pg_gif_put(g, g->block, 255);
  g->block_used = 0;
}

static void emit(PgGifWriter *g, int code) {
  g->bits |= (uint32_t)code << g->bit_count;
  g->bit_count += g->size;
  for (; g->bit_count >= 8; g->bit_count -= 8, g->bits >>= 8) data_byte(g, (uint8_t)g->bits);
}

static void reset_table(PgGifWriter *g) {
  memset(g->keys, 0, sizeof g->keys);
  g->size = g->min_size + 1;
  g->next = (1 << g->min_size) + 2;
}

void pg_lzw_begin(PgGifWriter *g, int min_code_size) {
  uint8_t size_byte = (uint8_t)min_code_size;
  pg_gif_put(g, &size_byte, 1);
  g->min_size = min_code_size;
  g->block_used = 0, g->bits = 0, g->bit_count = 0;
  g->prefix = -1;
  reset_table(g);
  emit(g, 1 << min_code_size); // clear
}

static int slot_of(const PgGifWriter *g, uint32_t key) {
  uint32_t h = (key * 2654435761u) >> 19; // 13 bits: PG_LZW_SLOTS
  while (g->keys[h] && g->keys[h] != key + 1) h = (h + 1) & (PG_LZW_SLOTS - 1);
  return (int)h;
}

void pg_lzw_indices(PgGifWriter *g, const uint8_t *indices, int n) {
  int i = 0;
  if (g->prefix < 0 && n > 0) g->prefix = indices[i++];
  for (; i < n; i++) {
    uint32_t key = (uint32_t)g->prefix << 8 | indices[i];
    int slot = slot_of(g, key);
    if (g->keys[slot]) {
      g->prefix = g->codes[slot];
      continue;
    }
    emit(g, g->prefix);
    if (g->next == MAX_CODES) {
      emit(g, 1 << g->min_size); // the table is full: clear, at the current (12-bit) size
      reset_table(g);
    } else {
      if (g->next >= 1 << g->size) g->size++;
      g->keys[slot] = key + 1;
      g->codes[slot] = (uint16_t)g->next++;
    }
    g->prefix = indices[i];
  }
}

void pg_lzw_end(PgGifWriter *g) {
  if (g->prefix >= 0) emit(g, g->prefix);
  emit(g, (1 << g->min_size) + 1); // end of information
  if (g->bit_count > 0) data_byte(g, (uint8_t)g->bits);
  g->bits = 0, g->bit_count = 0;
  // The last sub-block, if it holds anything, then the terminator (an empty sub-block).
  uint8_t length = (uint8_t)g->block_used, terminator = 0;
  if (length) {
    pg_gif_put(g, &length, 1);
    pg_gif_put(g, g->block, length);
  }
  pg_gif_put(g, &terminator, 1);
}

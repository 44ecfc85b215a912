// The GIF file's bytes as they are made: fixed blocks, then the image's LZW codes packed into
// 255-byte sub-blocks, handed to JavaScript 64 KB at a time (gif_writer.c).
#ifndef PIXELGATE_GIF_WRITER_H
#define PIXELGATE_GIF_WRITER_H

#include <stddef.h>
#include <stdint.h>

enum { PG_LZW_SLOTS = 8192 }; // open-addressing table over the at most 4096 codes of a GIF

typedef struct {
  uint8_t *chunk;             // bytes not yet handed out
  size_t chunk_used;
  uint8_t block[255];         // the current sub-block's data
  int block_used;
  uint32_t bits;              // codes not yet whole bytes, low bits first
  int bit_count;
  int min_size, size, next;   // code sizes and the next free code
  int prefix;                 // code of the string matched so far, -1 before the first index
  uint32_t keys[PG_LZW_SLOTS]; // (prefix << 8 | index) + 1 of each table entry, 0 = empty
  uint16_t codes[PG_LZW_SLOTS];
} PgGifWriter;

PgGifWriter *pg_gif_writer_new(void);
void pg_gif_writer_free(PgGifWriter *g);
// Raw bytes of the file (header, colour table, extension and descriptor blocks, trailer).
void pg_gif_put(PgGifWriter *g, const void *bytes, size_t n);
void pg_lzw_begin(PgGifWriter *g, int min_code_size);
void pg_lzw_indices(PgGifWriter *g, const uint8_t *indices, int n);
void pg_lzw_end(PgGifWriter *g);
// Hands out whatever is left; the writer is done.
void pg_gif_flush(PgGifWriter *g);

#endif

// Reading WebP lossless (VP8L) bitstreams a row at a time: our own decoder, used where libwebp's
// would hold a whole image (the main image of a lossless file: 4 bytes a pixel; the ALPH plane
// of a lossy file with alpha: 1 byte a pixel, twice).
//
// Why it can stream: a VP8L image is entropy-coded pixels ("residuals") to which the inverse
// transforms are applied. The transforms of a row need that row and the row above it; the
// backward references of the entropy coding reach at most about a million pixels back (the
// format's window). So a ring of the last pixels decoded, sized to that window, plus a few rows
// of transform state, is all a decoder needs; the sub-images (transform data, the entropy image
// of the meta codes, the palette) are small and held whole.
//
//   vp8l_codes.c       bits and prefix (Huffman) codes
//   vp8l_image.c       image streams: transforms read, entropy-coded pixels into the ring, rows out
//   vp8l_transforms.c  the inverse transforms of one row
//   alpha_rows.c       the ALPH chunk (raw or VP8L, then the container's filter) as rows
//
// Corrupt or hostile data fails with a status (pg_fail is never called from here), and no read
// goes outside the buffers.
#ifndef PIXELGATE_VP8L_H
#define PIXELGATE_VP8L_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *data;
  size_t size, pos;
  uint64_t bits; // not yet consumed, lowest first
  int count;     // how many of `bits` are real
  int overrun;   // more bits were consumed than the data holds (they read as 0)
  // Reading the file from JavaScript (pg_read_at) a chunk at a time instead of from memory:
  // the chunk, and the part of the file not read yet.
  uint8_t *chunk;
  size_t file_at, file_end;
} PgBitReader;

// pg_read_at (an import, src/codecs/native.ts): `length` bytes of the call's file from `offset`
// into `dst`; 0 when the file is shorter.
__attribute__((import_module("env"), import_name("pg_read_at"))) int pg_read_at(void *dst, size_t offset, size_t length);

// Bits of `data`; with `data` NULL, of the call's file from `offset` on, read through pg_read_at.
int pg_bits_open(PgBitReader *br, const uint8_t *data, size_t offset, size_t size);
void pg_bits_close(PgBitReader *br);
uint32_t pg_bits_read(PgBitReader *br, int n); // n <= 32

// A prefix code ready for decoding: a table indexed by the next `root` bits (symbol << 4 |
// length; PG_LONG_CODE where the code is longer), and the canonical order for longer codes.
#define PG_LONG_CODE 0xffffu
typedef struct {
  uint16_t *table;
  uint16_t *sorted; // symbols in code order
  uint16_t count[16];
  int root;
} PgPrefixCode;

// Reads one code of `alphabet` symbols (simple or normal code-length code); 0 when invalid.
// `code` may be NULL to read and check a code that is not used.
int pg_prefix_read(PgBitReader *br, int alphabet, PgPrefixCode *code);
int pg_prefix_symbol(PgBitReader *br, const PgPrefixCode *code);
void pg_prefix_free(PgPrefixCode *code);
// A length or distance from its prefix symbol and extra bits.
uint32_t pg_prefix_value(PgBitReader *br, int symbol);

enum { PG_PREDICT = 0, PG_CROSS_COLOUR = 1, PG_SUBTRACT_GREEN = 2, PG_COLOUR_INDEX = 3 };

typedef struct {
  int type, bits;
  int width;        // of the transform's output (the image's width when it was read)
  int data_width;   // blocks across (predictor, cross colour)
  uint32_t *data;   // block data, or the palette (256 entries, zero past its colours)
  uint32_t *above;  // predictor: the previous output row
} PgTransform;

typedef struct PgVp8l PgVp8l;

// A VP8L image (from its signature byte, `offset` into `data`, or into the call's file when
// `data` is NULL) of the size the caller read.
int pg_vp8l_open(PgVp8l **out, const uint8_t *data, size_t offset, size_t size, int width, int height);
// A headerless image stream of a known size (the ALPH chunk's lossless alpha).
int pg_vp8l_open_stream(PgVp8l **out, const uint8_t *data, size_t size, int width, int height);
// The next row as ARGB words (0xAARRGGBB); NULL with *status set when the data is bad.
const uint32_t *pg_vp8l_row(PgVp8l *d, int *status);
void pg_vp8l_free(PgVp8l *d);

// Inverse transforms, one row `y` at a time (vp8l_transforms.c).
int pg_transform_read(PgBitReader *br, PgTransform *t, int *width, int height, PgVp8l *d);
// Applies `t` to `in` (the transform's input row) into `out` (`t->width` words; may be `in`
// except for colour indexing). Returns the row written.
uint32_t *pg_transform_row(PgTransform *t, int y, uint32_t *in, uint32_t *spare);
void pg_transform_free(PgTransform *t);
// A sub-image decoded whole (transform data, palette, entropy image), or NULL with *status.
uint32_t *pg_vp8l_subimage(PgVp8l *d, int width, int height, int *status);

// The ALPH chunk's payload (its header byte first) as rows of `width` alpha bytes.
typedef struct PgAlphaRows PgAlphaRows;
int pg_alpha_open(PgAlphaRows **out, const uint8_t *data, size_t size, int width, int height);
const uint8_t *pg_alpha_row(PgAlphaRows *a, int *status);
void pg_alpha_free(PgAlphaRows *a);

// Where a lossless file's VP8L stream starts (libwebp's reading: it runs to the file's end),
// and the file's features, from `data` or, when NULL, the call's file read through pg_read_at
// (only as much of its start as the headers take).
#ifdef WEBP_WEBP_DECODE_H_
int pg_webp_features(const uint8_t *data, size_t size, WebPBitstreamFeatures *features, size_t *vp8l_offset);
#endif

#endif

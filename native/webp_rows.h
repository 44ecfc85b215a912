// A still WebP's rows as YUV 4:2:0 and alpha, handed to a callback, without the picture ever
// whole in a decoder: a lossy (VP8) file through libwebp a macroblock row at a time with the
// alpha plane from our own decoder (webp_lossy_rows.c), a lossless (VP8L) one through ours
// (webp_lossless_rows.c).
#ifndef PIXELGATE_WEBP_ROWS_H
#define PIXELGATE_WEBP_ROWS_H

#include <stddef.h>
#include <stdint.h>

// Row `row` of the picture: its luma, the chroma row of its 2x2 cells, and its alpha (NULL
// when the file has none).
typedef void (*PgYuvRow)(void *sink, const uint8_t *y, const uint8_t *u, const uint8_t *v, const uint8_t *a, int row);

// Every row of the file in order; a status (PG_INVALID for a corrupt file or alpha plane).
int pg_webp_lossy_rows(const uint8_t *data, size_t size, PgYuvRow each, void *sink);
// The same for a lossless file of `width` x `height`; alpha rows only when `alpha`.
int pg_webp_lossless_rows(const uint8_t *data, size_t size, int width, int height, int alpha, PgYuvRow each, void *sink);

#endif

// Our own coder of a WebP's alpha plane (webp_alpha.c), and the file around it.
#ifndef PIXELGATE_WEBP_ALPHA_H
#define PIXELGATE_WEBP_ALPHA_H

#include "lossless_codes.h"

// The ALPH chunk's payload for a width x height plane, appended to `out`.
int pg_alpha_chunk(const uint8_t *plane, int stride, int width, int height, PgBitWriter *out);
// A simple WebP file (one VP8 chunk, from libwebp) with the ALPH payload added, as a new
// allocation in *file.
int pg_webp_with_alpha(const uint8_t *simple, size_t simple_size, const PgBitWriter *alpha, int width, int height, uint8_t **file, size_t *size);

#endif

// Our own coder of a WebP's alpha plane (webp_alpha.c), and the file around it.
#ifndef PIXELGATE_WEBP_ALPHA_H
#define PIXELGATE_WEBP_ALPHA_H

#include "lossless_codes.h"

// The ALPH chunk's payload for a width x height plane, appended to `out`.
int pg_alpha_chunk(const uint8_t *plane, int stride, int width, int height, PgBitWriter *out);
// The 38 bytes that replace a simple WebP's RIFF header (libwebp's, which says `simple_riff_size`)
// when the ALPH payload goes in: our RIFF header, a VP8X chunk announcing alpha, the ALPH chunk's
// header. The payload and its padding byte follow, then libwebp's VP8 chunk as it is.
size_t pg_webp_alpha_headers(uint8_t *out, uint32_t simple_riff_size, const PgBitWriter *alpha, int width, int height);

#endif

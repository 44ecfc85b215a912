// Pixelgate's own codec binding: JPEG in, WebP or JPEG out, without a full-image RGBA raster.
//
// The module is instantiated once per request and dropped afterwards (src/codecs/native.ts),
// so a fatal error does not need to unwind C state: pg_fail calls into JavaScript, which
// throws, and the whole instance with whatever it allocated becomes garbage. That is why
// libjpeg's error_exit needs no setjmp here (emscripten 3.1.6 would need JS glue for it).
#ifndef PIXELGATE_H
#define PIXELGATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h> // jpeglib.h needs FILE and size_t declared first
#include <jpeglib.h>

// Status codes shared with src/codecs/native.ts (NativeStatus).
enum {
  PG_OK = 0,
  PG_UNSUPPORTED = 1, // a valid JPEG this build does not handle (CMYK, RGB-coded): use jsquash
  PG_INVALID = 2,     // corrupt data, or a size other than the one the caller read from the header
  PG_NO_MEMORY = 3,   // linear memory could not grow
  PG_ENCODE_FAILED = 4,
};

// Throws in JavaScript; never returns.
__attribute__((import_module("env"), import_name("pg_fail"), noreturn)) void pg_fail(int status);

// A decoder positioned before its first scanline, output size known.
typedef struct {
  struct jpeg_decompress_struct cinfo;
  struct jpeg_error_mgr err;
  int orientation; // EXIF 1-8
  int width;       // after orientation
  int height;
} PgSource;

// YUV 4:2:0 planes of the oriented image; chroma planes are (width+1)/2 x (height+1)/2.
typedef struct {
  uint8_t *y, *u, *v;
  int y_stride, uv_stride;
} PgPlanes;

// Sample maps applied while writing planes: identity for JPEG (full-range YCbCr), the BT.601
// studio range for WebP.
typedef struct {
  uint8_t luma[256];
  uint8_t chroma[256];
} PgRange;

void pg_error_handlers(struct jpeg_error_mgr *err);
int pg_source_open(PgSource *s, const uint8_t *data, size_t size, int width, int height, int orientation);
void pg_source_to_planes(PgSource *s, const PgPlanes *planes, const PgRange *range);
void pg_range_full(PgRange *range);
// EXIF orientation 1-8 as three bits: mirror source x, mirror source y, swap the axes.
void pg_orientation_bits(int orientation, int *flip_x, int *flip_y, int *turned);
void pg_range_studio(PgRange *range);
void pg_range_expand(PgRange *range);
void pg_set_output(uint8_t *data, size_t size);
void pg_jpeg_settings(j_compress_ptr co, int quality);
// A JPEG encoder (progressive, optimised, pg_jpeg_settings) whose file becomes the call's
// output at pg_jpeg_finish; rows go in with jpeg_write_scanlines(&e->co, ...).
typedef struct {
  struct jpeg_compress_struct co;
  struct jpeg_error_mgr err;
  unsigned char *out;
  unsigned long out_size;
} PgJpegEncoder;
void pg_jpeg_start(PgJpegEncoder *e, int width, int height, J_COLOR_SPACE input, int quality);
void pg_jpeg_finish(PgJpegEncoder *e);
// Bytes libjpeg's coefficient arrays may take unpacked (coef_store.c); 0: all of them.
void pg_jpeg_window(int bytes);
void pg_jpeg_write_planes(j_compress_ptr co, const PgPlanes *p, int width, int rows);
// Rows of YCbCr 4:2:0 planes (matrix kr, kb; range) as RGBA (planes_sink.c).
void pg_planes_rgba(const PgPlanes *in, const uint8_t *alpha, int width, int rows, double kr, double kb, int full_range, uint8_t *rgba);
// Bands of planes placed into a whole picture oriented by EXIF orientation 1-8 (planes_orient.c).
void pg_orient_band(const PgPlanes *band, const uint8_t *alpha, int w, int h, int first, int n, int orientation, const PgPlanes *to, uint8_t *to_alpha, int alpha_stride);
uint8_t *pg_raster_begin(int target_is_webp, int w, int h, int has_alpha, int quality, int batch_rows);
void pg_raster_rows(int n);
int pg_raster_end(void);

#ifdef WEBP_WEBP_ENCODE_H_
int pg_configure_webp(WebPConfig *config, float quality);
void pg_webp_low_memory(int on);
int pg_yuv_picture(WebPPicture *picture, int w, int h, int alpha);
int pg_encode_picture(WebPPicture *picture, const WebPConfig *config);

// One WebP or JPEG encode fed a band of rows at a time (band_encoder.c).
typedef struct {
  int webp;
  float quality;
  WebPPicture picture;
  PgJpegEncoder jpeg;
} PgBandEncoder;

int pg_band_encoder_begin(PgBandEncoder *e, int webp, int w, int h, int alpha, int quality, J_COLOR_SPACE jpeg_input);
int pg_band_encoder_end(PgBandEncoder *e);
#endif

#endif

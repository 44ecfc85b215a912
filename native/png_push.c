// A PNG whose rows JavaScript pushes a band at a time (the local upscaler's output, up to
// 8192 x 8192: src/codecs/native.ts pngPieces). A WASM call cannot wait for an upload, so the
// writer's state stays in the instance between calls: pg_png_push_begin, then pg_png_push_rows
// once per band copied into the band buffer, then pg_png_push_end. Each call hands the bytes it
// finished to JavaScript through pg_write (png_sink.c's writer: filter, libdeflate parts, one
// IDAT chunk per part), which uploads them before pushing the next band. WASM memory holds one
// band, two rows and the deflate parts' buffers, whatever the image's size.
#include <stdlib.h>
#include "png_sink.h"

static PgPngWriter *writer;
static uint8_t *band;
static int band_rows, row_bytes, rows_left;

// Starts a width x height PNG (RGBA when `alpha`, else RGB) and writes its signature and IHDR;
// the band buffer, room for `rows` RGBA rows, or NULL when memory ran out.
uint8_t *pg_png_push_begin(int width, int height, int alpha, int rows) {
  if (width < 1 || height < 1 || rows < 1) return NULL;
  row_bytes = width * 4, band_rows = rows, rows_left = height;
  band = malloc((size_t)row_bytes * (size_t)rows);
  writer = band ? pg_png_writer_new(width, height, alpha) : NULL;
  return writer ? band : NULL;
}

// Writes the band buffer's first `rows` rows, the next of the picture.
int pg_png_push_rows(int rows) {
  if (!writer || rows < 1 || rows > band_rows || rows > rows_left) return PG_INVALID;
  for (int k = 0; k < rows; k++) pg_png_writer_row(writer, band + (size_t)k * (size_t)row_bytes);
  rows_left -= rows;
  return PG_OK;
}

// Ends the file once every row was pushed: the last part, the Adler-32, IEND.
int pg_png_push_end(void) {
  if (!writer || rows_left != 0) return PG_INVALID;
  pg_png_writer_end(writer);
  free(band);
  writer = NULL, band = NULL;
  return PG_OK;
}

// JPEG to JPEG with libjpeg-turbo: progressive, optimised Huffman tables, 4:2:0 chroma.
//
// Upright images stream scanline to scanline (decoder rows go straight into the encoder, which
// keeps the whole image only as quantised coefficients, as any progressive encoder must, packed
// by coef_store.c). Turned or mirrored images are decoded into oriented YUV planes first (1.5
// bytes a pixel)
// and fed back as rows; the planes' chroma is already 4:2:0, so repeating it over each 2x2 cell
// lets libjpeg's box downsampling give back exactly the same values.
#include <stdlib.h>
#include <string.h>
#include "pixelgate.h"

// The quantisation table the JPEG encoder we replace uses (MozJPEG's default, the table ImageMagick
// adopted from N. Robidoux), for luma and chroma alike, scaled by quality the libjpeg way. Read
// back from that encoder's own output at quality 50 (scale 100%). With libjpeg's Annex K tables
// instead, files at the same quality setting came out about 55% larger.
static const unsigned int ROBIDOUX_TABLE[64] = {
  16, 16, 16, 18, 25, 37, 56, 85,     16, 17, 20, 27, 34, 40, 53, 75,
  16, 20, 24, 31, 43, 62, 91, 135,    18, 27, 31, 40, 53, 74, 106, 156,
  25, 34, 43, 53, 69, 94, 131, 189,   37, 40, 62, 74, 94, 124, 169, 238,
  56, 53, 91, 106, 131, 169, 226, 311, 85, 75, 135, 156, 189, 238, 311, 418,
};

// The encoder lives on the caller's stack until pg_jpeg_finish (jpeg_mem_dest keeps &e->out).
void pg_jpeg_start(PgJpegEncoder *e, int width, int height, J_COLOR_SPACE input, int quality) {
  pg_error_handlers(&e->err);
  e->co.err = &e->err;
  jpeg_create_compress(&e->co);
  e->out = NULL;
  e->out_size = 0;
  j_compress_ptr co = &e->co;
  co->image_width = (JDIMENSION)width;
  co->image_height = (JDIMENSION)height;
  co->input_components = input == JCS_GRAYSCALE ? 1 : 3;
  co->in_color_space = input;
  jpeg_set_defaults(co);
  pg_jpeg_settings(co, quality);
  jpeg_mem_dest(co, &e->out, &e->out_size);
  jpeg_start_compress(co, TRUE);
}

void pg_jpeg_finish(PgJpegEncoder *e) {
  jpeg_finish_compress(&e->co);
  jpeg_destroy_compress(&e->co);
  pg_set_output(e->out, e->out_size);
}

// Set by pg_jpeg_baseline for this instance's one call: a TIFF's JPEG strip must be baseline.
static int baseline_only;

void pg_jpeg_baseline(int on) { baseline_only = on; }

// Quality, tables and scan layout, after jpeg_set_defaults.
void pg_jpeg_settings(j_compress_ptr co, int quality) {
  // Progressive files are not forced to baseline (8-bit) table values, as in the encoder we
  // replace: low qualities keep their coarse high-frequency steps. A baseline file (SOF0, one
  // sequential scan) must have them.
  int scale = jpeg_quality_scaling(quality);
  jpeg_add_quant_table(co, 0, ROBIDOUX_TABLE, scale, baseline_only);
  jpeg_add_quant_table(co, 1, ROBIDOUX_TABLE, scale, baseline_only);
  co->optimize_coding = TRUE;
  co->dct_method = JDCT_ISLOW;
  if (!baseline_only) jpeg_simple_progression(co);
}

static void stream_rows(PgSource *s, j_compress_ptr co) {
  j_decompress_ptr ci = &s->cinfo;
  JSAMPARRAY rows = (*ci->mem->alloc_sarray)((j_common_ptr)ci, JPOOL_IMAGE,
                                            ci->output_width * (JDIMENSION)ci->output_components, ci->rec_outbuf_height);
  while (ci->output_scanline < ci->output_height) {
    JDIMENSION n = jpeg_read_scanlines(ci, rows, ci->rec_outbuf_height);
    jpeg_write_scanlines(co, rows, n);
  }
  jpeg_finish_decompress(ci);
}

// Writes `rows` rows of full-range YCbCr planes (from their first row; chroma repeated over each
// 2x2 cell) to an encoder started with JCS_YCbCr.
void pg_jpeg_write_planes(j_compress_ptr co, const PgPlanes *p, int width, int rows) {
  JSAMPLE *row = malloc((size_t)width * 3);
  if (!row) pg_fail(PG_NO_MEMORY);
  for (int y = 0; y < rows; y++) {
    const uint8_t *luma = p->y + (size_t)y * p->y_stride;
    const uint8_t *cb = p->u + (size_t)(y / 2) * p->uv_stride;
    const uint8_t *cr = p->v + (size_t)(y / 2) * p->uv_stride;
    for (int x = 0; x < width; x++) {
      row[3 * x] = luma[x];
      row[3 * x + 1] = cb[x / 2];
      row[3 * x + 2] = cr[x / 2];
    }
    JSAMPROW one[1] = {row};
    jpeg_write_scanlines(co, one, 1);
  }
  free(row);
}

// Full-range YCbCr 4:2:0 planes encoded as the call's output. `release` (the planes' memory) is
// freed once every row is in the encoder, before its final passes over the coefficients.
static void planes_to_jpeg(const PgPlanes *planes, int width, int height, int quality, void *release) {
  PgJpegEncoder e;
  pg_jpeg_start(&e, width, height, JCS_YCbCr, quality);
  pg_jpeg_write_planes(&e.co, planes, width, height);
  free(release);
  pg_jpeg_finish(&e);
}

// YCbCr with luma sampled 2x2 and both chroma components 1x1.
static int is_420(j_decompress_ptr ci) {
  jpeg_component_info *c = ci->comp_info;
  return ci->num_components == 3 && ci->jpeg_color_space == JCS_YCbCr && c[0].h_samp_factor == 2 && c[0].v_samp_factor == 2 &&
         c[1].h_samp_factor == 1 && c[1].v_samp_factor == 1 && c[2].h_samp_factor == 1 && c[2].v_samp_factor == 1;
}

// `data` is taken over (freed once decoded, or at the end when streaming).
int pg_jpeg_to_jpeg(uint8_t *data, size_t size, int width, int height, int orientation, int quality) {
  PgSource source;
  int status = pg_source_open(&source, data, size, width, height, orientation);
  if (status != PG_OK) return status;

  // Both whole-image coefficient arrays (a progressive decoder's, the encoder's) are kept
  // packed (coef_store.c), so an upright image streams. A progressive file other than 4:2:0
  // colour still goes through planes, as it did before the store: the planes' 2x2 chroma
  // averages and libjpeg's biased box downsampling of the same rows differ by one here and
  // there, and its file stays what it was. 4:2:0 chroma comes back from either exactly.
  if (source.orientation != 1 || (jpeg_has_multiple_scans(&source.cinfo) && !is_420(&source.cinfo))) {
    int cw = (source.width + 1) / 2, ch = (source.height + 1) / 2;
    size_t luma = (size_t)source.width * source.height, chroma = (size_t)cw * ch;
    uint8_t *pixels = malloc(luma + 2 * chroma);
    if (!pixels) pg_fail(PG_NO_MEMORY);
    PgPlanes planes = {pixels, pixels + luma, pixels + luma + chroma, source.width, cw};
    PgRange range;
    pg_range_full(&range);
    pg_source_to_planes(&source, &planes, &range);
    jpeg_destroy_decompress(&source.cinfo);
    free(data);
    planes_to_jpeg(&planes, source.width, source.height, quality, pixels);
    return PG_OK;
  }

  PgJpegEncoder e;
  pg_jpeg_start(&e, source.width, source.height, source.cinfo.out_color_space, quality);
  stream_rows(&source, &e.co);
  jpeg_destroy_decompress(&source.cinfo);
  free(data);
  pg_jpeg_finish(&e);
  return PG_OK;
}

// Every GIF the service writes, from a row source (png_rows.c: an upload's rows, a HEIC's planes
// or a raster held in JavaScript): one pass over the rows for the statistics
// (png_stats.c, with 1-bit transparency applied), a palette, then a second pass whose rows are
// mapped to palette indices and LZW-coded straight into the file (gif_writer.c). The rules:
// - at most 256 colours: the image's own when it has that few (in the order first seen, the
//   transparent entry last), otherwise median cut over the histogram (png_palette.c);
// - alpha below 128 is the one transparent entry, every other pixel is opaque; no dithering;
// - GIF89a, one frame at (0, 0), a global colour table of a power of two entries (at least 2,
//   padded with black), a graphic control extension only when there is a transparent entry,
//   no loop extension, not interlaced.
// The file leaves WASM memory through pg_write as it is written (64 KB at a time).
#include <stdlib.h>
#include <string.h>
#include "gif_writer.h"
#include "png_sink.h"

typedef struct {
  const PgStats *stats;
  PgPalette palette;        // entries: opaque colours first, the transparent one last
  int median_cut;
  uint8_t exact_entry[PG_EXACT_MAX]; // exact palette: the entry of each colour, by first-seen rank
} GifColours;

// The image's own colours: opaque ones in the order first seen, the transparent one last.
static void exact_colours(GifColours *c, const PgStats *s) {
  PgPalette *p = &c->palette;
  memset(p, 0, sizeof *p);
  p->transparent_index = -1;
  int k = 0;
  for (int i = 0; i < s->exact_count; i++) {
    if (s->exact[i] == 0) continue;
    c->exact_entry[i] = (uint8_t)k;
    for (int ch = 0; ch < 4; ch++) p->rgba[4 * k + ch] = (uint8_t)(s->exact[i] >> (8 * ch));
    k++;
  }
  for (int i = 0; i < s->exact_count; i++) {
    if (s->exact[i] != 0) continue;
    p->transparent_index = k;
    c->exact_entry[i] = (uint8_t)k++;
  }
  p->entries = k > 0 ? k : 1;
}

static int choose_colours(GifColours *c, const PgStats *s) {
  c->stats = s;
  c->median_cut = s->exact_count > PG_EXACT_MAX;
  if (!c->median_cut) {
    exact_colours(c, s);
    return PG_OK;
  }
  return pg_palette_median_cut(&c->palette, s, 256);
}

static uint8_t index_of(const GifColours *c, const uint8_t *px) {
  uint8_t q[4];
  const uint8_t *p = pg_binary_pixel(px, q);
  if (!c->median_cut) return c->exact_entry[pg_exact_index(c->stats, pg_canonical(p))];
  if (p[3] == 0) return (uint8_t)c->palette.transparent_index;
  return (uint8_t)c->palette.entry_of_bin[pg_bin_of(p, 0)];
}

static void put_u16(uint8_t *at, int v) { at[0] = (uint8_t)v, at[1] = (uint8_t)(v >> 8); }

// Header, logical screen, global colour table, graphic control extension, image descriptor.
static int write_head(PgGifWriter *g, const PgPalette *p, int width, int height) {
  int bits = 1;
  while ((1 << bits) < p->entries) bits++;
  uint8_t screen[13] = {'G', 'I', 'F', '8', '9', 'a'};
  put_u16(screen + 6, width);
  put_u16(screen + 8, height);
  screen[10] = (uint8_t)(0x80 | (bits - 1)); // a global table of 2^bits entries
  pg_gif_put(g, screen, sizeof screen);
  uint8_t table[256 * 3] = {0};
  for (int k = 0; k < p->entries; k++) memcpy(table + 3 * k, p->rgba + 4 * k, 3);
  pg_gif_put(g, table, (size_t)3 << bits);
  if (p->transparent_index >= 0) {
    uint8_t control[8] = {0x21, 0xf9, 4, 1, 0, 0, (uint8_t)p->transparent_index, 0};
    pg_gif_put(g, control, sizeof control);
  }
  uint8_t descriptor[10] = {0x2c};
  put_u16(descriptor + 5, width);
  put_u16(descriptor + 7, height);
  pg_gif_put(g, descriptor, sizeof descriptor);
  return bits < 2 ? 2 : bits; // the LZW minimum code size
}

// The second pass: rows to indices to LZW codes. `g` and `indices` (a row) were allocated
// before the first pass, and the statistics are freed: a progressive JPEG's decoder allocates
// its whole coefficient array again here, and finds the space the first pass left.
static int write_gif(PgRows *rows, const GifColours *c, PgGifWriter *g, uint8_t *indices) {
  int status = pg_rows_start(rows, 1);
  if (status != PG_OK) return status;
  int width = rows->pass_width, height = rows->pass_height;
  pg_lzw_begin(g, write_head(g, &c->palette, width, height));
  for (int y = 0; y < height; y++) {
    const uint8_t *row = pg_rows_next(rows);
    for (int x = 0; x < width; x++) indices[x] = index_of(c, row + 4 * x);
    pg_lzw_indices(g, indices, width);
  }
  pg_lzw_end(g);
  uint8_t trailer = 0x3b;
  pg_gif_put(g, &trailer, 1);
  pg_gif_flush(g);
  pg_rows_stop(rows);
  return PG_OK;
}

// `data` (a JPEG or WebP; NULL for a PNG, read through pg_read_at) as a GIF, handed out through
// pg_write. `width` and `height` are the file's, from its header; `orientation` is applied.
int pg_to_gif(int kind, uint8_t *data, size_t size, int width, int height, int orientation) {
  PgRows rows;
  int status = pg_rows_init(&rows, kind, data, size, width, height, orientation);
  if (status != PG_OK) return status;
  PgGifWriter *g = pg_gif_writer_new();
  uint8_t *indices = malloc((size_t)rows.width);
  PgStats stats = {0};
  GifColours colours = {0};
  status = g && indices ? pg_stats_gather_binary(&stats, &rows) : PG_NO_MEMORY;
  if (status == PG_OK) status = choose_colours(&colours, &stats);
  if (status == PG_OK) {
    pg_stats_free(&stats); // the palette is chosen: only the exact colours' table is still read
    status = write_gif(&rows, &colours, g, indices);
  }
  if (colours.median_cut) pg_palette_free(&colours.palette);
  pg_stats_free(&stats);
  free(indices);
  pg_gif_writer_free(g);
  pg_rows_free(&rows);
  return status;
}

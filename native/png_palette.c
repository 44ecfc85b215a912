// The palette of a PNG written below quality 100: the image's own colours when they fit, else a
// variance-based median cut over the histogram png_stats.c gathered (alpha as a fourth channel
// for PNG; for GIF, 1-bit transparency and R, G and B only): the box with the largest
// weighted squared error is split at the population median of its widest channel until the
// palette is full; entries are the means of the real pixels in each box, then one k-means step
// at bin resolution moves each bin to its nearest mean. Fully transparent pixels get one entry
// of their own, last. Deterministic: same pixels, same palette.
#include <stdlib.h>
#include <string.h>
#include "png_sink.h"

// Channel weights for the error measure: the eye is least forgiving of green and of alpha edges.
static const double WEIGHTS[4] = {1.0, 1.2, 0.8, 1.5};

void pg_palette_exact(PgPalette *p, const PgStats *s) {
  memset(p, 0, sizeof *p);
  p->entries = s->exact_count > 0 ? s->exact_count : 1;
  p->transparent_index = -1;
  p->exact = s;
  for (int k = 0; k < s->exact_count; k++) {
    uint32_t c = s->exact[k];
    for (int ch = 0; ch < 4; ch++) p->rgba[4 * k + ch] = (uint8_t)(c >> (8 * ch));
  }
}

typedef struct {
  int start, end, axis;
  double error;
} Box;

typedef struct {
  const PgStats *s;
  uint32_t *order; // occupied bins; each box is a range of it
} Cut;

// Channel value of bin b in bin units; without alpha bins every pixel counts as alpha bin 15.
static int channel(const PgStats *s, uint32_t b, int ch) {
  if (!s->alpha_bins) return ch == 0 ? (int)(b >> 10) : ch == 1 ? (int)((b >> 5) & 31) : ch == 2 ? (int)(b & 31) : 15;
  return ch == 0 ? (int)(b >> 14) : ch == 1 ? (int)((b >> 9) & 31) : ch == 2 ? (int)((b >> 4) & 31) : (int)(b & 15);
}

// The channels the error measure and the nearest-entry search look at: alpha only when the
// palette carries it (GIF's 1-bit transparency measures R, G and B).
static int measured_channels(const PgStats *s) { return s->binary_alpha ? 3 : 4; }

static Box measure(const Cut *c, int start, int end) {
  Box box = {start, end, 0, 0};
  double best = -1, total = 0;
  for (int ch = 0; ch < measured_channels(c->s); ch++) {
    double n = 0, sum = 0, sum_sq = 0;
    for (int k = start; k < end; k++) {
      uint32_t b = c->order[k];
      double w = c->s->bins[5 * (size_t)b];
      double v = channel(c->s, b, ch) * (ch == 3 ? 2 : 1); // alpha bins are twice as wide
      n += w;
      sum += w * v;
      sum_sq += w * v * v;
    }
    double error = (sum_sq - sum * sum / n) * WEIGHTS[ch];
    total += error;
    if (error > best) {
      best = error;
      box.axis = ch;
    }
  }
  box.error = end - start > 1 ? total : 0;
  return box;
}

static int compare_keys(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

// Means of the clusters, each bin counted in the cluster `cluster_of_bin` gives it; a cluster
// left empty keeps its previous colour.
static void cluster_means(const Cut *c, int occupied, const uint16_t *cluster_of_bin, int clusters, uint8_t *means) {
  double *sums = calloc((size_t)clusters * 5, sizeof(double));
  if (!sums) pg_fail(PG_NO_MEMORY);
  for (int k = 0; k < occupied; k++) {
    uint32_t b = c->order[k];
    const uint32_t *bin = c->s->bins + 5 * (size_t)b;
    double *sum = sums + 5 * (size_t)cluster_of_bin[b];
    sum[4] += bin[0];
    // The bin's sums are offsets from its lowest value (png_stats.c): add the base back.
    for (int ch = 0; ch < 4; ch++) sum[ch] += bin[1 + ch] + (double)bin[0] * channel(c->s, b, ch) * (ch == 3 ? 16 : 8);
  }
  for (int k = 0; k < clusters; k++) {
    double n = sums[5 * k + 4];
    for (int ch = 0; ch < 4; ch++) {
      if (n > 0) means[4 * k + ch] = (uint8_t)(sums[5 * k + ch] / n + 0.5);
    }
  }
  free(sums);
}

int pg_palette_median_cut(PgPalette *p, const PgStats *s, int max_colors) {
  memset(p, 0, sizeof *p);
  size_t bins = (size_t)1 << (s->alpha_bins ? 19 : 15);
  Cut c = {s, NULL};
  int occupied = 0;
  for (size_t b = 0; b < bins; b++) occupied += s->bins[5 * b] != 0;
  c.order = malloc(((size_t)occupied + 1) * sizeof(uint32_t));
  uint32_t *keys = malloc(((size_t)occupied + 1) * sizeof(uint32_t));
  p->entry_of_bin = calloc(bins, sizeof(uint16_t));
  if (!c.order || !keys || !p->entry_of_bin) return PG_NO_MEMORY;
  for (size_t b = 0, k = 0; b < bins; b++)
    if (s->bins[5 * b]) c.order[k++] = (uint32_t)b;

  int slots = s->transparent > 0 ? max_colors - 1 : max_colors;
  Box boxes[256];
  int count = 0;
  if (occupied > 0) boxes[count++] = measure(&c, 0, occupied);
  while (count < slots) {
    int pick = -1;
    for (int i = 0; i < count; i++)
      if (boxes[i].error > 0 && (pick < 0 || boxes[i].error > boxes[pick].error)) pick = i;
    if (pick < 0) break;
    Box box = boxes[pick];
    // Sort the box's bins along its axis: (value, bin) packed into one key.
    for (int k = box.start; k < box.end; k++) keys[k] = (uint32_t)channel(s, c.order[k], box.axis) << 20 | c.order[k];
    qsort(keys + box.start, (size_t)(box.end - box.start), sizeof *keys, compare_keys);
    double population = 0;
    for (int k = box.start; k < box.end; k++) {
      c.order[k] = keys[k] & 0xfffff;
      population += s->bins[5 * (size_t)c.order[k]];
    }
    int cut = box.start;
    for (double seen = 0; cut < box.end - 1; cut++) {
      seen += s->bins[5 * (size_t)c.order[cut]];
      if (seen * 2 >= population) break;
    }
    cut = cut + 1 < box.end - 1 ? cut + 1 : box.end - 1;
    memmove(boxes + pick + 2, boxes + pick + 1, (size_t)(count - pick - 1) * sizeof *boxes);
    boxes[pick] = measure(&c, box.start, cut);
    boxes[pick + 1] = measure(&c, cut, box.end);
    count++;
  }
  free(keys);

  uint8_t means[256 * 4] = {0};
  for (int i = 0; i < count; i++)
    for (int k = boxes[i].start; k < boxes[i].end; k++) p->entry_of_bin[c.order[k]] = (uint16_t)i;
  cluster_means(&c, occupied, p->entry_of_bin, count, means);

  // One refinement step: each bin moves to the mean nearest its centre, and the means are taken again.
  for (int k = 0; k < occupied; k++) {
    uint32_t b = c.order[k];
    int centre[4] = {channel(s, b, 0) * 8 + 4, channel(s, b, 1) * 8 + 4, channel(s, b, 2) * 8 + 4, channel(s, b, 3) * 16 + 8};
    int best = 0;
    double best_distance = 1e300;
    for (int e = 0; e < count; e++) {
      double d = 0;
      for (int ch = 0; ch < measured_channels(s); ch++) {
        double delta = centre[ch] - means[4 * e + ch];
        d += delta * delta * WEIGHTS[ch];
      }
      if (d < best_distance) {
        best_distance = d;
        best = e;
      }
    }
    p->entry_of_bin[b] = (uint16_t)best;
  }
  cluster_means(&c, occupied, p->entry_of_bin, count, means);
  free(c.order);

  p->transparent_index = s->transparent > 0 ? count : -1;
  p->entries = count + (s->transparent > 0 ? 1 : 0);
  if (p->entries < 1) p->entries = 1;
  memcpy(p->rgba, means, (size_t)count * 4); // the transparent entry stays (0, 0, 0, 0)
  return PG_OK;
}

void pg_palette_free(PgPalette *p) {
  free(p->entry_of_bin);
  p->entry_of_bin = NULL;
}
